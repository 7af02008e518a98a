"""Answer-based relevance: a chunk is relevant when it comes from an evidence document and holds a reference answer
(SQuAD-normalised, whole words), fair to any parse of the document; recall@k then equals hit@k.
What it leaves out: whether the chunk holds the answer *for the right row* (a number in two rows counts twice).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd

from helpers.corpus import Question
from helpers.metrics.answers import normalize_answer
from helpers.metrics.retrieval import RetrievalScores, score_row
from helpers.types import Hit


def contains_answer(text: str, answers: Sequence[str]) -> bool:
    """Whether the normalised text holds any normalised answer as whole words."""
    haystack = f" {normalize_answer(text)} "
    return any(f" {needle} " in haystack for needle in (normalize_answer(a) for a in answers) if needle)


def holding_answer(hits: Sequence[Hit], question: Question) -> list[int]:
    """The 1-based positions of the hits that hold a reference answer (whole words, SQuAD-normalised)."""
    answers = question.answers
    return [n for n, hit in enumerate(hits, start=1) if answers and contains_answer(hit.text, answers)]


def answer_relevant(hit: Hit, question: Question) -> bool:
    """A hit is relevant when it comes from an evidence document and contains an acceptable answer."""
    return hit.source in question.evidence_docs and contains_answer(hit.text, question.answers)


def answer_labels(hits: Sequence[Hit], question: Question) -> list[set[int]]:
    """Relevance labels in the shape the metrics expect: {0} for a relevant hit, the empty set otherwise."""
    return [{0} if answer_relevant(hit, question) else set() for hit in hits]


def evaluate_answer_retrieval(
    questions: Sequence[Question], retrieve: Callable[[Question], Sequence[Hit]], ks: Sequence[int] = (1, 5, 10)
) -> RetrievalScores:
    """Run `retrieve` on every answerable question with evidence and score hit@k, recall@k and MRR."""
    answerable = [q for q in questions if q.evidence and q.answers]
    rows = [score_row(q, answer_labels(list(retrieve(q)), q), ks, n_evidence=1) for q in answerable]
    return RetrievalScores(pd.DataFrame(rows))
