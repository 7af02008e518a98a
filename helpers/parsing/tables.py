"""Tables as text: every row becomes one self-contained sentence (table-to-text), or plain cell lines.

"Class schedule: Course ADS 510, Units 4, Section A, Days Tue/Thu." keeps the caption and column names with
each row, so any chunk of a table can be retrieved and quoted on its own.
Left out: merged header hierarchies (multi-row headers are joined per column), and number formatting.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence
from itertools import pairwise

from helpers.parsing.base import MAX_BYTES, collapse

csv.field_size_limit(MAX_BYTES)  # a 5 MB cell is data, not an error (the default limit is 128 KB)

_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sept?(?:ember)?|Oct(?:ober)?"
    r"|Nov(?:ember)?|Dec(?:ember)?)\.?"
)
_DAY = rf"{_MONTH}\s+\d{{1,2}}"
# "Nov. 14", "Oct. 13–17", "May 20-21", "March 31 - April 4", "Sept. 24, 2025": a date or a range, alone in its cell
DATE_CELL = re.compile(rf"{_DAY}(?:\s*[–—-]\s*(?:{_DAY}|\d{{1,2}}))?(?:,\s*\d{{4}})?")
_DATE_FIRST_LINE = re.compile(rf"^[ \t]*({DATE_CELL.pattern})[ \t]*\t[ \t]*([^\t\r\n]*\S)[ \t]*(\r?)$", re.MULTILINE)


def calendar_lines(text: str) -> str:
    r"""Plain-text calendar rows written "date<TAB>event" become "event: date.", the event named first.

    A reader looks for the question's event and takes the date written next to it; in date-first lines the
    date written right after an event's name is the next row's. Only a line of two cells whose first is a date
    (or a range of dates) changes.

    >>> calendar_lines("Nov. 14\tFall Semester withdrawal deadline\nNov. 21\tFall 2 withdrawal deadline")
    'Fall Semester withdrawal deadline: Nov. 14.\nFall 2 withdrawal deadline: Nov. 21.'
    """
    return _DATE_FIRST_LINE.sub(lambda match: f"{match[2]}: {match[1]}.{match[3]}", text)


def row_to_sentence(caption: str, header: list[str], row: list[str]) -> str:
    """One table row as a sentence: "Caption: Header1 value1, Header2 value2."; empty cells skipped."""
    parts = []
    for index, cell in enumerate(row):
        value = collapse(cell or "")
        if not value:
            continue
        name = collapse(header[index]) if index < len(header) and header[index] else ""
        parts.append(f"{name} {value}" if name else value)
    body = ", ".join(parts)
    if body and body[-1] not in ".!?":
        body += "."
    caption = collapse(caption or "")
    return f"{caption}: {body}" if caption and body else body


def table_to_text(
    caption: str,
    header: list[str],
    rows: Sequence[list[str]],
    *,
    tables: str = "sentences",
    caption_in_raw: bool = False,
) -> str:
    """A whole table as text: one sentence per row, or (raw) the cells joined by " | ", header first."""
    if tables == "raw":
        lines = [collapse(caption)] if caption_in_raw and caption else []
        lines += [" | ".join(collapse(cell or "") for cell in line) for line in [header, *rows] if any(line)]
        return "\n".join(lines)
    rows = _filled_down(rows)
    sentences = (
        row_to_sentence(caption, [], [note]) if (note := _spanning_note(row)) else row_to_sentence(caption, header, row)
        for row in rows
    )
    return "\n".join(sentence for sentence in sentences if sentence)


def _filled_down(rows: Sequence[list[str]]) -> list[list[str]]:
    """The rows, an empty first cell given the label above ("| January 6 | Add |" then "| | Drop |": one date
    over two events), unless the first column is mostly empty (then an empty cell means none)."""
    rows = [list(row) for row in rows]
    if sum(bool(row and (row[0] or "").strip()) for row in rows) * 2 < len(rows):
        return rows
    for above, row in pairwise(rows):
        if row and not (row[0] or "").strip() and any((cell or "").strip() for cell in row[1:]) and above and above[0]:
            row[0] = above[0]
    return rows


def _spanning_note(row: list[str]) -> str:
    """The one text of a row that repeats it in every filled cell (a note across the table, colspan), else ""."""
    values = [text for text in (collapse(cell or "") for cell in row) if text]
    return values[0] if len(values) > 1 and len(set(values)) == 1 else ""


def csv_to_text(text: str, caption: str, *, tables: str = "sentences") -> str:
    """A CSV file's text as table text: the first row is the header, blank rows are dropped."""
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(text[:4096], delimiters=",;\t|")
    except csv.Error:  # too little text to guess from: plain commas
        dialect = csv.excel
    return rows_to_text(list(csv.reader(io.StringIO(text), dialect)), caption, tables=tables)


def rows_to_text(rows: Sequence[list[str]], caption: str, *, tables: str = "sentences") -> str:
    """Rows of cells (a CSV file, a spreadsheet) as table text: the first row is the header, blank rows dropped."""
    rows = [row for row in rows if any(cell.strip() for cell in row)]
    if not rows:
        return ""
    if tables == "raw":
        return "\n".join(" | ".join(cell.strip() for cell in row) for row in rows)
    header = [cell.replace("_", " ") for cell in rows[0]]  # snake_case column names read as words
    body = rows[1:]
    return table_to_text(caption, header, body, tables=tables)
