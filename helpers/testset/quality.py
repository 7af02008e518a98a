"""Automatic filters for generated question–answer pairs: the answer is in its chunk and short, the question
stands alone, names something specific and is not a copied sentence (`reasons` lists the rules a pair breaks).
What it leaves out: whether the answer is *right* (the agreement check and the review widget are for that).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher

from helpers.testset.generate import Generated

MAX_ANSWER_WORDS = 12
COPY_SHARE = 0.6
POINTERS = re.compile(
    r"\b(the|this|that|above|following|given) (passage|text|document|excerpt|paragraph|section|context|notice)\b"
    r"|\b(above|below|mentioned here|according to it)\b|^(it|this|that|they|these)\b",
    re.IGNORECASE,
)


def _fold(text: str) -> str:
    return " ".join(text.lower().split())


def grounded(pair: Generated) -> bool:
    """The answer occurs in the chunk."""
    return bool(pair.answer.strip()) and _fold(pair.answer).strip(" .") in _fold(pair.chunk_text)


def standalone(question: str) -> bool:
    """The question can be asked without the chunk in front of you."""
    question = question.strip()
    words = question.split()
    specific = any(word[:1].isupper() or any(ch.isdigit() for ch in word) for word in words[1:])
    return question.endswith("?") and len(words) >= 4 and specific and not POINTERS.search(question)


def copied(question: str, chunk_text: str) -> bool:
    """Most of the question is one contiguous run of the chunk."""
    q, c = _fold(question).rstrip("?"), _fold(chunk_text)
    if not q:
        return False
    match = SequenceMatcher(None, q, c, autojunk=False).find_longest_match(0, len(q), 0, len(c))
    return match.size / len(q) > COPY_SHARE


def reasons(pair: Generated) -> list[str]:
    """Every rule the pair breaks (an empty list: keep it)."""
    if not pair.question.strip() or not pair.answer.strip():
        return ["empty"]
    found = []
    if not grounded(pair):
        found.append("answer not in chunk")
    if len(pair.answer.split()) > MAX_ANSWER_WORDS:
        found.append("answer too long")
    if _fold(pair.answer) in _fold(pair.question):
        found.append("answer in question")
    if not standalone(pair.question):
        found.append("not standalone")
    if copied(pair.question, pair.chunk_text):
        found.append("copied sentence")
    return found


def apply_filters(pairs: Sequence[Generated]) -> list[Generated]:
    """Fill in each pair's `reasons` (in place) and return the pairs."""
    for pair in pairs:
        pair.reasons = reasons(pair)
    return list(pairs)
