"""Parsers compared on the gold evidence: per format, the kit's parser next to the usual alternatives (PyMuPDF,
trafilatura, BeautifulSoup, the raw file): evidence quotes and answers its text still holds, documents per second.
What it leaves out: the noise a parser keeps beside a quote (`noise_table`), and retrieval (`table_lookup.py`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd
import pymupdf
import trafilatura
from bs4 import BeautifulSoup

from helpers.corpus import DOCS_DIR, Evidence, Question, course_files
from helpers.metrics import chunk_supports, contains_answer
from helpers.parsing import parse
from helpers.parsing.base import decode_bytes, source_name

Extractor = Callable[[Path], list[str]]  # a file -> its texts (one per document; a PDF: one per page)
FOLDER_FORMAT = {"handbook": "pdf", "web": "html", "articles": "markdown", "emails": "email", "tables": "table"}


def format_of(doc: str) -> str:
    """The format of a corpus document from its folder: "web/faq.html" -> "html"."""
    return FOLDER_FORMAT.get(doc.split("/")[0], "other")


def quote_found(text: str, quote: str) -> bool:
    """Whether the quote is in the text, whitespace and case folded (line breaks do not hide it)."""
    return " ".join(quote.split()).lower() in " ".join(text.split()).lower()


def kit_parser(path: Path) -> list[str]:
    """The kit's parser (`helpers.parsing.parse`), tables as sentences."""
    return [doc.text for doc in parse(path, root=DOCS_DIR)]


def kit_parser_raw_tables(path: Path) -> list[str]:
    """The kit's parser with tables left as raw cell lines ("ADS 510 | 4 | Tue/Thu")."""
    return [doc.text for doc in parse(path, tables="raw", root=DOCS_DIR)]


def raw_file(path: Path) -> list[str]:
    """The file's bytes decoded, nothing removed (front matter, MIME headers and encodings included)."""
    return [decode_bytes(path.read_bytes())]


def pdf_plain(path: Path) -> list[str]:
    """PyMuPDF's `page.get_text()`: the content-stream order, running headers and all."""
    with pymupdf.open(path) as doc:
        return [page.get_text() for page in doc]


def pdf_sorted(path: Path) -> list[str]:
    """PyMuPDF's `page.get_text(sort=True)`: lines sorted top to bottom, then left to right — columns interleave."""
    with pymupdf.open(path) as doc:
        return [page.get_text(sort=True) for page in doc]


def html_get_text(path: Path) -> list[str]:
    """BeautifulSoup's `get_text()` on the whole page: every visible string, boilerplate included."""
    soup = BeautifulSoup(path.read_text(encoding="utf-8"), "lxml")
    for tag in soup(["script", "style"]):
        tag.decompose()
    return [soup.get_text(" ")]


def html_trafilatura(path: Path) -> list[str]:
    """trafilatura's main-text extraction with its default settings."""
    return [trafilatura.extract(path.read_text(encoding="utf-8")) or ""]


# Per format, the parsers to compare; the kit's parser comes last.
PARSERS: dict[str, dict[str, Extractor]] = {
    "pdf": {
        "PyMuPDF get_text()": pdf_plain,
        "PyMuPDF get_text(sort=True)": pdf_sorted,
        "kit (reading order)": kit_parser,
    },
    "html": {
        "BeautifulSoup get_text()": html_get_text,
        "trafilatura": html_trafilatura,
        "kit (beautifulsoup4)": kit_parser,
    },
    "markdown": {"raw file": raw_file, "kit (front matter split off)": kit_parser},
    "email": {"raw .eml file": raw_file, "kit (headers + body)": kit_parser},
    "table": {"kit, tables='raw'": kit_parser_raw_tables, "kit, tables='sentences'": kit_parser},
}


def run_parser(extract: Extractor, paths: Sequence[Path]) -> tuple[dict[str, str], int, float]:
    """Parse every file: (its whole text by document id, number of documents made, seconds taken)."""
    texts, documents = {}, 0
    start = time.perf_counter()
    for path in paths:
        parts = extract(path)
        texts[source_name(path, DOCS_DIR)] = "\n\n".join(parts)
        documents += len(parts)
    return texts, documents, time.perf_counter() - start


def coverage(texts: dict[str, str], quotes: Sequence[Evidence]) -> tuple[float, float]:
    """(share of quotes found whole, share with at least half found as one piece) in their documents' texts."""
    if not quotes:
        return float("nan"), float("nan")
    whole = sum(quote_found(texts.get(e.doc, ""), e.quote) for e in quotes)
    half = sum(chunk_supports(texts.get(e.doc, ""), e.doc, e) for e in quotes)
    return whole / len(quotes), half / len(quotes)


def answers_found(texts: dict[str, str], questions: Sequence[Question]) -> float:
    """Share of the questions whose reference answer (or a variant) appears in their evidence documents' texts."""
    if not questions:
        return float("nan")
    found = [contains_answer(" ".join(texts.get(doc, "") for doc in q.evidence_docs), q.answers) for q in questions]
    return sum(found) / len(found)


def coverage_row(fmt: str, name: str, questions: Sequence[Question]) -> dict[str, object]:
    """Run one parser over every file of one format and measure what its text still holds."""
    paths = [p for p in course_files() if format_of(source_name(p, DOCS_DIR)) == fmt]
    quotes = [e for q in questions for e in q.evidence if format_of(e.doc) == fmt]
    answerable = [q for q in questions if q.answers and any(format_of(doc) == fmt for doc in q.evidence_docs)]
    texts, documents, seconds = run_parser(PARSERS[fmt][name], paths)
    whole, half = coverage(texts, quotes)
    return {
        "format": fmt,
        "parser": name,
        "documents": documents,
        "quotes": len(quotes),
        "quotes found": round(whole, 3),
        "≥ half found": round(half, 3),
        "answers found": round(answers_found(texts, answerable), 3),
        "documents/s": round(documents / seconds, 1),
    }


def coverage_table(questions: Sequence[Question], formats: Sequence[str] = tuple(PARSERS)) -> pd.DataFrame:
    """One row per (format, parser): quotes found whole and ≥ half, answers found, documents per second."""
    return pd.DataFrame([coverage_row(fmt, name, questions) for fmt in formats for name in PARSERS[fmt]])


def missed_quotes(questions: Sequence[Question], fmt: str, name: str) -> pd.DataFrame:
    """The evidence quotes of one format that one parser's text does not hold whole: (doc, quote)."""
    paths = [p for p in course_files() if format_of(source_name(p, DOCS_DIR)) == fmt]
    texts = run_parser(PARSERS[fmt][name], paths)[0]
    quotes = [e for q in questions for e in q.evidence if format_of(e.doc) == fmt]
    missed = [(e.doc, e.quote) for e in quotes if not quote_found(texts.get(e.doc, ""), e.quote)]
    return pd.DataFrame(missed, columns=["doc", "quote"])
