"""What every reranker shares: the `Reranker` protocol, ordering by a new score, and a retriever wrapper.

A reranker reads the query and one candidate together (a model call per chunk), so it only sees the first stage's
top N; each reranked hit gains `scores["rerank"]`, and `Reranked` makes "retrieve N, rerank, keep k" a `Retriever`.
What it leaves out: the models themselves (cross_encoder.py, llm.py, finetune.py) and listwise reranking.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from helpers.config import RerankSettings
from helpers.retrieval.base import Filters, Retriever, copy_hit
from helpers.types import Hit


@runtime_checkable
class Reranker(Protocol):
    """Anything that re-orders candidate hits for a query."""

    name: str

    def rerank(self, query: str, hits: Sequence[Hit], top_n: int) -> list[Hit]:
        """The best `top_n` of `hits` by a new relevance score, best first, each with `scores["rerank"]`."""
        ...


def passage_text(hit: Hit) -> str:
    """What a reranker reads of a chunk: its document title (if any), then its text."""
    title = str(hit.metadata.get("title") or "").strip()
    return f"{title}: {hit.text}" if title else hit.text


def order_by_scores(hits: Sequence[Hit], scores: Sequence[float], top_n: int) -> list[Hit]:
    """Copies of the hits with their rerank score, best first (ties keep the first-stage order), cut to top_n."""
    if len(hits) != len(scores):
        raise ValueError(f"{len(hits)} hits but {len(scores)} scores")
    scored = [copy_hit(hit, rerank=float(score)) for hit, score in zip(hits, scores, strict=True)]
    return sorted(scored, key=lambda h: -h.scores["rerank"])[:top_n]  # sorted() is stable


class Reranked:
    """A retriever followed by a reranker: fetch the top `depth`, rerank them, keep k."""

    def __init__(self, retriever: Retriever, reranker: Reranker, depth: int = RerankSettings().rerank_depth) -> None:
        if depth < 1:
            raise ValueError(f"depth (the number of candidates to rerank) must be at least 1, got {depth}")
        self.retriever, self.reranker, self.depth = retriever, reranker, depth

    def __repr__(self) -> str:
        name = getattr(self.reranker, "name", type(self.reranker).__name__)
        return f"Reranked({self.retriever!r}; {name}, top {self.depth})"

    def retrieve(self, query: str, k: int, filters: Filters | None = None) -> list[Hit]:
        """The first stage's top max(depth, k), reranked, cut to k."""
        candidates = self.retriever.retrieve(query, max(self.depth, k), filters)
        return self.reranker.rerank(query, candidates, k)
