"""Notebooks are committed clean: no outputs, no install or path hacks, the agreed opening cells."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bench.notebooks import lesson_notebooks
from helpers.classroom.student import write_student_version
from helpers.config import REPO_ROOT

NOTEBOOKS = sorted((REPO_ROOT / "notebooks").glob("*.ipynb"))  # the lessons
APPENDIX = sorted((REPO_ROOT / "notebooks" / "appendix").glob("*.ipynb"))  # readers, outside the class path
FORBIDDEN = re.compile(r"^\s*[%!]\s*pip\b|sys\.path", re.MULTILINE)


def test_there_are_notebooks() -> None:
    assert NOTEBOOKS, "no notebooks found"


@pytest.mark.parametrize("path", [*NOTEBOOKS, *APPENDIX], ids=lambda p: p.name)
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


@pytest.mark.parametrize("path", APPENDIX, ids=lambda p: p.name)
def test_an_appendix_is_a_reader_with_nothing_to_write(path: Path) -> None:
    """A record, not a lesson: no exercises, solutions or checks, and none of the student's functions loaded."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    text = "\n".join("".join(cell["source"]) for cell in cells)
    code = "\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "code")
    assert "## Exercises" not in text and "BEGIN SOLUTION" not in text
    assert not re.search(r"helpers\.(exercises|mechanisms)\b|\bload_mine\(|\buse\(", code)


def test_the_appendix_is_outside_the_class_path(tmp_path: Path) -> None:
    """No assignment is made of an appendix, and the lessons' timing budget (bench.notebooks) does not count it."""
    assert APPENDIX, "no appendix notebook found"
    names = {path.name for path in APPENDIX}
    assert not names & {path.name for path in write_student_version(tmp_path / "student")}
    assert not names & {path.name for path in lesson_notebooks()}
    assert {path.name for path in lesson_notebooks()} == {path.name for path in NOTEBOOKS if path.name[:2].isdigit()}
