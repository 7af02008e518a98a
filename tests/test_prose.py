"""What the prose says must be what the kit is: the notebooks' Markdown, the README and docs/, read against the code.

- every environment variable the prose tells a reader to set is one the kit reads;
- every setting the prose names (`settings.<name>`, or `name` / `name = value` next to `kit.toml`) is one it has;
- every repository file the prose cites exists;
- a reader model named as "this"/"the default" model is the configured default;
- the notebooks' Markdown states no measured figure (a table or a printed line computed by the cell does).
Each rule is a small function, tested here on a planted mistake so that it can fail.
What it leaves out: the README's result tables (they carry their results file and date) and the meaning of a
sentence: a rule reads patterns, not arguments.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from test_code_hygiene import measured_figures

from helpers.config import CONFIG_ENV, ENVIRONMENT, KEYS, SECTIONS, Settings

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted([*(ROOT / "notebooks").glob("*.ipynb"), *(ROOT / "notebooks" / "appendix").glob("*.ipynb")])
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "course_data" / "README.md"]

ENV_NAME = re.compile(r"\b(?:KIT_[A-Z0-9_]+|OPENAI_[A-Z_]+|QDRANT_[A-Z_]+|HF_[A-Z_]+|TIKTOKEN_[A-Z_]+)\b")
SOURCE_GLOBS = ("helpers/**/*.py", "bench/*.py", "scripts/*.sh", "tests/**/*.py", "notebooks/conftest.py",
                "course_data/**/*.py")  # fmt: skip
CITED_PATH = re.compile(r"`([\w./-]+\.(?:md|py|json|csv|jsonl|ipynb|sh|toml|yml|png|txt))`|\]\(([\w./-]+)\)")
FILES = sorted(
    str(path.relative_to(ROOT)) for path in ROOT.rglob("*") if not {".git", ".venv", ".kit_data"} & set(path.parts)
)
SETTING_ATTRIBUTE = re.compile(r"\bsettings\.([a-z_][a-z0-9_]*)")
BACKTICKED_NAME = re.compile(r"`([a-z][a-z0-9_]*)(?:\s*=\s*[^`]*)?`")  # `top_k` or `top_k = 6`
MODEL_SIZE = re.compile(r"\b(?:this|the default|the kit's|our) (\d+(?:\.\d+)?B) (?:model|reader)\b", re.IGNORECASE)


def markdown_of(notebook: Path) -> str:
    """The Markdown cells of a notebook, one after the other."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown")


def prose_sources() -> dict[str, str]:
    """Every text a reader is told things in: the notebooks' Markdown, the README, docs/."""
    texts = {path.name: markdown_of(path) for path in NOTEBOOKS}
    texts |= {str(path.relative_to(ROOT)): path.read_text(encoding="utf-8") for path in DOCS if path.exists()}
    return texts


REFUSED_IN = {"test_prose.py", "test_config.py", "test_rel_config.py"}  # they name variables the kit refuses


def known_environment() -> set[str]:
    """The variables the kit reads: a deployment's settings (`ENVIRONMENT`), and any other the code names."""
    names = {*ENVIRONMENT.values(), CONFIG_ENV}
    for pattern in SOURCE_GLOBS:
        for path in ROOT.glob(pattern):
            if path.name not in REFUSED_IN:
                names |= set(ENV_NAME.findall(path.read_text(encoding="utf-8")))
    return names


def unknown_variables(text: str, known: set[str]) -> list[str]:
    """Environment variables a text names that the kit does not read."""
    return sorted({name for name in ENV_NAME.findall(text) if name not in known and not name.endswith("_")})


def unknown_settings(text: str) -> list[str]:
    """Settings a text names that the kit lacks: `settings.<name>` that `Settings` has not (a section, `profile`,
    a method: values are read through their sections), and the keys in a sentence about `kit.toml`."""
    settings = Settings()
    unknown = {name for name in SETTING_ATTRIBUTE.findall(text) if not hasattr(settings, name)}
    for sentence in re.split(r"(?<=[.!?])\s|\n(?=\|)", text):  # a sentence, or a table row
        if "`kit.toml`" in sentence:
            unknown |= {name for name in BACKTICKED_NAME.findall(sentence) if name not in KEYS and name not in SECTIONS}
    return sorted(unknown)


