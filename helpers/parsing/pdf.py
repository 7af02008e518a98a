"""PDF pages to text in reading order, without running headers and footers, tables as sentences.

Per page (PyMuPDF): drop running headers/footers (the top and bottom margins, "Page N", lines repeated on most
pages), write each ruled table as one sentence per row, then read full-width blocks top to bottom and each run
of two-column blocks left column first. A scanned page is read by OCR (ocr.py) where Tesseract's data is there.
What it leaves out: three or more columns, tables drawn without ruling lines, images and footnote linking.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from pathlib import Path
from typing import NamedTuple

import pymupdf  # PyMuPDF (the old name `fitz` is deprecated)
from pymupdf.table import Table

from helpers.parsing.base import ParseError, check_tables_mode, collapse, humanise
from helpers.parsing.ocr import is_image_only, ocr_available, ocr_blocks, report_skipped
from helpers.parsing.tables import table_to_text

log = logging.getLogger(__name__)

MARGIN = 0.06  # blocks entirely in the top or bottom 6% of the page are running headers/footers
BAND = 0.09  # where repeated lines and bare page numbers are looked for (body text starts lower)
PAGE_LABEL = re.compile(r"^\s*page\s+\d+(\s*(of|/)\s*\d+)?\s*$", re.IGNORECASE)
BARE_NUMBER = re.compile(r"^\s*[-–]?\s*\d+\s*[-–]?\s*$|^\s*\d+\s*(of|/)\s*\d+\s*$", re.IGNORECASE)
MIN_DRAWINGS = 4  # vector paths a page needs before it is searched for ruled tables
BULLET = re.compile(r"^\s*([•▪◦‣●○\-–*]|\d+[.)])\s")


class Block(NamedTuple):
    """A text block: its box in points (origin top-left), its text, and whether it is a table written out."""

    x0: float
    y0: float
    x1: float
    y1: float
    text: str
    is_table: bool = False


def open_pdf(path: str | Path) -> pymupdf.Document:
    """Open a PDF, or raise ParseError saying it is corrupt or encrypted."""
    try:
        doc = pymupdf.open(str(path), filetype="pdf")
    except (RuntimeError, ValueError) as error:  # pymupdf.FileDataError is a RuntimeError
        detail = "" if "Failed to open file" in str(error) else f" ({error})"  # that one only repeats the path
        raise ParseError(f"corrupt PDF, cannot be opened{detail}; re-export or re-download it") from None
    if doc.needs_pass:
        doc.close()
        raise ParseError("encrypted PDF: it needs a password; save an unencrypted copy to index it")
    if doc.page_count == 0:
        doc.close()
        raise ParseError("corrupt PDF: it has no pages")
    return doc


def _signature(text: str) -> str:
    """A block's text with digits masked, to spot "Handbook 2026 · page 3" repeated on every page."""
    return re.sub(r"\d+", "#", collapse(text).lower())


def _side(x0: float, x1: float, width: float) -> str:
    """Where a box sits: "left" or "right" of the page middle, or "full" when it crosses it."""
    middle, slack = width / 2, width * 0.01
    if x1 <= middle + slack:
        return "left"
    return "right" if x0 >= middle - slack else "full"


def _merge(lines: list[tuple[tuple[float, ...], str]]) -> Block:
    """One block around some (line box, line text) pairs."""
    boxes = [box for box, _ in lines]
    x0, y0 = min(box[0] for box in boxes), min(box[1] for box in boxes)
    x1, y1 = max(box[2] for box in boxes), max(box[3] for box in boxes)
    return Block(x0, y0, x1, y1, "\n".join(text for _, text in lines))


