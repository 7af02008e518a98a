"""The rendered course without a browser: the course map lists every notebook (the appendix apart), and a notebook
that stopped, was not executed or whose executed copy is broken keeps a page that says so."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from bench.notebooks import RUN_METADATA as BENCH_RUN_METADATA
from bench.notebooks import keep_executed
from helpers.__main__ import main
from helpers.classroom.site import (
    NOTEBOOKS_DIR,
    README,
    RUN_METADATA,
    SiteError,
    build_site,
    course_lessons,
    what_you_build,
)

README_TABLE = """# Kit

## The course: what you build

| notebook | stage | ✍ you write (slot) |
| --- | --- | --- |
| `00_tour` | the loop, **once** | the loop, `rag(question)` |
| `01_parse` | parsing HTML | |

## Layout
| `02_other` | not in the map | |
"""


def lesson_notebook(title: str, cells: int = 2) -> nbformat.NotebookNode:
    """A small notebook: a title cell and `cells` code cells printing their number."""
    notebook = nbformat.v4.new_notebook()
    notebook.cells.append(nbformat.v4.new_markdown_cell(f"# {title}\n\nWhat you will learn."))
    notebook.cells += [nbformat.v4.new_code_cell(f"print({index})") for index in range(cells)]
    return notebook


@pytest.fixture
def course(tmp_path: Path) -> Path:
    """notebooks/ with 00 and 01 on the class path and one appendix notebook, and a README with the table."""
    folder = tmp_path / "notebooks"
    (folder / "appendix").mkdir(parents=True)
    nbformat.write(lesson_notebook("00 · Tour: the whole loop"), folder / "00_tour.ipynb")
    nbformat.write(lesson_notebook("01 · Parsing: files to text"), folder / "01_parse.ipynb")
    nbformat.write(lesson_notebook("A · Fusion on both corpora: the long sweep"), folder / "appendix" / "fusion.ipynb")
    (folder / "conftest.py").write_text("")  # not a notebook
    (tmp_path / "README.md").write_text(README_TABLE, encoding="utf-8")
    return folder


def executed_copy(source: Path, folder: Path, status: str = "ok", error_at: int | None = None) -> Path:
    """What bench.notebooks --keep-outputs writes: outputs, and the run's facts in the metadata."""
    notebook = nbformat.read(source, as_version=4)
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        if error_at is not None and index > error_at:
            break
        if index == error_at:
            cell.outputs = [nbformat.v4.new_output("error", ename="ValueError", evalue="boom", traceback=["boom"])]
        else:
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=f"printed by cell {index}\n")]
    run = {"status": status, "seconds": 12.5, "profile": "full", "reader": "the default", "commit": "abc1234def",
           "date": "2026-01-01T00:00:00+00:00"}  # fmt: skip
    return keep_executed(notebook, folder, source.name, run)


def test_the_readme_table_gives_each_notebook_its_line() -> None:
    lines = what_you_build(README_TABLE)
    assert set(lines) == {"00_tour", "01_parse"}
    assert lines["00_tour"] == "the loop, <strong>once</strong> — ✍ you write the loop, <code>rag(question)</code>"
    assert lines["01_parse"] == "parsing HTML"


def test_every_notebook_of_the_kit_has_a_title_and_a_line_in_the_map() -> None:
    lessons = course_lessons(NOTEBOOKS_DIR, README)
    path = [lesson for lesson in lessons if not lesson.appendix]
    assert [lesson.source.name for lesson in path] == sorted(p.name for p in NOTEBOOKS_DIR.glob("[0-9][0-9]_*.ipynb"))
    assert len(path) >= 13
    table = what_you_build(README.read_text(encoding="utf-8"))
    for lesson in path:
        assert lesson.title.startswith(lesson.source.name[:2] + " · "), lesson.title
        assert lesson.source.stem in table, f"{lesson.source.stem} has no row in the README's course table"
        assert lesson.what == table[lesson.source.stem]


def test_the_map_lists_every_notebook_and_marks_the_appendix(course: Path, tmp_path: Path) -> None:
    executed = tmp_path / "executed"
    executed_copy(course / "00_tour.ipynb", executed)
    pages = build_site(executed, tmp_path / "site", course, tmp_path / "README.md")
    assert [(page.lesson.page, page.state) for page in pages] == [
        ("00_tour.html", "ran through"),
        ("01_parse.html", "not executed"),
        ("appendix/fusion.html", "not executed"),
    ]
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    class_path, appendix = index.split("Appendix: outside the class path")
    assert re.findall(r'href="([^"]+)"', class_path) == ["00_tour.html", "01_parse.html"]
    assert re.findall(r'href="([^"]+)"', appendix) == ["appendix/fusion.html"]
    assert "the loop, <strong>once</strong>" in class_path and "Fusion on both corpora: the long sweep" in appendix
    for page in pages:
        assert (tmp_path / "site" / page.lesson.page).exists()
    ran = (tmp_path / "site" / "00_tour.html").read_text(encoding="utf-8")
    assert "printed by cell 1" in ran and "executed in the full profile" in ran and "commit abc1234def" in ran
    appendix_page = (tmp_path / "site" / "appendix" / "fusion.html").read_text(encoding="utf-8")
    assert 'href="../index.html"' in appendix_page and "outside the class path" in appendix_page
    assert "Not executed in this build" in appendix_page


