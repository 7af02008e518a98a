"""Word, PowerPoint and Excel files (and their macro-enabled twins) to text, with what a citation needs.

`read_docx`: one text per section, opened by a "#" line naming its heading trail ("Safety > Laser cutter",
cited as `heading`). `read_pptx`: one text per slide with text (its number cited as the page), notes last.
`read_xlsx`: one text per sheet with cells, rows through the CSV path. Macros are never read or run.
What it leaves out: Word headers, footers, footnotes, comments, text boxes and content controls; charts,
SmartArt and images (no OCR); formulas without a saved value, and number formats.
"""

from __future__ import annotations

import datetime as dt
import io
import re
import warnings
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import groupby
from pathlib import Path
from typing import Any, TypeVar

import docx
import openpyxl
import pptx
from docx.table import Table as WordTable
from docx.text.paragraph import Paragraph
from pptx.enum.shapes import PP_PLACEHOLDER
from pptx.shapes.base import BaseShape
from pptx.shapes.group import GroupShape

from helpers.parsing.base import MAX_BYTES, ParseError, collapse, humanise
from helpers.parsing.sniff import OFFICE_PARTS
from helpers.parsing.tables import rows_to_text, table_to_text

MAX_UNZIPPED = 10 * MAX_BYTES  # a package whose parts inflate past this is refused unread (a "ZIP bomb")
NAMES = {"docx": "Word document", "pptx": "PowerPoint presentation", "xlsx": "Excel workbook"}
MEDIA = {"docx": "word/media/", "pptx": "ppt/media/", "xlsx": "xl/media/"}
_WORD = b"application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
_SLIDES = b"application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"
# Main-part content types python-docx and python-pptx refuse, though the parts are the same as the plain file's:
# the package is read with the plain type in their place (macros sit in a part of their own, never read).
PLAIN_TYPES = {
    "docx": {
        b"application/vnd.ms-word.document.macroEnabled.main+xml": _WORD,
        b"application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml": _WORD,
        b"application/vnd.ms-word.template.macroEnabledTemplate.main+xml": _WORD,
    },
    "pptx": {
        b"application/vnd.openxmlformats-officedocument.presentationml.template.main+xml": _SLIDES,
        b"application/vnd.ms-powerpoint.template.macroEnabled.main+xml": _SLIDES,
    },
}
# What zipfile raises on a package cut short or damaged (RuntimeError: a member that needs a ZIP password).
ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, OSError, KeyError, ValueError, NotImplementedError,
              RuntimeError)  # fmt: skip
GENERIC_TITLES = {"powerpoint presentation", "presentation", "document", "untitled"}  # templates' default titles
HEADING_STYLE = re.compile(r"^heading ([1-9])$", re.IGNORECASE)
DEFAULT_SHEET = re.compile(r"^sheet ?\d*$", re.IGNORECASE)
TRAIL = " > "  # between the headings of a trail, as between those of a chunk's section path
FURNITURE = {PP_PLACEHOLDER.SLIDE_NUMBER, PP_PLACEHOLDER.DATE, PP_PLACEHOLDER.FOOTER}  # repeated on every slide
T = TypeVar("T")


@dataclass
class Package:
    """An Office file checked to open: what to hand its library, and how many images it holds."""

    source: Path | io.BytesIO
    images: int


def corrupt(kind: str) -> str:
    """The reason a package of this kind that cannot be opened is skipped."""
    return f"corrupt {NAMES[kind]}, cannot be opened (cut short or damaged); save it again or re-download it"


def open_package(path: Path, kind: str) -> Package:
    """Check the ZIP (readable, its main part there, not inflating past MAX_UNZIPPED); plain content types."""
    try:
        with zipfile.ZipFile(path) as package:
            infos = package.infolist()
            names = {info.filename for info in infos}
            if OFFICE_PARTS[kind] not in names:
                raise ParseError(f"{corrupt(kind)} (it has no {OFFICE_PARTS[kind]})")
            inflated = sum(info.file_size for info in infos)
            if inflated > MAX_UNZIPPED:
                raise ParseError(f"unzips to {inflated / 2**20:,.0f} MB, over the {MAX_UNZIPPED // 2**20} MB limit")
            images = sum(name.startswith(MEDIA[kind]) for name in names)
            types = package.read("[Content_Types].xml")
            swaps = {old: new for old, new in PLAIN_TYPES.get(kind, {}).items() if old in types}
            if not swaps:
                return Package(path, images)
            for old, new in swaps.items():
                types = types.replace(old, new)
            copy = io.BytesIO()  # the same parts, only [Content_Types].xml changed
            with zipfile.ZipFile(copy, "w") as out:
                for info in infos:
                    out.writestr(info.filename, types if info.filename == "[Content_Types].xml" else package.read(info))
            copy.seek(0)
            return Package(copy, images)
    except ZIP_ERRORS:
        raise ParseError(corrupt(kind)) from None


