"""A bad value in kit.toml (KIT_CONFIG) or in an environment variable: a message naming the key and what is allowed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from reliability_kit import Record, write

from helpers.config import ConfigError, load_settings

# case → (kit.toml text, environment, what the message must say)
BAD_VALUES = {
    "kit.toml: unknown retriever": ('retriever = "fastest"\n', {},
                                    "retriever = 'fastest' is not allowed; choose one of: dense, bm25, hybrid"),
    "kit.toml: top_k not a number": ('top_k = "many"\n', {}, "top_k = 'many' is not a valid int; write a whole number"),
    "kit.toml: a typo in a true/false": ('query_expansion = "ture"\n', {},
                                         "query_expansion = 'ture' is not allowed; choose one of: true, false"),
    "kit.toml: unknown key": ("topk = 3\n", {}, "unknown key 'topk' in"),
    "kit.toml: not TOML": ("top_k = = 3\n", {}, "is not valid TOML"),
    "kit.toml: unknown chunk strategy": ('chunk_strategy = "sentences"\n', {},
                                         "chunk_strategy = 'sentences' is not allowed; choose one of: fixed_tok"),
    "env: KIT_LLM_MODEL": ("", {"KIT_LLM_MODEL": "gpt-5"},
                           "llm_model = 'gpt-5' is not allowed; choose one of: qwen2.5-coder-0.5b"),
    "env: KIT_SHIPPED_ANSWERS": ("", {"KIT_SHIPPED_ANSWERS": "maybe"},
                                 "KIT_SHIPPED_ANSWERS = 'maybe' is not allowed; choose one of: true, false"),
    "kit.toml: hybrid_alpha out of range": ("hybrid_alpha = 1.5\n", {},
                                            "hybrid_alpha must be between 0 and 1, got 1.5"),
    "kit.toml: top_k zero": ("top_k = 0\n", {}, "top_k must be a positive integer, got 0"),
    "env: KIT_TOP_K (a stage's choice)": ("", {"KIT_TOP_K": "6"},
                                          "KIT_TOP_K is not read from the environment"),
    "env: KIT_LLM_MAX_RETRIES": ("", {"KIT_LLM_MAX_RETRIES": "-1"}, "llm_max_retries must be 0 or more, got -1"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(BAD_VALUES))
def test_bad_setting_names_the_key_and_the_allowed_values(case: str, tmp_path: Path, record: Record) -> None:
    toml, environ, message = BAD_VALUES[case]
    config = write(tmp_path / "kit.toml", toml) if toml else tmp_path / "absent.toml"
    with pytest.raises(ConfigError) as caught:
        load_settings(environ={"KIT_CONFIG": str(config), **environ})
    assert message in str(caught.value)
    text = str(caught.value)
    record(f"config: {case}", f"ConfigError “{text if len(text) < 150 else text[:150] + ' …'}”")


def test_the_command_line_reports_a_bad_setting_without_a_traceback(tmp_path: Path, record: Record) -> None:
    config = write(tmp_path / "kit.toml", 'retriever = "fastest"\n')
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "KIT_CONFIG": str(config)}
    done = subprocess.run([sys.executable, "-m", "helpers", "config"], env=env, capture_output=True, text=True,
                          timeout=120, cwd=Path(__file__).resolve().parents[2])  # fmt: skip
    assert done.returncode == 2 and "Traceback" not in done.stderr + done.stdout
    assert done.stderr.startswith("configuration error: retriever = 'fastest' is not allowed; choose one of:")
    record("config: `python -m helpers config` with a bad kit.toml", f"exit code 2, one line: “{done.stderr.strip()}”")
