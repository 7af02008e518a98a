"""Retrieval metrics over ranked chunks against the gold evidence quotes: hit@k, recall@k, MRR, nDCG@k (binary).
A chunk *supports* a quote when it comes from its document and holds at least half of it (and at least 40
characters, or all of a shorter quote) as one piece, whitespace and case folded.
What it leaves out: graded relevance and running the retriever (the caller passes a `retrieve` function).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

import pandas as pd

from helpers.corpus import Evidence, Question
from helpers.types import Hit


def _fold(text: str) -> str:
    return " ".join(text.split()).lower()


def chunk_supports(chunk_text: str, chunk_source: str, evidence: Evidence) -> bool:
    """Whether a chunk holds enough of an evidence quote (same document, contiguous overlap)."""
    if chunk_source != evidence.doc:
        return False
    chunk, quote = _fold(chunk_text), _fold(evidence.quote)
    if quote in chunk:
        return True
    need = max(len(quote) // 2, min(len(quote), 40))
    match = SequenceMatcher(None, chunk, quote, autojunk=False).find_longest_match(0, len(chunk), 0, len(quote))
    return match.size >= need


def relevance_labels(hits: Sequence[Hit], evidence: Sequence[Evidence]) -> list[set[int]]:
    """For each ranked hit, the indices of the evidence quotes it supports."""
    return [{i for i, e in enumerate(evidence) if chunk_supports(h.text, h.source, e)} for h in hits]


def hit_at_k(labels: Sequence[set[int]], k: int) -> float:
    """1.0 if any of the top k supports any quote."""
    return float(any(labels[:k]))


def recall_at_k(labels: Sequence[set[int]], k: int, n_evidence: int) -> float:
    """Share of the evidence quotes supported within the top k."""
    covered = set().union(*labels[:k]) if labels[:k] else set()
    return len(covered) / n_evidence if n_evidence else 0.0


def mrr(labels: Sequence[set[int]]) -> float:
    """Reciprocal rank of the first supporting chunk (0 if none)."""
    return next((1.0 / rank for rank, found in enumerate(labels, start=1) if found), 0.0)


def ndcg_at_k(labels: Sequence[set[int]], k: int, n_evidence: int) -> float:
    """nDCG@k with gain 1 for each supporting chunk, ideal = min(k, quotes) supporting chunks on top."""
    dcg = sum(1.0 / math.log2(rank + 1) for rank, found in enumerate(labels[:k], start=1) if found)
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(k, n_evidence) + 1))
    return dcg / ideal if ideal else 0.0


def score_row(question: Question, labels: Sequence[set[int]], ks: Sequence[int], n_evidence: int) -> dict[str, object]:
    """One question's row of scores: its id and category, hit@k and recall@k for each k, and MRR."""
    row: dict[str, object] = {"id": question.id, "category": question.category}
    for k in ks:
        row[f"hit@{k}"] = hit_at_k(labels, k)
        row[f"recall@{k}"] = recall_at_k(labels, k, n_evidence)
    return row | {"mrr": mrr(labels)}


@dataclass
class RetrievalScores:
    """Per-question metrics as a table, with means overall and by category."""

    per_question: pd.DataFrame

    def mean(self) -> pd.Series:
        """Average of every metric over all questions."""
        return self.per_question.drop(columns=["id", "category"]).mean()

    def by_category(self) -> pd.DataFrame:
        """Average of every metric per question category."""
        return self.per_question.drop(columns=["id"]).groupby("category").mean()


def evaluate_retrieval(
    questions: Sequence[Question],
    retrieve: Callable[[Question], Sequence[Hit]],
    ks: Sequence[int] = (1, 5, 10),
    progress: bool = False,
) -> RetrievalScores:
    """Run `retrieve` on every question that has evidence and score the rankings."""
    from tqdm.auto import tqdm

    rows: list[Mapping[str, object]] = []
    answerable = [q for q in questions if q.evidence]
    for question in tqdm(answerable, desc="retrieval eval", disable=not progress):
        labels = relevance_labels(list(retrieve(question)), question.evidence)
        n = len(question.evidence)
        rows.append(score_row(question, labels, ks, n) | {f"ndcg@{max(ks)}": ndcg_at_k(labels, max(ks), n)})
    return RetrievalScores(pd.DataFrame(rows))
