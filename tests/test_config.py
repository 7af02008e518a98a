"""Configuration: defaults, kit.toml, environment variables, validation and display."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.config import ConfigError, load_settings, show


def test_defaults_are_offline(tmp_path: Path) -> None:
    settings = load_settings(tmp_path / "absent.toml", environ={})
    assert settings.llm_backend == "local" and settings.embed_backend == "onnx"
    assert settings.qdrant_url == "" and settings.qdrant_location.endswith("qdrant")
    assert settings.temperature == 0.0


def test_environment_overrides_toml(tmp_path: Path) -> None:
    toml = tmp_path / "kit.toml"
    toml.write_text('top_k = 7\nprofile = "ci"\n')
    settings = load_settings(toml, environ={"KIT_TOP_K": "9"})
    assert settings.top_k == 9 and settings.profile == "ci"


def test_bad_value_names_key_and_choices(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"profile = 'fast'.*full, ci"):
        load_settings(tmp_path / "absent.toml", environ={"KIT_PROFILE": "fast"})
    with pytest.raises(ConfigError, match="KIT_TOP_K"):
        load_settings(tmp_path / "absent.toml", environ={"KIT_TOP_K": "many"})


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
    assert settings.llm_backend == "openai"
    show(settings)
    out = capsys.readouterr().out
    assert secret not in out and "set (hidden)" in out
    assert secret not in repr(settings)


def test_environment_yml_mirrors_the_pinned_dependencies() -> None:
    import tomllib

    from helpers.config import REPO_ROOT

    pins = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    conda = (REPO_ROOT / "environment.yml").read_text()
    missing = [pin for pin in pins if f'"{pin}"' not in conda]
    assert not missing, f"environment.yml lacks these pins of pyproject.toml: {missing}"
