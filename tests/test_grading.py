"""Grading the Jupyter way: the notebooks marked for nbgrader, and nbgrader's own round trip on them.

The marking is checked on every notebook (nbgrader's validator accepts it; solution cells, test cells with hidden
tests and locked cells where the kit's conventions put them). The round trip runs nbgrader's command line in a
temporary course written by `write_course`: generate the assignment, then autograde three submissions — the
instructor version (full marks), the released student version unchanged (zero: every exercise is a stub) and the
release with one exercise's solution pasted back (its check's points, not all) — and reads the autograded scores
from the gradebook. The notebooks run on the kit's Python in the ci profile, with a Qdrant folder of their own.
What it leaves out: the exchange (release, collect), manual grading, feedback, and the other notebooks' execution
(nbval runs them all).
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook
from nbgrader.nbgraderformat import MetadataValidator

from helpers.__main__ import main
from helpers.classroom import BEGIN, ClassroomError, student_source
from helpers.classroom.grading import (
    ANSWER_POINTS,
    BEGIN_HIDDEN,
    COURSE_ID,
    check_names,
    check_statements,
    hidden_tests,
    nbgrader_notebook,
    write_course,
)
from helpers.classroom.student import MARKDOWN_BEGIN, NOTEBOOKS_DIR

GRADED = "04_vector_store"  # the fastest notebook with two self-checked exercises (the test needs two)
ASSIGNMENT = "lab"
STUDENTS = ("instructor", "release", "partial")
Notebook = nbformat.NotebookNode


def graded_points(notebook: nbformat.NotebookNode) -> int:
    """The points a marked notebook's autograded test cells are worth."""
    metas = [cell.metadata.get("nbgrader", {}) for cell in notebook.cells]
    return sum(meta.get("points", 0) for meta in metas if meta.get("grade") and not meta.get("solution"))


def _marks(notebook: Notebook) -> list[dict]:
    return [cell.metadata["nbgrader"] for cell in notebook.cells]


@pytest.mark.parametrize("path", sorted(NOTEBOOKS_DIR.glob("*.ipynb")), ids=lambda p: p.stem)
def test_every_cell_of_every_notebook_is_marked_from_the_kits_conventions(path: Path) -> None:
    teacher = nbformat.read(path, as_version=4)
    marked = nbgrader_notebook(teacher, path.stem)
    MetadataValidator().validate_nb(marked)  # nbgrader's own check of its metadata
    checks = check_names(teacher)
    for theirs, ours, meta in zip(teacher.cells, marked.cells, _marks(marked), strict=True):
        assert meta["grade_id"].startswith(f"{path.stem}-")
        if BEGIN in theirs.source or MARKDOWN_BEGIN in theirs.source:
            assert meta["solution"] and not meta["locked"] and ours.source == theirs.source
            assert meta["grade"] == (theirs.cell_type == "markdown")  # a written answer is graded by hand
        elif theirs.cell_type == "code" and (check_statements(theirs.source, checks) or BEGIN_HIDDEN in theirs.source):
            assert meta["grade"] and meta["locked"] and meta["points"] >= 1
            assert ours.source.startswith(theirs.source.rstrip()) and BEGIN_HIDDEN in ours.source
            ast.parse(ours.source)
        else:
            assert meta["locked"] and not meta["grade"] and not meta["solution"] and ours.source == theirs.source
    if any("from helpers.exercises" in cell.source for cell in teacher.cells):
        assert graded_points(marked) >= 1, f"{path.name} checks an exercise but no cell is worth points"


def test_a_check_is_found_however_it_is_imported_and_a_lookalike_is_not() -> None:
    cells = [
        "from helpers.exercises.store import check_a as ca\nimport helpers.exercises.store as ex",
        "from helpers.exercises import store\nfrom helpers.generation import check_input",
    ]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in cells])
    names = check_names(notebook)
    source = "ca(1)\nex.check_b(2)\nstore.check_c(3)\nhelpers.exercises.store.check_d(4)\ncheck_input('q')\nx = 5"
    assert check_statements(source, names) == ["ca(1)", "ex.check_b(2)", "store.check_c(3)",
                                               "helpers.exercises.store.check_d(4)"]  # fmt: skip
    assert check_statements("%time x = 1\ncheck_input('q')", names) == []
    with pytest.raises(ClassroomError, match="statement of its own"):
        check_statements("for x in range(3):\n    ca(x)", names)


def test_a_markdown_answer_is_graded_by_hand() -> None:
    answer = nbformat.v4.new_markdown_cell("Why?\n<!-- BEGIN SOLUTION -->\nBecause.\n<!-- END SOLUTION -->")
    marked = nbgrader_notebook(nbformat.v4.new_notebook(cells=[answer]), "nb")
    MetadataValidator().validate_nb(marked)
    meta = _marks(marked)[0]
    assert meta["solution"] and meta["grade"] and not meta["locked"] and meta["points"] == ANSWER_POINTS


def test_a_cell_with_hidden_tests_of_its_own_is_graded_and_the_student_copy_has_none() -> None:
    source = "# hidden tests run here\n### BEGIN HIDDEN TESTS\nassert answer == 42\n### END HIDDEN TESTS"
    marked = nbgrader_notebook(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)]), "nb")
    MetadataValidator().validate_nb(marked)
    meta = _marks(marked)[0]
    assert meta["grade"] and meta["locked"] and meta["points"] == 1 and marked.cells[0].source == source
    assert student_source(source, "code") == "# hidden tests run here\n"
    with pytest.raises(ClassroomError, match="hidden"):
        nbgrader_notebook(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source[:-20])]), "nb")


