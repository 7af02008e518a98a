"""Configuration: defaults, kit.toml, environment variables, validation and display."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.config import (
    CONFIG_ENV,
    ENVIRONMENT,
    KEYS,
    REPO_ROOT,
    SECTION_OF,
    SECTIONS,
    ConfigError,
    GenerationSettings,
    LLMSettings,
    RerankSettings,
    RetrievalSettings,
    Settings,
    load_settings,
    show,
)


def test_defaults_are_offline(tmp_path: Path) -> None:
    settings = load_settings(tmp_path / "absent.toml", environ={})
    assert settings.llm.llm_backend == "local" and settings.embedding.embed_backend == "onnx"
    assert settings.store.qdrant_url == "" and settings.qdrant_location.endswith("qdrant")
    assert settings.llm.temperature == 0.0


def test_environment_overrides_toml(tmp_path: Path) -> None:
    toml = tmp_path / "kit.toml"
    toml.write_text('top_k = 7\nprofile = "ci"\n')
    settings = load_settings(toml, environ={"KIT_PROFILE": "full"})
    assert settings.retrieval.top_k == 7 and settings.profile == "full"


def test_bad_value_names_key_and_choices(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"profile = 'fast'.*full, ci"):
        load_settings(tmp_path / "absent.toml", environ={"KIT_PROFILE": "fast"})
    with pytest.raises(ConfigError, match="KIT_LLM_THREADS"):
        load_settings(tmp_path / "absent.toml", environ={"KIT_LLM_THREADS": "many"})


def test_unknown_toml_key_is_named(tmp_path: Path) -> None:
    toml = tmp_path / "kit.toml"
    toml.write_text("topk = 3\n")
    with pytest.raises(ConfigError, match="unknown key 'topk'"):
        load_settings(toml, environ={})


def test_endpoint_switches_backend_and_secrets_stay_hidden(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    secret = "sk-test-should-never-print"
    settings = load_settings(
        tmp_path / "absent.toml", environ={"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_API_KEY": secret}
    )
    assert settings.llm.llm_backend == "openai"
    show(settings)
    out = capsys.readouterr().out
    assert secret not in out and "set (hidden)" in out
    assert secret not in repr(settings)


def test_settings_are_read_through_their_sections_only(tmp_path: Path) -> None:
    toml = tmp_path / "kit.toml"
    toml.write_text("top_k = 6\n")
    settings = load_settings(toml, environ={"KIT_EMBED_BACKEND": "local"})
    assert settings.retrieval.top_k == 6 and settings.embedding.embed_backend == "local"
    assert isinstance(settings.retrieval, RetrievalSettings) and isinstance(settings.generation, GenerationSettings)
    for key in SECTION_OF:  # no flat property: a flat name is input only (kit.toml, `replace`)
        assert not hasattr(settings, key), key
    assert set(SECTION_OF) == {f for kind in SECTIONS.values() for f in kind.__dataclass_fields__}
    assert len(KEYS) == len(set(KEYS)) == 62


def test_the_environment_sets_what_a_deployment_sets(tmp_path: Path) -> None:
    environ = {"QDRANT_URL": "http://qdrant:6333", "OPENAI_MODEL": "m", "KIT_LLM_GGUF": "/x.gguf", "KIT_PROFILE": "ci"}
    settings = load_settings(tmp_path / "absent.toml", environ=environ)
    assert settings.store.qdrant_url == "http://qdrant:6333" and settings.qdrant_location == "http://qdrant:6333"
    assert settings.llm.openai_model == "m" and settings.llm.llm_gguf == "/x.gguf" and settings.profile == "ci"
    assert set(ENVIRONMENT) <= set(KEYS) and len(set(ENVIRONMENT.values())) == len(ENVIRONMENT)


def test_an_experiment_switch_in_the_environment_names_the_kit_toml_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"KIT_TOP_K is not read from the environment.*`top_k = 6` in kit.toml"):
        load_settings(tmp_path / "absent.toml", environ={"KIT_TOP_K": "6"})
    with pytest.raises(ConfigError, match=r'`retriever = "bm25"` in kit.toml'):
        load_settings(tmp_path / "absent.toml", environ={"KIT_RETRIEVER": "bm25"})


def test_replace_takes_flat_names_and_checks_the_section_again() -> None:
    settings = Settings()
    changed = settings.replace(top_k=6, embed_backend="local", profile="ci")
    assert changed.retrieval.top_k == 6 and changed.embedding.embed_backend == "local" and changed.profile == "ci"
    assert changed.retrieval.hybrid_alpha == settings.retrieval.hybrid_alpha  # the rest of the section is kept
    assert changed.llm is settings.llm  # untouched sections are shared, not copied
    assert settings.retrieval.top_k == RetrievalSettings().top_k  # the original is unchanged (frozen)
    assert settings.replace(retrieval=RetrievalSettings(top_k=9), hybrid_alpha=0.2).retrieval == RetrievalSettings(
        top_k=9, hybrid_alpha=0.2
    )
    assert Settings(top_k=6) == settings.replace(top_k=6) and hash(Settings(top_k=6)) == hash(settings.replace(top_k=6))
    with pytest.raises(ConfigError, match="hybrid_alpha must be between 0 and 1"):
        settings.replace(hybrid_alpha=1.5)
    with pytest.raises(ConfigError, match="top_k must be a positive integer"):
        settings.replace(top_k=0)
    with pytest.raises(ConfigError, match="rerank_depth"):
        RerankSettings(rerank_depth=0)
    with pytest.raises(ConfigError, match="llm_model"):
        settings.replace(llm_model="gpt-5")
    with pytest.raises(TypeError, match="topk"):
        settings.replace(topk=3)
    with pytest.raises(AttributeError):
        settings.top_k = 3  # type: ignore[misc]


def test_toml_takes_flat_keys_and_section_tables(tmp_path: Path) -> None:
    toml = tmp_path / "kit.toml"
    toml.write_text("top_k = 7\n\n[generation]\ncontext_tokens = 900\n\n[retrieval]\nhybrid_alpha = 0.25\n")
    settings = load_settings(toml, environ={})
    assert settings.retrieval.top_k == 7 and settings.generation.context_tokens == 900
    assert settings.retrieval.hybrid_alpha == 0.25
    toml.write_text("[retrieval]\ncontext_tokens = 900\n")  # a key of another section
    with pytest.raises(ConfigError, match=r"unknown key 'context_tokens' in \[retrieval\]"):
        load_settings(toml, environ={})
    toml.write_text("top_k = 0\n")
    with pytest.raises(ConfigError, match="top_k must be a positive integer"):
        load_settings(toml, environ={})


def test_show_groups_by_section(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    show(load_settings(tmp_path / "absent.toml", environ={"QDRANT_API_KEY": "qdrant-secret-never-printed"}))
    out = capsys.readouterr().out
    assert "qdrant-secret-never-printed" not in out and "set (hidden)" in out
    lines = out.splitlines()
    for section in SECTIONS:
        assert f"  [{section}]" in lines
    assert lines.index("  [retrieval]") < next(i for i, line in enumerate(lines) if line.split()[0] == "top_k")
    assert [key for _, rows in Settings().grouped_rows() for key, _ in rows] == list(KEYS)


def test_the_command_line_prints_the_configuration() -> None:
    import subprocess
    import sys

    from helpers.config import REPO_ROOT

    out = subprocess.run(
        [sys.executable, "-m", "helpers", "config"], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert "RAG Teaching Kit configuration" in out and "  [retrieval]" in out and "top_k" in out


def test_function_defaults_read_the_one_home_of_each_default() -> None:
    """A default written in two places drifts apart: every function default below reads helpers.config."""
    import inspect

    from helpers.app.knobs import Knobs
    from helpers.generation.budget import TokenBudget
    from helpers.generation.prompts import build_messages
    from helpers.lab.chunking import CONTEXT_BUDGET
    from helpers.query.multi_query import MultiQueryRetriever
    from helpers.rerank.base import Reranked
    from helpers.retrieval.hybrid import HybridRetriever, rrf_fusion, weighted_fusion
    from helpers.retrieval.postprocess import PostProcessed

    def default(function: object, name: str) -> object:
        parameter = inspect.signature(function).parameters[name]  # type: ignore[arg-type]
        return None if parameter.default is inspect.Parameter.empty else parameter.default

    retrieval, generation, llm = RetrievalSettings(), GenerationSettings(), LLMSettings()
    for function, name, configured in [
        (weighted_fusion, "alpha", retrieval.hybrid_alpha),
        (HybridRetriever, "alpha", retrieval.hybrid_alpha),
        (HybridRetriever, "rrf_k", retrieval.rrf_k),
        (HybridRetriever, "pool", retrieval.hybrid_pool),
        (rrf_fusion, "rrf_k", retrieval.rrf_k),
        (PostProcessed, "fetch_multiplier", retrieval.fetch_multiplier),
        (Reranked, "depth", RerankSettings().rerank_depth),
        (MultiQueryRetriever, "depth", RerankSettings().rerank_depth),
        (build_messages, "style", generation.short_style),
    ]:
        assert default(function, name) in (None, configured), f"{function.__qualname__}({name}=…) is not the config's"
    assert TokenBudget() == TokenBudget(llm.llm_context_tokens, llm.llm_max_answer_tokens, generation.context_tokens)
    assert TokenBudget() == TokenBudget.from_settings(Settings())
    assert generation.context_tokens == CONTEXT_BUDGET
    assert Knobs() == Knobs.from_settings(Settings())


def test_environment_yml_mirrors_the_pinned_dependencies() -> None:
    import tomllib

    from helpers.config import REPO_ROOT

    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]
    pins = project["dependencies"] + project["optional-dependencies"]["local"]  # conda: the local reader too
    conda = (REPO_ROOT / "environment.yml").read_text()
    missing = [pin for pin in pins if f'"{pin}"' not in conda]
    assert not missing, f"environment.yml lacks these pins of pyproject.toml: {missing}"


def test_the_decisions_table_opens_with_every_default_in_force() -> None:
    """docs/decisions.md's first table names every setting (paths aside) with today's default."""
    import ast
    import re

    text = (REPO_ROOT / "docs" / "decisions.md").read_text(encoding="utf-8")
    table = text.split("## The defaults in force", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| `([^`]*)` \|", table, flags=re.MULTILINE)
    written = {key: ast.literal_eval(value) for key, value in rows}
    defaults = Settings()
    sections = {key: section for key, section in SECTION_OF.items() if section != "paths"}
    expected = {key: getattr(getattr(defaults, section), key) for key, section in sections.items()}
    assert written == expected
    assert text.index("## The defaults in force") < text.index("| decision |")  # the table comes before history


def test_the_config_command_prints_the_retrieval_stack_and_builds_no_index_itself(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    import helpers.__main__ as command
    from helpers.config import get_settings

    empty = get_settings().replace(data_dir=tmp_path / "data")
    monkeypatch.setattr(command, "get_settings", lambda: empty)
    assert command.main(["config"]) == 0
    assert "retrieval: built at the first question; there is no index yet" in capsys.readouterr().out
    assert not (tmp_path / "data").exists()


def test_the_readme_lists_every_environment_variable_in_one_table() -> None:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("| variable | effect |") :].split("\n\n")[0]
    assert all(f"`{name}`" in table for name in (*ENVIRONMENT.values(), CONFIG_ENV))
