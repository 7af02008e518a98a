"""The rendered course: every notebook with its outputs as a static HTML page, and a course map linking them.

Each page says how its notebook ran (stopped, not executed, changed since its run); nothing is written to notebooks/.

    >>> build_site("build/executed", "site")   # or: python -m helpers course-site --executed build/executed

What it leaves out: executing (bench.notebooks does it) and the student version (these are the notebooks as committed).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import nbformat

from helpers.config import REPO_ROOT

if TYPE_CHECKING:
    from nbconvert import HTMLExporter

NOTEBOOKS_DIR = REPO_ROOT / "notebooks"
README = REPO_ROOT / "README.md"
RUN_METADATA = "kit_run"  # bench.notebooks writes how the run went under this key of the notebook's metadata
MAP_HEADING = "## The course: what you build"
STATES = ("ran through", "changed since its run", "not executed", "stopped", "unreadable")
FAILED = {"stopped", "unreadable"}
CSS = """
.kit-site{font:15px/1.45 system-ui,sans-serif;max-width:1100px;margin:0 auto;padding:12px 24px;color:#222}
.kit-site a{color:#0b5cad}.kit-site code{background:#f2f2f2;padding:0 3px;border-radius:3px}
.kit-run{color:#555;font-size:13px}.kit-banner{border-left:5px solid #c0392b;background:#fdecea;padding:8px 12px;
margin:8px 0}.kit-banner-info{border-color:#d68910;background:#fef5e7}
table.kit-map{border-collapse:collapse;width:100%}table.kit-map td,table.kit-map th{border-bottom:1px solid #ddd;
padding:6px 8px;text-align:left;vertical-align:top}.kit-state-stopped,.kit-state-unreadable{color:#c0392b}
"""


class SiteError(ValueError):
    """Input the site cannot be built from (a missing folder of executed notebooks); the message says what to do."""


@dataclass(frozen=True)
class Lesson:
    """One notebook of the course: where it is, its title, what you build in it and where its page goes."""

    source: Path
    title: str
    what: str  # one line, HTML: what you build (the README's course table, else the title's subtitle)
    page: str  # the page's path under the site folder
    appendix: bool = False


@dataclass
class Page:
    """How one notebook's page came out: its state (one of STATES), the banners it shows, its run's facts."""

    lesson: Lesson
    state: str
    notes: list[str] = field(default_factory=list)
    run: dict[str, object] = field(default_factory=dict)
    anchor: str = ""  # the id of the cell where the run stopped, for a link to it


def _inline(text: str) -> str:
    """Markdown's `code` and **bold** of one table cell as HTML (the rest escaped)."""
    escaped = html.escape(text.strip(), quote=False)
    escaped = re.sub(r"`([^`]+)`", r"<code>\1</code>", escaped)
    return re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", escaped)


def what_you_build(readme: str) -> dict[str, str]:
    """Notebook name → its README row ("stage", and "you write: …" when it has a slot), as one line of HTML."""
    if MAP_HEADING not in readme:
        return {}
    section = readme.split(MAP_HEADING, 1)[1].split("\n## ", 1)[0]
    found = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        name = re.fullmatch(r"`([^`]+)`", cells[0]) if len(cells) >= 2 else None
        if name:
            what = _inline(cells[1])
            if len(cells) > 2 and cells[2]:
                what += f" — ✍ you write {_inline(cells[2])}"
            found[name.group(1)] = what
    return found


def notebook_title(notebook: nbformat.NotebookNode, fallback: str) -> str:
    """The first `# ` heading of the notebook's Markdown cells, else `fallback`."""
    lines = (line for cell in notebook.cells if cell.cell_type == "markdown" for line in cell.source.splitlines())
    return next((line[2:].strip() for line in lines if line.startswith("# ")), fallback)


def course_lessons(notebooks_dir: Path = NOTEBOOKS_DIR, readme: Path = README) -> list[Lesson]:
    """The class path (`NN_*.ipynb`, in order), then the appendix (`appendix/*.ipynb`), each with its line."""
    lines = what_you_build(readme.read_text(encoding="utf-8")) if readme.exists() else {}
    paths = [(path, False) for path in sorted(notebooks_dir.glob("[0-9][0-9]_*.ipynb"))]
    paths += [(path, True) for path in sorted((notebooks_dir / "appendix").glob("*.ipynb"))]
    lessons = []
    for path, appendix in paths:
        try:
            title = notebook_title(nbformat.read(path, as_version=4), path.stem)
        except Exception:  # an unreadable notebook still gets its line; its page says why
            title = path.stem
        subtitle = title.split("·", 1)[-1].strip()
        page = f"appendix/{path.stem}.html" if appendix else f"{path.stem}.html"
        lessons.append(Lesson(path, title, lines.get(path.stem, _inline(subtitle)), page, appendix))
    return lessons


def _stopped_at(notebook: nbformat.NotebookNode) -> int | None:
    """The cell where a run stopped: the last with an error (earlier ones may err on purpose), else the last started."""
    errors = [index for index, cell in enumerate(notebook.cells)
              if any(output.get("output_type") == "error" for output in cell.get("outputs", []))]  # fmt: skip
    started = [index for index, cell in enumerate(notebook.cells) if cell.get("execution_count") is not None]
    return (errors or started or [None])[-1]


def _reason(err: Exception) -> str:
    """The first line of an error's message (its type when it has none)."""
    text = str(err).strip()
    return text.splitlines()[0][:200] if text else type(err).__name__


def page_notebook(lesson: Lesson, executed: Path) -> tuple[nbformat.NotebookNode, Page]:
    """The notebook to render for `lesson` (its executed copy when there is one) and how its page came out."""
    try:
        source = nbformat.read(lesson.source, as_version=4)
    except Exception as err:  # the notebook itself is broken: its page says so, the others still render
        note = f"The notebook {lesson.source} could not be read ({_reason(err)})."
        return nbformat.v4.new_notebook(), Page(lesson, "unreadable", [note])
    if not executed.exists():
        note = "Not executed in this build: the cells are shown without outputs (bash scripts/render.sh runs it)."
        return source, Page(lesson, "not executed", [note])
    try:
        notebook = nbformat.read(executed, as_version=4)
    except Exception as err:  # any unreadable file: say which and why, and show the cells
        note = f"The executed copy {executed} could not be read ({_reason(err)}): the cells are shown without outputs."
        return source, Page(lesson, "unreadable", [note])
    run = dict(notebook.metadata.get(RUN_METADATA, {}))
    status = str(run.get("status", "ok"))
    page = Page(lesson, "ran through", [], run)
    if status != "ok":
        stopped_at = _stopped_at(notebook)
        where = f" at cell {stopped_at}" if stopped_at is not None else ""
        page.state = "stopped"
        cell_id = notebook.cells[stopped_at].get("id", "") if stopped_at is not None else ""
        page.anchor = f"cell-id={cell_id}" if cell_id else ""
        page.notes.append(f"This notebook stopped{where} ({status}): the outputs end there; the cells after it "
                          "did not run.")  # fmt: skip
    if [cell.source for cell in notebook.cells] != [cell.source for cell in source.cells]:
        page.state = page.state if page.state == "stopped" else "changed since its run"
        page.notes.append("The notebook has changed since this run: the cells and outputs below are the run's, "
                          "not the current notebook's.")  # fmt: skip
    return notebook, page


def run_line(run: dict[str, object]) -> str:
    """One line on how a notebook ran: profile, reader, seconds, date, commit."""
    if not run:
        return ""
    parts = [f"executed in the {run.get('profile', '?')} profile" + (f" ({run['run']})" if run.get("run") else "")]
    if run.get("reader"):
        parts.append("the default reader" if run["reader"] == "the default" else f"reader {run['reader']}")
    if run.get("seconds") is not None:
        parts.append(f"{run['seconds']} s")
    if run.get("date"):
        parts.append(str(run["date"]))
    if run.get("commit"):
        parts.append(f"commit {str(run['commit'])[:10]}")
    return ", ".join(parts)


def _header(page: Page, home: str) -> str:
    """The bar above a rendered notebook: back to the course map, how it ran, its banners."""
    banners = "".join(
        f'<div class="kit-banner{"" if page.state in FAILED else " kit-banner-info"}">{html.escape(note)}</div>'
        for note in page.notes
    )
    if page.anchor:
        banners += (
            f'<div class="kit-banner"><a href="#{html.escape(page.anchor)}">Go to the cell where it stopped</a></div>'
        )
    where = " · appendix, outside the class path" if page.lesson.appendix else ""
    line = html.escape(run_line(page.run))
    return (f'<style>{CSS}</style><nav class="kit-site"><a href="{home}">← the course map</a>{where}'
            f'<div class="kit-run">{line}</div>{banners}</nav>')  # fmt: skip


@cache
def _exporter() -> HTMLExporter:
    """nbconvert's HTML exporter, lab template: images inlined as data: URIs, each page one self-contained file."""
    from nbconvert import HTMLExporter

    return HTMLExporter(template_name="lab")


def render_page(lesson: Lesson, executed: Path) -> tuple[str, Page]:
    """One notebook's page as HTML (nbconvert, lab template, images inlined) and how it came out."""
    notebook, page = page_notebook(lesson, executed)
    body, _ = _exporter().from_notebook_node(notebook, resources={"metadata": {"name": lesson.title}})
    home = "../index.html" if lesson.appendix else "index.html"
    opening = re.search(r"<body[^>]*>", body)
    if opening is None:
        raise SiteError(f"nbconvert's page for {lesson.source.name} has no <body>")
    return body[: opening.end()] + _header(page, home) + body[opening.end() :], page


def index_html(pages: list[Page]) -> str:
    """The course map: the class path in order, then the appendix, each with its line, link and state."""

    def rows(selected: list[Page]) -> str:
        out = []
        for page in selected:
            lesson, seconds = page.lesson, page.run.get("seconds")
            state = page.state + (f", {seconds} s" if seconds is not None and page.state != "not executed" else "")
            out.append(f'<tr><td><a href="{lesson.page}">{html.escape(lesson.title)}</a></td><td>{lesson.what}</td>'
                       f'<td class="kit-state-{page.state.split()[0]}">{html.escape(state)}</td></tr>')  # fmt: skip
        return "\n".join(out)

    head = "<tr><th>notebook</th><th>what you build</th><th>this build</th></tr>"
    path = [page for page in pages if not page.lesson.appendix]
    appendix = [page for page in pages if page.lesson.appendix]
    runs = sorted(
        {run_line({k: v for k, v in p.run.items() if k in ("profile", "run", "reader")}) for p in pages if p.run}
    )
    parts = [
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>RAG Teaching Kit: the course</title>',
        f'<style>{CSS}</style></head><body><main class="kit-site">',
        "<h1>RAG Teaching Kit: the course</h1>",
        "<p>Every notebook with its outputs, to read before running it. These are the notebooks as committed: the "
        "exercise solutions are shown (<code>python -m helpers student-version</code> writes the copies a class "
        "fills in). Built by <code>bash scripts/render.sh</code>"
        + (f"; {html.escape('; '.join(runs))}" if runs else "")
        + ".</p>",
        f'<h2>The class path</h2><table class="kit-map" id="class-path">{head}\n{rows(path)}</table>',
    ]
    if appendix:
        parts.append('<h2>Appendix: outside the class path</h2><p class="kit-appendix-note">Further material the '
                     "class path does not need; read it when a lesson points to it.</p>"
                     f'<table class="kit-map" id="appendix">{head}\n{rows(appendix)}</table>')  # fmt: skip
    parts.append("</main></body></html>\n")
    return "\n".join(parts)


def build_site(executed_dir: Path | str, out_dir: Path | str, notebooks_dir: Path = NOTEBOOKS_DIR,
               readme: Path = README) -> list[Page]:  # fmt: skip
    """Render every notebook (its executed copy from `executed_dir` when there is one) and the course map."""
    executed_dir, out_dir = Path(executed_dir), Path(out_dir)
    if not executed_dir.is_dir():
        raise SiteError(f"no folder of executed notebooks at {executed_dir}: bash scripts/render.sh executes them "
                        "there (python -m bench.notebooks --student --keep-outputs DIR)")  # fmt: skip
    lessons = course_lessons(notebooks_dir, readme)
    if not lessons:
        raise SiteError(f"no notebooks (NN_*.ipynb) in {notebooks_dir}")
    pages = []
    for lesson in lessons:
        executed = executed_dir / ("appendix" if lesson.appendix else "") / lesson.source.name
        text, page = render_page(lesson, executed)
        target = out_dir / lesson.page
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        pages.append(page)
    (out_dir / "index.html").write_text(index_html(pages), encoding="utf-8")
    return pages
