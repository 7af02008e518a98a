"""Post-processing a ranking (the UChicago assistant's, the TUM chatbot's): over-fetch, dedupe by source, threshold.

The threshold compares `hit.score`, the last stage's: it means little for BM25 (unbounded) or RRF.
What it leaves out: reranking (notebook 06) and merging neighbouring chunks of the same source.
"""

from __future__ import annotations

from collections.abc import Sequence

from helpers.config import RetrievalSettings
from helpers.retrieval.base import Filters, Retriever
from helpers.types import Hit


def dedupe_by_source(hits: Sequence[Hit]) -> list[Hit]:
    """The best-scoring hit of each source, best first."""
    best: dict[str, Hit] = {}
    for hit in hits:
        if hit.source not in best or hit.score > best[hit.source].score:
            best[hit.source] = hit
    return sorted(best.values(), key=lambda h: -h.score)


def above_threshold(hits: Sequence[Hit], threshold: float) -> list[Hit]:
    """The hits whose final score is at least `threshold`, in their order."""
    return [hit for hit in hits if hit.score >= threshold]


class PostProcessed:
    """Any retriever, followed by over-fetch → dedupe by source → threshold → top k."""

    def __init__(
        self,
        retriever: Retriever,
        threshold: float | None = None,
        dedupe: bool = True,
        fetch_multiplier: int = RetrievalSettings().fetch_multiplier,
    ) -> None:
        if fetch_multiplier < 1:
            raise ValueError(f"fetch_multiplier must be at least 1, got {fetch_multiplier}")
        self.retriever = retriever
        self.threshold, self.dedupe, self.fetch_multiplier = threshold, dedupe, fetch_multiplier

    def __repr__(self) -> str:
        return f"PostProcessed({self.retriever!r}; threshold {self.threshold}, one per source {self.dedupe})"

    def retrieve(self, query: str, k: int, filters: Filters | None = None) -> list[Hit]:
        """The inner retriever's top k × fetch_multiplier, deduplicated and thresholded, cut to k."""
        hits = self.retriever.retrieve(query, k * self.fetch_multiplier, filters)
        if self.dedupe:
            hits = dedupe_by_source(hits)
        if self.threshold is not None:
            hits = above_threshold(hits, self.threshold)
        return hits[:k]
