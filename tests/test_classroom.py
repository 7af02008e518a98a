"""The student version: no solution or hidden test survives, every other cell is untouched, markers that do not pair
are named."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import nbformat
import pytest

from helpers.__main__ import main
from helpers.classroom import BEGIN, MARKDOWN_STUB, STUB, ClassroomError, student_source, write_student_version
from helpers.classroom.student import BEGIN_HIDDEN, HIDDEN_BLOCK, MARKDOWN_BEGIN, NOTEBOOKS_DIR

SOLUTION = re.compile(re.escape(BEGIN) + r"(.*?)### END SOLUTION", re.S)


def _solution_lines(source: str) -> set[str]:
    """The distinctive lines inside a cell's solution blocks (long enough not to occur by chance elsewhere)."""
    return {line.strip() for block in SOLUTION.findall(source) for line in block.splitlines() if len(line.strip()) > 25}


def test_the_student_version_keeps_no_solution_and_every_other_cell(tmp_path: Path) -> None:
    written = write_student_version(tmp_path / "student")
    assert [p.name for p in written] == sorted(p.name for p in NOTEBOOKS_DIR.glob("*.ipynb"))
    stubs = 0
    for path in written:
        teacher = nbformat.read(NOTEBOOKS_DIR / path.name, as_version=4)
        student = nbformat.read(path, as_version=4)
        assert len(student.cells) == len(teacher.cells)
        for theirs, ours in zip(teacher.cells, student.cells, strict=True):
            if BEGIN in theirs.source:
                assert BEGIN not in ours.source
                assert all(line in ours.source for line in STUB.splitlines())  # indented inside a function body
                assert not _solution_lines(theirs.source) & {line.strip() for line in ours.source.splitlines()}
                if ours.cell_type == "code":
                    ast.parse(ours.source)  # the stubbed cell is still Python
                stubs += 1
            elif MARKDOWN_BEGIN in theirs.source:  # a prose answer or an instructor's rubric
                assert MARKDOWN_BEGIN not in ours.source and MARKDOWN_STUB in ours.source
            elif BEGIN_HIDDEN in theirs.source:  # hidden tests: gone, the rest of the cell kept
                assert BEGIN_HIDDEN not in ours.source and ours.source == HIDDEN_BLOCK.sub("", theirs.source)
            else:  # byte-identical source, type and metadata
                fields = ("source", "cell_type", "metadata")
                assert [ours[f] for f in fields] == [theirs[f] for f in fields], f"{path.name}: a cell changed"
            if ours.cell_type == "code":
                assert ours.outputs == [] and ours.execution_count is None
    assert stubs >= len(written) - 1  # every notebook ends with exercises (most have one solution cell or more)


def test_code_outside_the_markers_stays_and_markdown_answers_are_stubbed() -> None:
    code = "setup = 1\n### BEGIN SOLUTION\nanswer = 42\n### END SOLUTION\nprint(answer)"
    assert student_source(code, "code") == f"setup = 1\n{STUB}\nprint(answer)"
    body = 'def f(x: int) -> int:\n    """Doc."""\n    ### BEGIN SOLUTION\n    return x\n    ### END SOLUTION\n\n\nf(1)'
    stubbed = student_source(body, "code")  # a solution inside a function body: the stub keeps its indentation
    solution = "### BEGIN SOLUTION\n    return x\n    ### END SOLUTION"
    assert stubbed == body.replace(solution, "# YOUR CODE HERE\n    raise NotImplementedError")
    ast.parse(stubbed)
    text = "Why?\n<!-- BEGIN SOLUTION -->\nBecause.\n<!-- END SOLUTION -->"
    assert student_source(text, "markdown") == f"Why?\n{MARKDOWN_STUB}"
    with pytest.raises(ClassroomError):
        student_source("### BEGIN SOLUTION\nanswer = 42", "code")


def test_the_command_refuses_to_overwrite_the_instructor_notebooks(tmp_path: Path, capsys) -> None:
    assert main(["student-version", str(NOTEBOOKS_DIR)]) == 2
    assert "instructor folder" in capsys.readouterr().err
    assert main(["student-version", str(tmp_path / "out")]) == 0
    assert "student notebooks written" in capsys.readouterr().out
