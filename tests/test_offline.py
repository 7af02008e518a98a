"""The kit answers with no network at all: the CLI `ask` run inside `unshare -n`."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

from helpers.config import REPO_ROOT
from helpers.corpus import course_files


def _can_unshare() -> bool:
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0


@pytest.mark.skipif(not _can_unshare(), reason="needs root and `unshare -n` (Linux) to cut the network")
def test_cli_ask_answers_with_citation_without_network() -> None:
    # the default path: no endpoint, no server, and the default reader (the ci profile's smaller one refused here)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "QDRANT_")) and k != "KIT_LLM_MODEL"}
    result = subprocess.run(
        ["unshare", "-n", sys.executable, "-m", "helpers", "ask", "How many units does the MS require?"],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    corpus = {p.relative_to(REPO_ROOT / "course_data" / "docs").as_posix() for p in course_files()}
    cited = re.findall(r"^ \*\[\d+\] (\S+?),", result.stdout, flags=re.MULTILINE)
    assert cited, f"the answer cites no passage:\n{result.stdout}"
    assert all(source in corpus for source in cited), f"a citation points outside the corpus:\n{result.stdout}"


def test_importing_the_kit_sets_an_offline_and_quiet_environment() -> None:
    """A fresh interpreter that imports helpers gets offline hubs, the shipped BPE cache and passive OpenMP waits."""
    code = (
        "import os, helpers; "
        "print(os.environ['HF_HUB_OFFLINE'], os.environ['OMP_WAIT_POLICY'], 'TIKTOKEN_CACHE_DIR' in os.environ)"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "OMP_WAIT_POLICY", "TIKTOKEN_CACHE_DIR")}
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert result.stdout.split() == ["1", "PASSIVE", "True"], result.stderr
