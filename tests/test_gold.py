"""The gold question set checks itself against the corpus, as the kit's own parser reads it."""

from __future__ import annotations

from collections import Counter

import pytest
from course_subset import parsed_text

from helpers.corpus import CATEGORIES, DOCS_DIR, GOLD_PATH, load_gold

QUESTIONS = load_gold() if GOLD_PATH.exists() else []


def _fold(text: str) -> str:
    return " ".join(text.split())


def test_gold_set_is_big_balanced_and_split() -> None:
    assert len(QUESTIONS) >= 250
    assert len({q.id for q in QUESTIONS}) == len(QUESTIONS), "duplicate ids"
    per_category = Counter(q.category for q in QUESTIONS)
    assert set(per_category) <= set(CATEGORIES)
    small = {c: per_category[c] for c in CATEGORIES if per_category[c] < 15}
    assert not small, f"categories with fewer than 15 questions: {small}"
    dev_share = sum(q.split == "dev" for q in QUESTIONS) / len(QUESTIONS)
    assert 0.4 <= dev_share <= 0.6
    assert load_gold(split="dev") and load_gold(split="test")


@pytest.mark.parametrize("question", [q for q in QUESTIONS if q.evidence], ids=lambda q: q.id)
def test_evidence_is_verbatim_and_answer_is_in_it(question) -> None:
    for evidence in question.evidence:
        assert (DOCS_DIR / evidence.doc).is_file(), f"{question.id}: no document {evidence.doc}"
        assert _fold(evidence.quote) in parsed_text(evidence.doc), f"{question.id}: quote not in {evidence.doc}"
    if question.extractive:
        quotes = " ".join(_fold(e.quote).lower() for e in question.evidence)
        assert _fold(question.answer).lower() in quotes, f"{question.id}: answer {question.answer!r} not in quotes"


def test_unanswerable_questions_have_no_answer_and_conversations_have_history() -> None:
    for question in QUESTIONS:
        if question.category == "unanswerable":
            assert not question.answer and not question.evidence, question.id
        if question.category == "conversational":
            assert question.history, f"{question.id}: a follow-up needs its chat history"


def test_course_files_lists_every_format() -> None:
    from helpers.corpus import course_files

    suffixes = {p.suffix for p in course_files()}
    assert {".pdf", ".html", ".csv", ".eml", ".md"} <= suffixes
