"""Shared pieces of the reliability suite: isolated settings, file writers, a small corpus, the results table.

Every test writes only under its own `tmp_path` (its own Qdrant folder and caches), never the course index.
The `record` fixture keeps one row per case (what happened, points before/after); with
`KIT_RELIABILITY_TABLE=<file>` the session writes those rows as the Markdown table of README.md.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import helpers  # noqa: F401  (sets the offline environment first)
from helpers.config import Settings, get_settings

ROWS: list[tuple[str, str, str, str]] = []  # (case, what happened, points before, points after)
Record = Callable[..., None]


@pytest.fixture
def rel_settings(tmp_path: Path) -> Settings:
    """The process settings with data and caches in tmp_path, the embedded store and the tiny local LLM."""
    return get_settings().replace(
        data_dir=tmp_path / "data",
        cache_dir=tmp_path / "cache",
        corpus_dir=tmp_path / "docs",
        llm_model="smollm2-135m",
        llm_backend="local",
        llm_gguf="",
        qdrant_url="",
    )


def write(path: Path, data: str | bytes) -> Path:
    """Write text (UTF-8) or bytes, creating the folders."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        path.write_bytes(data)
    return path


TOPICS = ["fees", "capstone", "library", "housing", "advising", "exams", "parking", "labs", "visas", "clubs"]


def make_corpus(folder: Path, files: int = 6, paragraphs: int = 6) -> Path:
    """`files` Markdown documents of `paragraphs` distinct paragraphs each (about one chunk per two paragraphs)."""
    for f in range(files):
        topic = TOPICS[f % len(TOPICS)]
        body = "\n\n".join(
            f"## {topic.title()} rule {p}\n\nRule {p} of the {topic} policy, file {f}: students must follow step {p} "
            f"before week {p + f}, and the office of {topic} answers questions about case {p * 7 + f} within "
            f"{p + 2} days. Late requests for {topic} go to the program director with form {topic[:3].upper()}-{p}."
            for p in range(paragraphs)
        )
        write(folder / f"{f:02d}_{topic}.md", f"---\ntitle: {topic.title()} {f}\n---\n# {topic.title()}\n\n{body}\n")
    return folder


def child_env(settings: Settings, **extra: str) -> dict[str, str]:
    """The environment of a child process that must load the same settings from KIT_* variables."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KIT_", "QDRANT_", "OPENAI_"))}
    env.update(
        KIT_DATA_DIR=str(settings.data_dir),
        KIT_CACHE_DIR=str(settings.cache_dir),
        KIT_CONFIG=str(settings.data_dir / "no-kit.toml"),
        KIT_LLM_MODEL="smollm2-135m",
        KIT_PROFILE=settings.profile,
        **extra,
    )
    return env


@pytest.fixture
def record(request: pytest.FixtureRequest) -> Record:
    """record(case, what_happened, before="", after=""): one row of the results table."""

    def add(case: str, happened: str, before: object = "", after: object = "") -> None:
        ROWS.append((case, happened, str(before), str(after)))

    return add


@pytest.fixture(scope="session", autouse=True)
def results_table() -> Iterator[None]:
    """At the end of the session, write the rows as a Markdown table when KIT_RELIABILITY_TABLE names a file."""
    yield
    target = os.environ.get("KIT_RELIABILITY_TABLE")
    if target and ROWS:
        lines = ["| case | what happened | points before | points after |", "| --- | --- | --- | --- |"]
        lines += [f"| {' | '.join(cell.replace('|', '/') or '—' for cell in row)} |" for row in ROWS]
        Path(target).write_text("\n".join(lines) + "\n", encoding="utf-8")
