"""Run All on the student copy: it runs past a function not written yet and stops where the instructors page says."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from helpers.classroom.student import NOTEBOOKS_DIR, run_all_stop, student_notebook
from helpers.config import REPO_ROOT
from helpers.exercises.base import STRICT_ENV

NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("[0-9][0-9]_*.ipynb"))


def documented_stops() -> dict[str, tuple[int, str]]:
    """The instructors page's table: notebook number → (cell, "exercise N")."""
    text = (REPO_ROOT / "docs" / "instructors.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d\d) \| (\d+) \| (exercise \d+) \|$", text, re.MULTILINE)
    return {number: (int(cell), exercise) for number, cell, exercise in rows}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.name[:2])
def test_the_instructors_page_says_where_run_all_stops(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    stop = run_all_stop(notebook)
    assert stop is not None, f"{path.name} runs to the end in the student copy: take its row out of the table"
    exercise = re.search(r"[Ee]xercise (\d+)", notebook.cells[stop].source)
    expected = (stop, f"exercise {exercise.group(1)}" if exercise else "?")
    assert documented_stops().get(path.name[:2]) == expected, (
        f"docs/instructors.md: write | {path.name[:2]} | {expected[0]} | {expected[1]} |"
    )


def test_the_student_copy_of_02_runs_past_the_unwritten_splitter_and_stops_at_exercise_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Executed for real: the splitter's stub falls back to the kit's (one line says so), the answer cell stops it."""
    monkeypatch.delenv(STRICT_ENV, raising=False)  # a student's kernel: a check says "not yet" and goes on
    path = NOTEBOOKS_DIR / "02_chunking.ipynb"
    notebook = student_notebook(nbformat.read(path, as_version=4), path.name)
    where = {"metadata": {"path": str(tmp_path)}}  # the kernel's folder: no my_rag.py there, as on a new machine
    client = NotebookClient(notebook, timeout=600, kernel_name="python3", resources=where)
    with pytest.raises(CellExecutionError, match="NotImplementedError"):
        client.execute()
    failed = [n for n, cell in enumerate(notebook.cells) if cell.cell_type == "code" and any(
        output.get("output_type") == "error" for output in cell.get("outputs", []))]  # fmt: skip
    assert failed == [run_all_stop(nbformat.read(path, as_version=4))]
    printed = "".join(
        output.get("text", "") for cell in notebook.cells[: failed[0]] for output in cell.get("outputs", [])
    )
    assert "your recursive_split is not written yet; the kit's runs" in printed and "Not yet" in printed
