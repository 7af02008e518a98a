"""Dense retrieval: embed the query, ask Qdrant for the nearest chunks by cosine similarity.

This is the retriever of notebooks 03–04, behind the common `Retriever` interface: the score is the
cosine similarity in [-1, 1] (in practice 0.0–0.8 with MiniLM), stored as `scores["dense"]`.
What it leaves out: keyword matching — a rare code such as "ADS 530" or "MDC 110" is only as close as its
neighbours in embedding space, which is why BM25 and hybrid search exist (bm25.py, hybrid.py).
"""

from __future__ import annotations

from helpers.embedding import Embedder
from helpers.retrieval.base import Filters
from helpers.store import KitStore
from helpers.types import Hit


class DenseRetriever:
    """Nearest chunks in the Qdrant store to the query's embedding."""

    def __init__(self, store: KitStore, embedder: Embedder) -> None:
        self.store = store
        self.embedder = embedder

    def __repr__(self) -> str:
        return "Dense"

    def retrieve(self, query: str, k: int, filters: Filters | None = None) -> list[Hit]:
        """Top-k chunks by cosine similarity (the store turns the filter into Qdrant conditions)."""
        return self.store.search(self.embedder.embed_query(query), k, filters=filters)
