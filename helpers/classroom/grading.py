"""The notebooks as an nbgrader course: each cell marked for nbgrader from the kit's own conventions.

Solution markers make solution cells (a Markdown one is graded by hand), a cell calling a `check_…` or holding
hidden tests is autograded, every other cell is locked.

    >>> write_course("course", ["04", "05"], assignment="week4")   # python -m helpers nbgrader-course course

What it leaves out: nbgrader's own commands (generate_assignment, autograde …), and the instructor notebooks.
"""

from __future__ import annotations

import ast
import json
import shutil
import sys
from pathlib import Path

import nbformat

from helpers.classroom.student import (
    BEGIN,
    BEGIN_HIDDEN,
    END_HIDDEN,
    MARKDOWN_BEGIN,
    MARKDOWN_STUB,
    NOTEBOOKS_DIR,
    STUB,
    ClassroomError,
    student_source,
)

CHECKS_PACKAGE = "helpers.exercises"
CHECK_PREFIX = "check_"
CHECK_POINTS = 1  # per check a test cell asserts
ANSWER_POINTS = 1  # per Markdown answer, graded by hand
COURSE_ID = "rag-teaching-kit"
CELL_TIMEOUT_S = 600  # as scripts/test.sh gives nbval: a notebook cell that measures may take minutes


def _parse(source: str) -> ast.Module | None:
    """The cell as Python (IPython magics turned into calls first), or None when it is not Python."""
    try:
        return ast.parse(source)
    except SyntaxError:
        pass
    from IPython.core.inputtransformer2 import TransformerManager

    try:
        return ast.parse(TransformerManager().transform_cell(source))
    except SyntaxError:
        return None


def _dotted(node: ast.expr) -> str:
    """`a.b.c` for a name or an attribute chain, else ""."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else ""
    return ""


def check_names(notebook: nbformat.NotebookNode) -> set[str]:
    """The `check_…` names a notebook imports from helpers.exercises, and `name.` for each module of it it imports."""
    names = set()
    for cell in notebook.cells:
        tree = _parse(cell.source) if cell.cell_type == "code" else None
        for node in ast.walk(tree) if tree else ():
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(CHECKS_PACKAGE):
                for alias in node.names:
                    bound = alias.asname or alias.name
                    names.add(bound if alias.name.startswith(CHECK_PREFIX) else f"{bound}.")
            elif isinstance(node, ast.Import):
                names |= {f"{a.asname}." for a in node.names if a.asname and a.name.startswith(CHECKS_PACKAGE)}
    return names


def _is_check(node: ast.AST, names: set[str]) -> bool:
    """Whether `node` calls a self-check: a name in `names`, or a `check_…` of a module of helpers.exercises."""
    if not isinstance(node, ast.Call):
        return False
    dotted = _dotted(node.func)
    module, _, function = dotted.rpartition(".")
    in_checks_module = f"{module}." in names or module.startswith(CHECKS_PACKAGE)
    return dotted in names or (function.startswith(CHECK_PREFIX) and in_checks_module)


def check_statements(source: str, names: set[str]) -> list[str]:
    """The self-check calls of a cell, each a statement of its own, as written; a check called otherwise is an error."""
    tree = _parse(source)
    if tree is None or not any(_is_check(node, names) for node in ast.walk(tree)):
        return []
    statements = []
    for statement in tree.body:
        if isinstance(statement, ast.Expr) and _is_check(statement.value, names):
            statements.append(ast.get_source_segment(source, statement.value) or "")
        elif any(_is_check(node, names) for node in ast.walk(statement)):
            raise ClassroomError("call each check_… as a statement of its own, so that its hidden test can assert it")
    return statements


def hidden_tests(statements: list[str]) -> str:
    """nbgrader's hidden tests for a test cell: each check asserted (a "not yet" fails the cell)."""
    asserts = [f"assert {call}, {'the check says not yet: ' + call.split('(')[0]!r}" for call in statements]
    return "\n".join([BEGIN_HIDDEN, *asserts, END_HIDDEN])


def _metadata(grade_id: str, solution: bool = False, grade: bool = False, points: int = 0) -> dict:
    """nbgrader's cell metadata (schema 3): a solution, a graded test or answer, or a locked cell."""
    meta = {"grade": grade, "grade_id": grade_id, "locked": not solution, "schema_version": 3,
            "solution": solution, "task": False}  # fmt: skip
    return meta | ({"points": points} if grade else {})


