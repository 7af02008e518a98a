"""Dense retrieval: embed the query, ask Qdrant for the nearest chunks by cosine similarity (`scores["dense"]`);
a student's "top_k" slot ranks the collection's own vectors instead.
What it leaves out: keyword matching (a rare code such as "ADS 530"): BM25 and hybrid search (bm25.py, hybrid.py).
"""

from __future__ import annotations

import numpy as np

from helpers.embedding import Embedder
from helpers.embedding.similarity import cosine_top_k, unit_rows
from helpers.mechanisms import chosen, yours
from helpers.retrieval.base import Filters
from helpers.store import KitStore
from helpers.types import Hit


class DenseRetriever:
    """Nearest chunks in the Qdrant store to the query's embedding."""

    def __init__(self, store: KitStore, embedder: Embedder) -> None:
        self.store, self.embedder = store, embedder
        self._vectors: tuple[tuple[str, str], list, np.ndarray] | None = None  # (version, filter), nodes, unit rows

    def __repr__(self) -> str:
        return "Dense"

    def retrieve(self, query: str, k: int, filters: Filters | None = None) -> list[Hit]:
        """Top-k chunks by cosine similarity (the store turns the filter into Qdrant conditions)."""
        if yours("top_k"):
            return self.by_your_top_k(query, k, filters)
        return self.store.search(self.embedder.embed_query(query), k, filters=filters)

    def ranked(self, query: str, k: int, deep: int, filters: Filters | None = None) -> list[Hit]:
        """The top k hits, then down to `deep` only ids and scores: what rescoring a hybrid's candidates reads."""
        if yours("top_k") or deep <= k:
            return self.retrieve(query, max(k, deep), filters)
        return self.store.search_ranked(self.embedder.embed_query(query), k, deep, filters)

    def by_your_top_k(self, query: str, k: int, filters: Filters | None = None) -> list[Hit]:
        """Top-k chunks by the "top_k" slot's function over the stored vectors (unit rows, like Qdrant's cosine)."""
        self.store.check_vectors()
        key = (self.store.points_version() or str(self.store.count()), repr(filters))  # a re-ingest: new version
        if self._vectors is None or self._vectors[0] != key:
            nodes = self.store.nodes(filters)
            if not nodes:
                return []
            matrix = unit_rows(np.asarray([node.embedding for node in nodes], dtype=np.float32).reshape(len(nodes), -1))
            self._vectors = (key, nodes, matrix)
        _, nodes, matrix = self._vectors
        pairs = chosen("top_k", cosine_top_k)(matrix, np.asarray(self.embedder.embed_query(query)), k)
        return [
            Hit(nodes[row].node_id, nodes[row].get_content(), dict(nodes[row].metadata), {"dense": float(score)})
            for row, score in pairs
        ]