def missing_files(text: str, here: Path) -> list[str]:
    """Repository paths a text cites (`path/file.ext` in backticks, or a relative link) that do not exist."""
    missing = []
    for quoted, linked in CITED_PATH.findall(text):
        cited = quoted or linked
        if cited.startswith(("http", "~", "/", ".venv", ".kit_data")) or "://" in cited or "#" in cited:
            continue
        if "/" not in cited and not linked:  # a bare name (`show()`, `kit.toml`) may be any file: only paths count
            continue
        if not (here / cited).exists() and not any(path == cited or path.endswith("/" + cited) for path in FILES):
            missing.append(cited)
    return sorted(set(missing))


def default_size() -> str:
    """The configured reader's size as the prose writes it ("1.5B")."""
    match = re.search(r"(\d+(?:\.\d+)?)b", Settings().llm.llm_model)
    return f"{match.group(1)}B" if match else ""


def wrong_model_sizes(text: str) -> list[str]:
    """Model sizes named as the one in use ("this 0.5B model") that are not the configured default."""
    return sorted({size for size in MODEL_SIZE.findall(text) if size != default_size()})


def measured_lines(text: str) -> list[str]:
    """Lines of notebook Markdown stating a measured figure (the cell's output should state it)."""
    return [line.strip() for line in text.splitlines() if measured_figures(line)]


# --- each rule can fail -----------------------------------------------------------------------------------------


def test_the_rules_catch_planted_mistakes(tmp_path: Path) -> None:
    known = {"KIT_PROFILE", "OPENAI_BASE_URL"}
    assert unknown_variables("set `KIT_OPENAI_BASE_URL` and `KIT_PROFILE`", known) == ["KIT_OPENAI_BASE_URL"]
    assert missing_files("see `docs/NOT_THERE.md` and [the guide](docs/instructors.md)", tmp_path) == [
        "docs/NOT_THERE.md"
    ]
    assert unknown_settings(
        "Set `hybrid_pools = 40` in `kit.toml`. Then `settings.top_kk` and `settings.retrieval.top_k`."
    ) == [
        "hybrid_pools",
        "top_kk",
    ]
    assert wrong_model_sizes("Answers take ~13 s with this 0.5B model.") == ["0.5B"] or default_size() == "0.5B"
    assert measured_lines("Dense recall@5 rose from 0.452 to 0.615.\nA plain sentence.") == [
        "Dense recall@5 rose from 0.452 to 0.615."
    ]


def test_the_environment_sets_only_what_a_deployment_sets() -> None:
    assert "KIT_PROFILE" in known_environment() and "QDRANT_URL" in known_environment()
    assert "KIT_TOP_K" not in known_environment()  # a stage's choice is set in kit.toml
    assert "KIT_OPENAI_BASE_URL" not in known_environment()


# --- the kit's own prose ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(prose_sources()))
def test_every_environment_variable_named_is_one_the_kit_reads(name: str) -> None:
    assert unknown_variables(prose_sources()[name], known_environment()) == []


@pytest.mark.parametrize("name", sorted(prose_sources()))
def test_every_setting_named_is_one_the_kit_has(name: str) -> None:
    assert unknown_settings(prose_sources()[name]) == []


@pytest.mark.parametrize("name", sorted(prose_sources()))
def test_every_cited_file_exists(name: str) -> None:
    here = ROOT / "notebooks" if name.endswith(".ipynb") else (ROOT / name).parent
    assert missing_files(prose_sources()[name], here) == []


@pytest.mark.parametrize("name", sorted(prose_sources()))
def test_the_model_named_as_in_use_is_the_configured_one(name: str) -> None:
    assert wrong_model_sizes(prose_sources()[name]) == []


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.name)
def test_notebook_markdown_states_no_measured_figure(notebook: Path) -> None:
    assert measured_lines(markdown_of(notebook)) == []
