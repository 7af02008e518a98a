"""Shared fixtures: settings that write only into a temporary folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import helpers  # noqa: F401  (sets the offline environment first)
from helpers.config import Settings, get_settings
from helpers.embedding import Embedder


@pytest.fixture
def tmp_settings(tmp_path: Path) -> Settings:
    """The process settings, but with data in a temporary folder and the tiny test LLM."""
    return get_settings().replace(data_dir=tmp_path / "data", llm_model="smollm2-135m", llm_backend="local")


@pytest.fixture
def tiny_corpus(tmp_path: Path) -> Path:
    """A folder with two small Markdown documents."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "fees.md").write_text(
        "---\ntitle: Fees\nurl: https://example.edu/fees\ndate: 2026-09-01\n---\n# Fees\n\n"
        "The application fee is $90. Full-time tuition is $14,850 per quarter.\n",
        encoding="utf-8",
    )
    (folder / "capstone.md").write_text(
        "---\ntitle: Capstone\n---\n# Capstone Studio\n\nCapstone teams have three to five students.\n",
        encoding="utf-8",
    )
    return folder


@pytest.fixture
def kit_functions(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The kit's own function in every slot before and after a test (`helpers.mechanisms`); self-checks print
    instead of raising, as a student sees them, even when the notebooks' conftest made them strict."""
    from helpers.exercises.base import STRICT_ENV
    from helpers.mechanisms import reset

    monkeypatch.delenv(STRICT_ENV, raising=False)
    reset()
    yield
    reset()


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    """The configured embedder with its cache and the shipped course vectors."""
    return Embedder(get_settings())
