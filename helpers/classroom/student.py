"""The student version: every solution block replaced by a stub, every output cleared, nothing else touched.

Code between `### BEGIN SOLUTION` and `### END SOLUTION` becomes `STUB`, Markdown between the same words in HTML
comments `MARKDOWN_STUB`; hidden tests are removed, as nbgrader removes them.
What it leaves out: grading (nbgrader's), and any check of the exercises whose answer is prose.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

from helpers.config import REPO_ROOT

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
MARKDOWN_BEGIN, MARKDOWN_END = "<!-- BEGIN SOLUTION -->", "<!-- END SOLUTION -->"
BEGIN_HIDDEN, END_HIDDEN = "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"
STUB = "# YOUR CODE HERE\nraise NotImplementedError"
TOP_LEVEL_STUB = re.compile(r"^raise NotImplementedError", re.MULTILINE)  # a stub that runs when its cell does
MARKDOWN_STUB = "*Your answer here.*"
NOTEBOOKS_DIR = REPO_ROOT / "notebooks"


class ClassroomError(ValueError):
    """A notebook whose solution markers do not pair up; the message names the notebook and the cell."""


def _indented(stub: str, source: str, start: int) -> str:
    """The stub, its later lines indented like the marker at `start` (a solution inside a function body)."""
    indent = source[source.rfind("\n", 0, start) + 1 : start]
    return stub.replace("\n", "\n" + indent) if not indent.strip() else stub


HIDDEN_BLOCK = re.compile(rf"^[ \t]*{re.escape(BEGIN_HIDDEN)}.*?{re.escape(END_HIDDEN)}[^\n]*\n?", re.S | re.M)


def student_source(source: str, cell_type: str) -> str:
    """A cell's source with each solution block replaced by the stub of its cell type, and no hidden tests."""
    begin, end, stub = (BEGIN, END, STUB) if cell_type == "code" else (MARKDOWN_BEGIN, MARKDOWN_END, MARKDOWN_STUB)
    if source.count(begin) != source.count(end):
        raise ClassroomError(f"{source.count(begin)} begin and {source.count(end)} end solution markers")
    if cell_type == "code":
        begins, ends = source.count(BEGIN_HIDDEN), source.count(END_HIDDEN)
        if begins != ends:
            raise ClassroomError(f"{begins} begin and {ends} end hidden tests markers")
        source = HIDDEN_BLOCK.sub("", source)
    block = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)  # markers included
    return block.sub(lambda match: _indented(stub, source, match.start()), source)


def student_notebook(notebook: nbformat.NotebookNode, name: str = "notebook") -> nbformat.NotebookNode:
    """A copy of the notebook with its solutions stubbed and every output cleared."""
    copy = nbformat.from_dict(notebook)
    for number, cell in enumerate(copy.cells):
        try:
            cell.source = student_source(cell.source, cell.cell_type)
        except ClassroomError as err:
            raise ClassroomError(f"{name}, cell {number}: {err}") from None
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return copy


def run_all_stop(notebook: nbformat.NotebookNode) -> int | None:
    """The cell where Run All stops in the student copy (None: it runs to the end): the first code cell whose stub
    runs at the top level (a stub inside a function stops nothing: its check only prints "not yet")."""
    for number, cell in enumerate(notebook.cells):
        if cell.cell_type == "code" and TOP_LEVEL_STUB.search(student_source(cell.source, "code")):
            return number
    return None


def write_student_version(out: str | Path, notebooks: str | Path = NOTEBOOKS_DIR) -> list[Path]:
    """Write the student version of every notebook of `notebooks` into `out`; returns the files written."""
    out, source = Path(out), Path(notebooks)
    if out.resolve() == source.resolve():
        raise ClassroomError(f"{out} is the instructor folder itself: choose another folder for the student version")
    paths = sorted(source.glob("*.ipynb"))
    if not paths:
        raise ClassroomError(f"no notebooks (*.ipynb) in {source}")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for path in paths:
        notebook = student_notebook(nbformat.read(path, as_version=4), path.name)
        nbformat.write(notebook, out / path.name)
        written.append(out / path.name)
    return written