def test_without_an_appendix_the_map_has_no_appendix_section(course: Path, tmp_path: Path) -> None:
    (course / "appendix" / "fusion.ipynb").unlink()
    (tmp_path / "executed").mkdir()
    build_site(tmp_path / "executed", tmp_path / "site", course, tmp_path / "README.md")
    assert "Appendix" not in (tmp_path / "site" / "index.html").read_text(encoding="utf-8")


def test_a_notebook_that_stopped_keeps_its_page_and_says_where(course: Path, tmp_path: Path) -> None:
    executed = tmp_path / "executed"
    executed_copy(course / "00_tour.ipynb", executed, status="cell error: ValueError: boom", error_at=1)
    pages = build_site(executed, tmp_path / "site", course, tmp_path / "README.md")
    assert pages[0].state == "stopped"
    page = (tmp_path / "site" / "00_tour.html").read_text(encoding="utf-8")
    assert "This notebook stopped at cell 1 (cell error: ValueError: boom)" in page
    assert "kit-banner" in page and "ValueError" in page
    stopped_id = nbformat.read(executed / "00_tour.ipynb", as_version=4).cells[1].id
    assert f'<a href="#cell-id={stopped_id}">' in page and f'id="cell-id={stopped_id}"' in page
    assert "stopped, 12.5 s" in (tmp_path / "site" / "index.html").read_text(encoding="utf-8")


def test_a_broken_executed_copy_gets_a_clear_message_and_the_cells(course: Path, tmp_path: Path) -> None:
    executed = tmp_path / "executed"
    executed.mkdir()
    (executed / "00_tour.ipynb").write_text("{not json", encoding="utf-8")
    pages = build_site(executed, tmp_path / "site", course, tmp_path / "README.md")
    assert pages[0].state == "unreadable"
    page = (tmp_path / "site" / "00_tour.html").read_text(encoding="utf-8")
    assert f"The executed copy {executed / '00_tour.ipynb'} could not be read" in page
    assert page.count('class="jp-Cell jp-CodeCell') == 2 and 'class="jp-OutputArea-child' not in page  # no outputs


def test_a_broken_notebook_keeps_its_line_and_a_page_that_says_so(course: Path, tmp_path: Path) -> None:
    (course / "01_parse.ipynb").write_text("{not json", encoding="utf-8")
    (tmp_path / "executed").mkdir()
    pages = build_site(tmp_path / "executed", tmp_path / "site", course, tmp_path / "README.md")
    assert [page.state for page in pages[:2]] == ["not executed", "unreadable"]
    assert (
        f"The notebook {course / '01_parse.ipynb'} could not be read"
        in (tmp_path / "site" / "01_parse.html").read_text()
    )
    assert 'href="01_parse.html"' in (tmp_path / "site" / "index.html").read_text(encoding="utf-8")


def test_a_notebook_changed_since_its_run_says_so(course: Path, tmp_path: Path) -> None:
    executed = tmp_path / "executed"
    executed_copy(course / "01_parse.ipynb", executed)
    changed = nbformat.read(course / "01_parse.ipynb", as_version=4)
    changed.cells[1].source = "print('new')"
    nbformat.write(changed, course / "01_parse.ipynb")
    pages = build_site(executed, tmp_path / "site", course, tmp_path / "README.md")
    assert pages[1].state == "changed since its run"
    assert "has changed since this run" in (tmp_path / "site" / "01_parse.html").read_text(encoding="utf-8")


def test_the_executed_copy_carries_the_run_under_the_key_the_site_reads(tmp_path: Path) -> None:
    assert BENCH_RUN_METADATA == RUN_METADATA
    written = keep_executed(lesson_notebook("00 · T"), tmp_path / "out", "00_t.ipynb", {"status": "ok"})
    assert nbformat.read(written, as_version=4).metadata[RUN_METADATA] == {"status": "ok"}


def test_the_command_says_what_to_do_without_executed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nothing"
    with pytest.raises(SiteError, match=r"bash scripts/render\.sh"):
        build_site(missing, tmp_path / "site")
    assert main(["course-site", "--executed", str(missing), "--out", str(tmp_path / "site")]) == 2
    assert "no folder of executed notebooks" in capsys.readouterr().err
    assert not (tmp_path / "site").exists()