def test_a_hidden_test_fails_the_cell_on_a_not_yet_though_the_check_only_prints_it() -> None:
    tests = hidden_tests(["check_x(answer)"])
    assert tests.startswith(BEGIN_HIDDEN)
    exec(tests, {"check_x": lambda answer: answer == 42, "answer": 42})
    with pytest.raises(AssertionError, match="check_x"):
        exec(tests, {"check_x": lambda answer: answer == 42, "answer": None})


def test_the_command_writes_a_course_and_names_an_unknown_notebook(tmp_path: Path, capsys) -> None:
    assert main(["nbgrader-course", str(tmp_path / "course"), "--notebooks", "05,07", "--assignment", "week5"]) == 0
    assert sorted(p.name for p in (tmp_path / "course" / "source" / "week5").iterdir()) == [
        "05_retrieval.ipynb", "07_prompting_generation.ipynb"
    ]  # fmt: skip
    compile((tmp_path / "course" / "nbgrader_config.py").read_text(encoding="utf-8"), "nbgrader_config.py", "exec")
    kernel = json.loads((tmp_path / "course" / "jupyter" / "kernels" / "python3" / "kernel.json").read_text())
    assert kernel["argv"][0] == sys.executable  # the notebooks are graded on the kit's Python
    assert main(["nbgrader-course", str(tmp_path / "other"), "--notebooks", "99"]) == 2
    assert "no single notebook" in capsys.readouterr().err


def _nbgrader(course: Path, *args: str) -> None:
    """Run one of nbgrader's commands in the course, on the kit's Python, in the ci profile."""
    env = {key: value for key, value in os.environ.items() if key != "KIT_STRICT_CHECKS"}  # a student's kernel
    env |= {"KIT_PROFILE": "ci", "KIT_LLM_MODEL": os.environ.get("KIT_LLM_MODEL", "qwen2.5-coder-0.5b")}
    env["KIT_DATA_DIR"] = str(course / "kit_data")  # an embedded Qdrant folder no other process opens
    result = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, env=env, capture_output=True,
                            text=True, timeout=900)  # fmt: skip
    assert result.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{result.stderr[-4000:]}"


def _submit(course: Path, student: str, notebook: Notebook, name: str = GRADED, assignment: str = ASSIGNMENT) -> None:
    folder = course / "submitted" / student / assignment
    folder.mkdir(parents=True)
    nbformat.write(notebook, folder / f"{name}.ipynb")


def graded_three_ways(course: Path, name: str, assignment: str) -> tuple[Notebook, dict[str, float], float]:
    """nbgrader's round trip on one notebook: its source, and the code scores of the instructor's solutions, the
    release's stubs and a release with the first checked exercise solved (with the points there are to get)."""
    write_course(course, [name], assignment=assignment)
    _nbgrader(course, "generate_assignment", assignment)  # autograde adds each student to the gradebook itself
    source, release = (nbformat.read(course / kind / assignment / f"{name}.ipynb", as_version=4)
                       for kind in ("source", "release"))  # fmt: skip
    assert all(BEGIN not in cell.source and BEGIN_HIDDEN not in cell.source for cell in release.cells)
    _, solution_id = _first_checked_exercise(source)
    for student, notebook in (("instructor", source), ("release", release),
                              ("partial", _with_solution(release, source, solution_id))):  # fmt: skip
        _submit(course, student, notebook, name, assignment)
    _nbgrader(course, "autograde", assignment)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", COURSE_ID) as gradebook:
        submissions = {student: gradebook.find_submission(assignment, student) for student in STUDENTS}
        scores = {student: submission.code_score for student, submission in submissions.items()}
        return source, scores, submissions["instructor"].max_code_score  # autograded points (prose is read by hand)


def _first_checked_exercise(source: Notebook) -> tuple[str, str]:
    """The grade ids of the first autograded test cell and of the solution cell before it (the one it checks)."""
    marks = _marks(source)
    test = next(n for n, m in enumerate(marks) if m["grade"] and not m["solution"])
    solution = max(n for n, m in enumerate(marks[:test]) if m["solution"] and source.cells[n].cell_type == "code")
    return marks[test]["grade_id"], marks[solution]["grade_id"]


def _with_solution(release: Notebook, source: Notebook, grade_id: str) -> Notebook:
    """The released notebook with the source's cell `grade_id` pasted back: one exercise solved."""
    solution = next(cell.source for cell in source.cells if cell.metadata["nbgrader"]["grade_id"] == grade_id)
    copy = nbformat.from_dict(release)
    for cell in copy.cells:
        if cell.metadata["nbgrader"]["grade_id"] == grade_id:
            cell.source = solution
    return copy


def test_nbgrader_gives_full_marks_to_the_solutions_zero_to_the_stubs_and_part_to_one_solved_exercise(
    tmp_path: Path,
) -> None:
    start = time.perf_counter()
    course = tmp_path / "course"
    source, scores, total = graded_three_ways(course, GRADED, ASSIGNMENT)
    test_id, _ = _first_checked_exercise(source)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", COURSE_ID) as gradebook:
        first = gradebook.find_grade(test_id, GRADED, ASSIGNMENT, "partial")
        first_check = (first.score, first.max_score)
    assert total == graded_points(source) >= 2, "the graded notebook needs two self-checked exercises or more"
    assert scores["instructor"] == total and scores["release"] == 0, scores
    assert 0 < scores["partial"] < total and first_check[0] == first_check[1], (scores, first_check)
    print(f"nbgrader round trip on {GRADED}: {scores} of {total} in {time.perf_counter() - start:.0f} s")
