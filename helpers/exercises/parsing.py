"""The self-checks of notebook 01's exercises: a table row written as a sentence, and PDF quotes counted.

Each recomputes the answer, recognises the usual slips (the raw row, the header row, shares instead of counts)
and never prints it.
What it leaves out: the prose halves, answered in the notebook.
"""

from __future__ import annotations

import csv
import numbers
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from helpers.exercises.base import answer_problem, as_count, not_yet, require, require_answer, right, self_check
from helpers.parsing import parse, row_to_sentence


def _folded(text: str) -> str:
    """White space folded to single spaces."""
    return " ".join(text.split())


def _rows(path: Path) -> list[list[str]]:
    """The CSV file's non-empty rows, the header first."""
    with open(path, encoding="utf-8", newline="") as handle:
        return [row for row in csv.reader(handle) if any(cell.strip() for cell in row)]


def _body(sentence: str) -> str:
    """The part of a row sentence after its caption."""
    return sentence.split(": ", 1)[-1]


@self_check
def check_row_sentence(sentence: object, path: str | Path) -> bool:
    """Right when `sentence` is the sentence the kit's table parser writes for the first data row of `path`."""
    require(answer_problem(sentence, str, "the sentence (a str)"))
    document = parse(path)[0]
    expected, caption = document.text.splitlines()[0], str(document.metadata.get("caption", ""))
    got = _folded(sentence)
    if got == _folded(expected):
        return right("the first data row as the parser writes it: caption, then 'column value' pairs.")
    header, first = _rows(Path(path))[:2]
    words = [name.replace("_", " ") for name in header]
    if got == _folded(" | ".join(first)) or got == _folded(",".join(first)):
        return not_yet("that is the raw row: turn it into a sentence with row_to_sentence(caption, header, row)")
    if got in (_folded(row_to_sentence(c, h, header)) for c in (caption, "") for h in (header, words)):
        return not_yet("that sentence is made of the header row: the first *data* row is the next line of the file")
    if got == _folded(row_to_sentence(caption, header, first)):
        return not_yet("the parser writes the column names as words: replace the underscores with spaces")
    if _body(got) == _folded(_body(expected)):
        return not_yet("the right cells, another caption: the parser captions each row with the table's title")
    return not_yet("not the sentence the kit's table parser writes for the first data row: caption, then "
                   "'column value' pairs separated by commas, empty cells left out")  # fmt: skip


def whole_quote_counts(coverage: pd.DataFrame, column: str = "quotes found", fmt: str = "pdf") -> dict[str, int]:
    """Per parser of `fmt`, how many evidence quotes the coverage table says it keeps (whole, or `column`)."""
    rows = coverage[coverage["format"] == fmt]
    return {str(row.parser): round(float(row[column] * row["quotes"])) for _, row in rows.iterrows()}


@self_check
def check_whole_quotes(answer: object, coverage: pd.DataFrame) -> bool:
    """Right when `answer` maps every PDF parser of `coverage` to the number of handbook quotes it keeps whole."""
    require_answer(answer)
    if not isinstance(answer, Mapping) and not isinstance(answer, pd.Series):
        return not_yet(f"the answer should map each PDF parser's name to a count (a dict), got {type(answer).__name__}")
    given, expected = dict(answer), whole_quote_counts(coverage)
    if set(given) != set(expected):
        return not_yet(f"name every PDF parser of the coverage table, as its 'parser' column does: {sorted(expected)}")
    values = list(given.values())
    if all(isinstance(v, numbers.Real) and 0 <= v <= 1 for v in values) and max(expected.values()) > 1:
        return not_yet("those are shares of the quotes: the exercise asks how many quotes (a count per parser)")
    counts = {name: as_count(value) for name, value in given.items()}
    if any(count is None for count in counts.values()):
        return not_yet("each value should be a whole number of quotes")
    if counts == expected:
        return right(f"whole-quote counts of all {len(expected)} PDF parsers match the coverage table.")
    if counts == whole_quote_counts(coverage, "≥ half found"):
        return not_yet("those count the quotes found at least half: count the ones found whole ('quotes found')")
    name = next(name for name in expected if counts[name] != expected[name])
    return not_yet(f"the count for {name!r} is off: the share found whole times the number of quotes")