def _text_blocks(page: pymupdf.Page) -> list[Block]:
    """The page's text blocks; a block whose lines sit in both columns (PyMuPDF merged them) is split."""
    blocks = []
    for block in page.get_text("dict")["blocks"]:
        if block["type"] != 0:  # an image block
            continue
        lines = [(line["bbox"], "".join(span["text"] for span in line["spans"])) for line in block["lines"]]
        lines = [(box, text) for box, text in lines if text.strip()]
        sides: dict[str, list[tuple[tuple[float, ...], str]]] = {}
        for box, text in lines:
            sides.setdefault(_side(box[0], box[2], page.rect.width), []).append((box, text))
        if "left" in sides and "right" in sides:
            blocks += [_merge(part) for part in sides.values()]
        elif lines:  # one column, or full width: keep the block whole
            blocks.append(_merge(lines))
    return blocks


def _repeated_margin_lines(pages: list[list[Block]], heights: list[float]) -> set[str]:
    """Signatures of blocks that sit in the top/bottom band of at least half the pages (3 pages minimum)."""
    counts: Counter[str] = Counter()
    for blocks, height in zip(pages, heights, strict=True):
        in_band = {_signature(b.text) for b in blocks if b.y1 <= BAND * height or b.y0 >= (1 - BAND) * height}
        counts.update(in_band)
    needed = max(3, (len(pages) + 1) // 2)
    return {signature for signature, count in counts.items() if count >= needed}


def _is_running(block: Block, height: float, repeated: set[str]) -> bool:
    """True for a running header/footer or a page number."""
    if block.y1 <= MARGIN * height or block.y0 >= (1 - MARGIN) * height:
        return True
    if PAGE_LABEL.match(block.text) or _signature(block.text) in repeated:
        return True
    in_band = block.y1 <= BAND * height or block.y0 >= (1 - BAND) * height
    return in_band and bool(BARE_NUMBER.match(block.text))


def _tables(page: pymupdf.Page) -> list:
    """The page's ruled tables, or [] when this PyMuPDF has no find_tables or it fails."""
    # find_tables costs about a second a page; a ruled table needs ruling lines, so pages with fewer
    # than MIN_DRAWINGS drawn paths (a running header's rule, say) are not searched at all.
    if len(page.get_cdrawings()) < MIN_DRAWINGS:
        return []
    try:
        return list(page.find_tables().tables)
    except Exception:  # old PyMuPDF, or drawings it cannot analyse: keep the plain text
        return []


def _table_cells(page: pymupdf.Page, table: Table) -> tuple[list[str], list[list[str]]]:
    """A found table's header and body rows, each cell read from the page inside its box (keeps the spaces)."""
    rows = [[collapse(page.get_textbox(cell)) if cell else "" for cell in row.cells] for row in table.rows]
    # "External" means PyMuPDF saw no header row inside the table and guessed the line above (often the
    # caption): then the table has no header and every row is data.
    if table.header.external or not rows:
        return [], rows
    return rows[0], rows[1:]


def _replace_tables(page: pymupdf.Page, blocks: list[Block], tables: str) -> list[Block]:
    """Swap the blocks inside each table for one block holding the table as sentences (or raw cell lines)."""
    width = page.rect.width
    for table in _tables(page):
        box = pymupdf.Rect(table.bbox)
        header, rows = _table_cells(page, table)
        inside = [b for b in blocks if box.contains(pymupdf.Point((b.x0 + b.x1) / 2, (b.y0 + b.y1) / 2))]
        # The caption is the nearest text line above the table (not one in the other column).
        other_column = {"left": "right", "right": "left"}.get(_side(box.x0, box.x1, width))
        above = [
            b for b in blocks if b.y1 <= box.y0 + 2 and b not in inside and _side(b.x0, b.x1, width) != other_column
        ]
        caption = collapse(max(above, key=lambda b: b.y1).text.strip().splitlines()[-1]) if above else ""
        text = table_to_text(caption, header, rows, tables=tables)
        if text:
            blocks = [b for b in blocks if b not in inside] + [Block(box.x0, box.y0, box.x1, box.y1, text, True)]
    return blocks


def _in_reading_order(blocks: list[Block], width: float) -> list[Block]:
    """Full-width blocks top to bottom; each run of column blocks as left column, then right column."""

    def side(block: Block) -> str:
        return _side(block.x0, block.x1, width)

    def flush(run: list[Block]) -> list[Block]:
        left = [b for b in run if side(b) == "left"]
        right = [b for b in run if side(b) == "right"]
        # Short one-line blocks lined up side by side are a table or a form, not columns: keep them row by row.
        aligned = sum(any(abs(r.y0 - lb.y0) < 2 for lb in left) for r in right)
        one_line = sum("\n" not in b.text.strip() for b in run)
        if right and aligned / len(right) > 0.5 and one_line / len(run) > 0.5:
            return sorted(run, key=lambda b: (round(b.y0), b.x0))
        return left + right

    ordered: list[Block] = []
    run: list[Block] = []
    for block in sorted(blocks, key=lambda b: (b.y0, b.x0)):
        if side(block) == "full":
            ordered += [*flush(run), block]
            run = []
        else:
            run.append(block)
    return ordered + flush(run)


def _block_text(text: str) -> str:
    """Join a block's wrapped lines into flowing text, keeping a line break before each bullet."""
    lines = [collapse(line) for line in text.splitlines() if line.strip()]
    return "".join(("\n" if BULLET.match(line) else " ") + line for line in lines).strip()


def _page_text(page: pymupdf.Page, blocks: list[Block], repeated: set[str], tables: str) -> str:
    """One page in reading order: running lines dropped, tables written out, blocks as paragraphs."""
    body = [b for b in blocks if not _is_running(b, page.rect.height, repeated)]
    body = _replace_tables(page, body, tables)
    ordered = _in_reading_order(body, page.rect.width)
    return "\n\n".join(filter(None, (b.text if b.is_table else _block_text(b.text) for b in ordered)))


def _page_texts(doc: pymupdf.Document, *, reading_order: bool, tables: str) -> list[tuple[int, str]]:
    """(page number, text) for every page with text; pages without a text layer are skipped with a warning."""
    pages = list(doc)
    if reading_order:
        all_blocks = [_text_blocks(page) for page in pages]
        repeated = _repeated_margin_lines(all_blocks, [page.rect.height for page in pages])
        texts = [_page_text(page, blocks, repeated, tables) for page, blocks in zip(pages, all_blocks, strict=True)]
    else:  # the naive way: PyMuPDF's own order, headers and all
        texts = [page.get_text().strip() for page in pages]
    for number, text in enumerate(texts, start=1):
        if text or not is_image_only(pages[number - 1]):
            if not text:
                log.warning("%s: page %d has no text (a blank page); skipped", doc.name, number)
            continue
        # A scanned page: read it with Tesseract (ocr.py), or name it and skip it where OCR is missing.
        if ocr_available():
            texts[number - 1] = "\n\n".join(_block_text(block) for block in ocr_blocks(pages[number - 1]))
        else:
            report_skipped(Path(doc.name).name, number)
    return [(number, text) for number, text in enumerate(texts, start=1) if text]


def pdf_pages(path: str | Path, *, reading_order: bool = True, tables: str = "sentences") -> list[tuple[int, str]]:
    """(1-based page number, text) per page; reading_order=False gives PyMuPDF's naive page.get_text()."""
    check_tables_mode(tables)
    with open_pdf(path) as doc:
        return _page_texts(doc, reading_order=reading_order, tables=tables)


def pdf_title(doc: pymupdf.Document, pages: list[tuple[int, str]], stem: str) -> str:
    """The PDF's title: its metadata title, else the first line of its first page, else the file stem."""
    title = collapse((doc.metadata or {}).get("title") or "")
    if title and title.lower() not in ("untitled", "anonymous", "unknown"):
        return title
    first_line = pages[0][1].splitlines()[0] if pages else ""
    return collapse(first_line)[:120] or humanise(stem)


def read_pdf(path: Path, *, tables: str) -> tuple[str, list[tuple[int, str]]]:
    """The PDF's title and its pages' texts; ParseError if no page has any text."""
    with open_pdf(path) as doc:
        pages = _page_texts(doc, reading_order=True, tables=tables)
        if not pages:
            raise ParseError("PDF has no text layer on any page (a scan?); run OCR on it first")
        return pdf_title(doc, pages, path.stem), pages
