"""Notebooks are committed clean: no outputs, no install or path hacks, the agreed opening cells."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from helpers.config import REPO_ROOT

NOTEBOOKS = sorted((REPO_ROOT / "notebooks").glob("*.ipynb"))
FORBIDDEN = re.compile(r"^\s*[%!]\s*pip\b|sys\.path", re.MULTILINE)


def test_there_are_notebooks() -> None:
    assert NOTEBOOKS, "no notebooks found"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_clean(path: Path) -> None:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    code = [c for c in cells if c["cell_type"] == "code"]
    assert cells[0]["cell_type"] == "markdown", "the first cell must be Markdown saying what the student learns"
    assert all(not c.get("outputs") and c.get("execution_count") is None for c in code), "strip the outputs"
    for cell in code:
        assert not FORBIDDEN.search("".join(cell["source"])), "no %pip, !pip or sys.path hacks in notebooks"
    first = "".join(code[0]["source"])
    assert "import" in first and "show(" in first, "the first code cell imports and prints the configuration"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_ends_with_exercises_and_marked_solutions(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert "## Exercises" in text
    assert text.count("### BEGIN SOLUTION") == text.count("### END SOLUTION") >= 1
