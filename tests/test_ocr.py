"""OCR of the handbook's scanned page: detected, read (where Tesseract's data is installed), or named and skipped."""

from __future__ import annotations

import logging

import pytest

from helpers.config import REPO_ROOT
from helpers.corpus import DOCS_DIR, load_gold
from helpers.parsing import ocr
from helpers.parsing.pdf import pdf_pages

HANDBOOK = DOCS_DIR / "handbook" / "program_handbook_2026-27.pdf"
SOURCE = REPO_ROOT / "course_data" / "build" / "scanned_notice.txt"
QUESTIONS = load_gold(path=REPO_ROOT / "course_data" / "gold" / "scanned_page.jsonl")
NO_OCR = "Tesseract language data not installed (apt-get install tesseract-ocr)"
needs_ocr = pytest.mark.skipif(not ocr.ocr_available(), reason=NO_OCR)


def _fold(text: str) -> str:
    return " ".join(text.split()).lower()


def test_the_handbook_ends_with_one_image_only_page() -> None:
    assert ocr.scanned_pages(HANDBOOK) == [50]


def test_scanned_page_questions_quote_the_source_text() -> None:
    source = _fold(SOURCE.read_text(encoding="utf-8"))
    assert len(QUESTIONS) >= 5
    for question in QUESTIONS:
        for evidence in question.evidence:
            assert _fold(evidence.quote) in source, question.id
        assert _fold(question.answer) in " ".join(_fold(e.quote) for e in question.evidence), question.id


def test_character_accuracy() -> None:
    assert ocr.character_accuracy("abc def", "abc  def") == 1.0
    assert ocr.character_accuracy("abd", "abc") == pytest.approx(2 / 3)
    assert ocr.character_accuracy("", "abc") == 0.0


def test_without_ocr_the_page_is_named_and_skipped(monkeypatch, caplog) -> None:
    monkeypatch.setattr("helpers.parsing.pdf.ocr_available", lambda: False)
    with caplog.at_level(logging.WARNING):
        pages = pdf_pages(HANDBOOK)
    assert 50 not in [number for number, _ in pages] and len(pages) == 49
    assert "program_handbook_2026-27.pdf: page 50 is a scanned image" in caplog.text
    assert "apt-get install tesseract-ocr" in caplog.text


@needs_ocr
def test_ocr_reads_the_scanned_page_and_its_quotes() -> None:
    number, text = pdf_pages(HANDBOOK)[-1]
    assert number == 50
    assert ocr.character_accuracy(text, SOURCE.read_text(encoding="utf-8")) >= 0.95
    found = sum(_fold(e.quote) in _fold(text) for q in QUESTIONS for e in q.evidence)
    assert found >= len(QUESTIONS) - 1  # OCR may garble one quote, not more