def nbgrader_cell(cell: nbformat.NotebookNode, grade_id: str, names: set[str]) -> nbformat.NotebookNode:
    """A copy of the cell with nbgrader's metadata, and hidden tests when it calls self-checks."""
    copy = nbformat.from_dict(cell)
    student_source(cell.source, cell.cell_type)  # markers that do not pair raise ClassroomError here
    authored = cell.source.count(BEGIN_HIDDEN) if cell.cell_type == "code" else 0  # hidden tests written in the cell
    if cell.cell_type == "markdown" and MARKDOWN_BEGIN in cell.source:
        meta = _metadata(grade_id, solution=True, grade=True, points=ANSWER_POINTS)
    elif cell.cell_type == "code" and BEGIN in cell.source:
        meta = _metadata(grade_id, solution=True)
    elif cell.cell_type == "code" and ((statements := check_statements(cell.source, names)) or authored):
        meta = _metadata(grade_id, grade=True, points=CHECK_POINTS * (len(statements) + authored))
        copy.source = f"{cell.source.rstrip()}\n{hidden_tests(statements)}" if statements else cell.source
    else:
        meta = _metadata(grade_id)
    copy.metadata["nbgrader"] = meta
    if copy.cell_type == "code":
        copy.outputs, copy.execution_count = [], None
    return copy


def nbgrader_notebook(notebook: nbformat.NotebookNode, name: str) -> nbformat.NotebookNode:
    """The source version for nbgrader: every cell marked (grade ids `<name>-<cell number>`), outputs cleared."""
    copy = nbformat.from_dict(notebook)
    names = check_names(notebook)
    cells = []
    for number, cell in enumerate(notebook.cells):
        try:
            cells.append(nbgrader_cell(cell, f"{name}-{number}", names))
        except ClassroomError as err:
            raise ClassroomError(f"{name}, cell {number}: {err}") from None
    copy.cells = cells
    return copy


def choose_notebooks(wanted: list[str] | None, notebooks: str | Path = NOTEBOOKS_DIR) -> list[Path]:
    """The instructor notebooks named by number or name (`05`, `05_retrieval`), all of them when None."""
    paths = sorted(Path(notebooks).glob("*.ipynb"))
    if not paths:
        raise ClassroomError(f"no notebooks (*.ipynb) in {notebooks}")
    if not wanted:
        return paths
    chosen = []
    for name in wanted:
        found = [p for p in paths if name.removesuffix(".ipynb") == p.stem or p.stem.startswith(f"{name}_")]
        if len(found) != 1:
            known = ", ".join(p.stem for p in paths)
            raise ClassroomError(f"no single notebook is called {name!r}; the notebooks are: {known}")
        chosen.append(found[0])
    return chosen


def course_config() -> str:
    """The text of `nbgrader_config.py`: this folder is the course, its notebooks run on the kit's kernel."""
    return f'''"""nbgrader's configuration of this course (written by python -m helpers nbgrader-course)."""

import os
import sys

c = get_config()  # noqa: F821  (nbgrader defines it)
here = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.root = here
c.CourseDirectory.course_id = {json.dumps(COURSE_ID)}
c.Execute.timeout = {CELL_TIMEOUT_S}  # seconds one cell may run
# the stubs of the kit's own student version
c.ClearSolutions.code_stub = {{"python": {json.dumps(STUB)}}}
c.ClearSolutions.text_stub = {json.dumps(MARKDOWN_STUB)}
# the notebooks' kernel "python3" is the kit's Python: its kernelspec in jupyter/ comes first
kernels = [os.path.join(here, "jupyter"), os.environ.get("JUPYTER_PATH")]
os.environ["JUPYTER_PATH"] = os.pathsep.join(filter(None, kernels))
# nbgrader runs `alembic` (its gradebook's migrations) by name: the one beside this Python, activated or not
os.environ["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])
'''


def write_kernelspec(folder: Path, python: str = sys.executable) -> Path:
    """A Jupyter kernelspec `python3` under `folder`/kernels that starts `python` (the kit's, by default)."""
    spec = folder / "kernels" / "python3"
    spec.mkdir(parents=True, exist_ok=True)
    argv = [python, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    kernel = {"argv": argv, "display_name": "Python 3 (RAG teaching kit)", "language": "python"}
    (spec / "kernel.json").write_text(json.dumps(kernel, indent=1) + "\n", encoding="utf-8")
    return spec


def write_course(
    root: str | Path, wanted: list[str] | None = None, assignment: str | None = None,
    notebooks: str | Path = NOTEBOOKS_DIR,
) -> list[Path]:  # fmt: skip
    """Write an nbgrader course: `source/<assignment>/<notebook>.ipynb`, the config and the kernel; the notebooks."""
    root = Path(root)
    if root.resolve() == Path(notebooks).resolve():
        raise ClassroomError(f"{root} is the instructor folder itself: choose another folder for the course")
    paths = choose_notebooks(wanted, notebooks)
    # every notebook is marked before one is written: a notebook in error leaves no half-written course
    marked = [nbgrader_notebook(nbformat.read(path, as_version=4), path.stem) for path in paths]
    written = []
    for path, notebook in zip(paths, marked, strict=True):
        folder = root / "source" / (assignment or path.stem)
        folder.mkdir(parents=True, exist_ok=True)
        nbformat.write(notebook, folder / path.name)
        written.append(folder / path.name)
    (root / "nbgrader_config.py").write_text(course_config(), encoding="utf-8")
    shutil.rmtree(root / "jupyter", ignore_errors=True)
    write_kernelspec(root / "jupyter")
    return written