def load(kind: str, opener: Callable[[], T]) -> T:
    """What `opener` returns, or ParseError saying the package is damaged when its library cannot read it."""
    try:
        return opener()
    except (MemoryError, RecursionError):
        raise
    except Exception:  # a broken part fails deep inside the library, as any of many types: all mean "damaged"
        raise ParseError(corrupt(kind)) from None


def no_text(kind: str, images: int) -> ParseError:
    """The reason an Office file with nothing to index is skipped (naming its images, which are not read)."""
    if images:
        noun = "image" if images == 1 else "images"
        return ParseError(f"has no readable text (only {images} {noun}; the kit reads no images: save its text as "
                          ".txt or a PDF)")  # fmt: skip
    return ParseError(f"has no readable text (the {NAMES[kind]} is empty)")


def document_title(found: str | None, stem: str, fallback: str = "") -> str:
    """The file's own title property unless it is empty or a template's default, else `fallback`, else the stem."""
    title = collapse(found or "")
    if title and title.lower() not in GENERIC_TITLES:
        return title
    return fallback or humanise(stem)


# ---------------------------------------------------------------------------------------------- Word


def heading_level(paragraph: Paragraph) -> int:
    """1-9 for a Title or Heading N paragraph (its style or a style it is based on), 0 for body text."""
    style, depth = paragraph.style, 0
    while style is not None and depth < 10:  # custom heading styles are based on the built-in ones
        name = style.name or ""
        if name.lower() == "title":
            return 1
        if match := HEADING_STYLE.match(name):
            return int(match.group(1))
        style, depth = style.base_style, depth + 1
    return 0


def is_list_item(paragraph: Paragraph) -> bool:
    """A bulleted or numbered paragraph: a List style, or numbering set on the paragraph itself."""
    name = (paragraph.style.name if paragraph.style is not None else "") or ""
    properties = paragraph._p.pPr  # python-docx has no public accessor for a paragraph's numbering
    return name.lower().startswith("list") or (properties is not None and properties.numPr is not None)


def word_table(table: WordTable, caption: str, tables: str) -> str:
    """A Word table through table-to-text: its first row is the header; a merged cell is read once per row."""
    # a cell merged across columns comes back once per column it spans (the same `_tc` element each time)
    rows = ([next(cells) for _, cells in groupby(row.cells, key=lambda cell: cell._tc)] for row in table.rows)
    grid = [[collapse(cell.text) for cell in row] for row in rows]
    if not grid:
        return ""
    return table_to_text(caption, grid[0], grid[1:], tables=tables)


def docx_sections(blocks: list[tuple[int, str]]) -> list[tuple[str, str]]:
    """(heading trail, text) per section from (heading level or 0, text) blocks; each heading starts a section.

    A section opens with one "#" line naming the whole trail ("## Safety > Laser cutter"), the chunker's section
    path; a heading with no text under it adds no section, unless the document has nothing but headings.
    """
    sections: list[tuple[str, list[str]]] = [("", [])]
    trail: list[tuple[int, str]] = []  # (level, heading) of the headings above, as the chunker's section paths
    for level, text in blocks:
        if level:
            trail = [(depth, name) for depth, name in trail if depth < level] + [(level, text)]
            path = TRAIL.join(name for _, name in trail)
            sections.append((path, [f"{'#' * min(level, 6)} {path}"]))
        else:
            sections[-1][1].append(text)
    with_text = [(path, lines) for path, lines in sections if len(lines) > (1 if path else 0)]
    kept = with_text or [(path, lines) for path, lines in sections if lines]
    return [(path, "\n\n".join(lines)) for path, lines in kept]


def read_docx(path: Path, *, tables: str) -> tuple[str, list[tuple[str, str]]]:
    """A Word document's title and (heading trail, text) per section, tables in the section they appear in."""
    package = open_package(path, "docx")
    document = load("docx", lambda: docx.Document(package.source))
    blocks: list[tuple[int, str]] = []  # (heading level or 0, text) in document order
    heading, first_heading = "", ""
    for block in document.iter_inner_content():
        if isinstance(block, WordTable):
            blocks.append((0, word_table(block, heading or humanise(path.stem), tables)))
            continue
        text = block.text.strip()
        if not text:
            continue
        level = heading_level(block)
        if level:
            heading = collapse(text)
            first_heading = first_heading or heading
            blocks.append((level, heading))
        else:
            blocks.append((0, f"- {collapse(text)}" if is_list_item(block) else text))
    blocks = [(level, text) for level, text in blocks if text.strip()]
    if not any(character.isalnum() for _, text in blocks for character in text):
        raise no_text("docx", package.images)
    title = document_title(document.core_properties.title, path.stem, first_heading)
    return title, docx_sections(blocks)


# ---------------------------------------------------------------------------------------------- PowerPoint


