"""Notebooks are committed clean: no outputs, no install or path hacks, the agreed opening cells.

The appendix notebooks (`notebooks/appendix/`) are readers, not lessons: clean like the rest, no exercises, no model
asked, and no assignment (the classroom tools read `notebooks/*.ipynb` only).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bench.notebooks import lesson_notebooks
from helpers.classroom.grading import choose_notebooks
from helpers.classroom.student import write_student_version
from helpers.config import REPO_ROOT

NOTEBOOKS = sorted((REPO_ROOT / "notebooks").glob("*.ipynb"))  # the lessons
APPENDICES = sorted((REPO_ROOT / "notebooks" / "appendix").glob("*.ipynb"))  # readers, outside the class path
LIVE_MODEL = re.compile(r"\b(?:make_llm|generate_answer|load_mine|use)\(|\.ask\(|\bcheck_\w+\(")
FORBIDDEN = re.compile(r"^\s*[%!]\s*pip\b|sys\.path", re.MULTILINE)


def test_there_are_notebooks() -> None:
    assert NOTEBOOKS, "no notebooks found"
    assert APPENDICES, "no appendix notebooks found"


LESSON_CELLS = 60  # a lesson fits a lab slot: one point per section, the record of a default in an appendix


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_a_lesson_stays_short(path: Path) -> None:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    assert len(cells) <= LESSON_CELLS, f"{path.name}: {len(cells)} cells; move a record to notebooks/appendix/"


@pytest.mark.parametrize("path", NOTEBOOKS + APPENDICES, ids=lambda p: p.name)
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


@pytest.mark.parametrize("path", APPENDICES, ids=lambda p: p.name)
def test_an_appendix_is_a_reader_not_a_lesson(path: Path) -> None:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    text = path.read_text(encoding="utf-8")
    assert "## Exercises" not in text and "BEGIN SOLUTION" not in text, "an appendix has no exercises"
    code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    assert not LIVE_MODEL.findall(code), "an appendix asks no model and writes no slot or check"
    assert "outside the class path" in "".join(cells[0]["source"]), "its first cell says why it is not a lesson"


def test_no_appendix_becomes_an_assignment() -> None:
    assert [p.name for p in choose_notebooks(None)] == [p.name for p in NOTEBOOKS]
    assert not LIVE_MODEL.findall("rates = guard_rates()\nsweep_results('answers', RESULTS)")
    assert LIVE_MODEL.findall("answer = pipeline.ask(question)") == [".ask("]


def test_the_appendix_is_outside_the_class_path(tmp_path: Path) -> None:
    """No student copy is made of an appendix, and the lessons' timing budget (bench.notebooks) does not count it."""
    names = {path.name for path in APPENDICES}
    assert not names & {path.name for path in write_student_version(tmp_path / "student")}
    assert not names & {path.name for path in lesson_notebooks()}
    assert {path.name for path in lesson_notebooks()} == {path.name for path in NOTEBOOKS if path.name[:2].isdigit()}