def reading_order(shapes: Any) -> list[BaseShape]:
    """The shapes top to bottom, then left to right (a slide stores them in drawing order)."""
    return sorted(shapes, key=lambda shape: (shape.top or 0, shape.left or 0))


def shape_texts(shapes: Any, caption: str, tables: str, skip: int | None) -> Iterator[str]:
    """The text of each shape in reading order: text frames, tables (as sentences) and groups' members."""
    for shape in reading_order(shapes):
        if shape.shape_id == skip:
            continue  # the title, written as the slide's heading
        if shape.is_placeholder and shape.placeholder_format.type in FURNITURE:
            continue
        if isinstance(shape, GroupShape):  # not `shape_type`: it raises for shapes it does not recognise
            yield from shape_texts(shape.shapes, caption, tables, skip)
        elif shape.has_text_frame:
            lines = [paragraph.text.replace("\v", "\n").strip() for paragraph in shape.text_frame.paragraphs]
            yield "\n".join(line for line in lines if line)
        elif shape.has_table:
            grid = [[collapse(cell.text) for cell in row.cells] for row in shape.table.rows]
            if grid:
                yield table_to_text(caption, grid[0], grid[1:], tables=tables)


def read_pptx(path: Path, *, tables: str) -> tuple[str, list[tuple[int, str, str]]]:
    """The deck's title and (slide number, slide title, text) for each slide with text, notes last."""
    package = open_package(path, "pptx")
    deck = load("pptx", lambda: pptx.Presentation(package.source))
    slides: list[tuple[int, str, str]] = []
    for number, slide in enumerate(deck.slides, start=1):
        title_shape = slide.shapes.title
        title = collapse(title_shape.text_frame.text) if title_shape is not None else ""
        caption = title or f"Slide {number}"
        skip = title_shape.shape_id if title_shape is not None else None
        parts = [text for text in shape_texts(slide.shapes, caption, tables, skip) if text]
        notes = slide.notes_slide.notes_text_frame if slide.has_notes_slide else None
        if notes is not None and (text := notes.text.replace("\v", "\n").strip()):
            parts.append(f"Speaker notes: {text}")
        if not any(character.isalnum() for character in title + "".join(parts)):
            continue  # a slide with only pictures, or nothing: no page to cite
        slides.append((number, title, "\n\n".join([f"# {caption}", *parts])))
    if not slides:
        raise no_text("pptx", package.images)
    first_title = next((title for _, title, _ in slides if title), "")
    return document_title(deck.core_properties.title, path.stem, first_title), slides


# ---------------------------------------------------------------------------------------------- Excel


def cell_text(value: object) -> str:
    """A cell's value as text: whole numbers without ".0", a midnight date as a date, TRUE/FALSE as Excel shows."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).upper()
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else format(value, ".15g")
    if isinstance(value, dt.datetime):
        return value.date().isoformat() if value.time() == dt.time() else value.isoformat(sep=" ", timespec="minutes")
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    return str(value)


def sheet_rows(sheet: Any) -> list[list[str]]:
    """Every row of a sheet as text cells, trailing empty cells dropped."""
    rows = []
    for values in sheet.iter_rows(values_only=True):
        cells = [cell_text(value) for value in values]
        while cells and not cells[-1].strip():
            cells.pop()
        rows.append(cells)
    return rows


def sheet_texts(book: Any, title: str, tables: str) -> Iterator[tuple[int, str, str]]:
    """(sheet number, sheet name, text) for each sheet with cells; a sheet named "Sheet1" is captioned `title`."""
    for number, sheet in enumerate(book.worksheets, start=1):
        sheet.reset_dimensions()  # read every row written, not only the range the file claims
        caption = title if DEFAULT_SHEET.match(sheet.title) else sheet.title
        if body := rows_to_text(sheet_rows(sheet), caption, tables=tables):
            yield number, sheet.title, f"# {sheet.title}\n\n{body}"


def read_xlsx(path: Path, *, tables: str) -> tuple[str, list[tuple[int, str, str]]]:
    """The workbook's title and (sheet number, sheet name, text) for each sheet with cells, rows as sentences."""
    package = open_package(path, "xlsx")
    # A file object, not the path: openpyxl refuses a path whose suffix is not an Excel one (a file read by content).
    source = package.source if isinstance(package.source, io.BytesIO) else path.open("rb")
    with source, warnings.catch_warnings():  # openpyxl warns about each extension it does not read (data validation…)
        warnings.simplefilter("ignore")
        book = load("xlsx", lambda: openpyxl.load_workbook(source, read_only=True, data_only=True))
        title = document_title(book.properties.title, path.stem)
        try:  # a sheet part cut short fails only when its rows are read
            sheets = load("xlsx", lambda: list(sheet_texts(book, title, tables)))
        finally:
            book.close()
    if not sheets:
        raise no_text("xlsx", package.images)
    return title, sheets
