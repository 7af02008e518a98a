"""Hybrid search inside Qdrant (`bm25_backend = "store"`): each chunk keeps a BM25 sparse vector beside its dense
one, so dense and BM25 candidates come from the store: "weighted" fuses both lists with the kit's fusion, "rrf" is
one Query API call fused by Qdrant. A student's own `bm25`, `top_k` or `rrf` runs in the kernel (`kernel()`).
What it leaves out: DBSF and formula queries, and the steps around a retriever (`helpers.retrieval`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from qdrant_client import models

from helpers.config import RetrievalSettings
from helpers.embedding import Embedder
from helpers.mechanisms import yours
from helpers.retrieval.base import Filters, Retriever, copy_hit
from helpers.retrieval.bm25 import TOKENIZERS
from helpers.retrieval.bm25_file import bm25_for_store
from helpers.retrieval.dense import DenseRetriever
from helpers.retrieval.hybrid import DEFAULTS, HybridRetriever, check_fusion, fuse, fusion_label, rescore_depth
from helpers.store import KitStore
from helpers.store.keywords import SPARSE_VECTOR, Keywords, query_vector
from helpers.types import Hit


def store_keywords(settings: RetrievalSettings) -> Keywords:
    """How the store makes BM25 vectors for these settings: the configured tokenizer, by name."""
    return Keywords(settings.bm25_tokenizer, TOKENIZERS[settings.bm25_tokenizer])


def store_problem(store: KitStore, settings: RetrievalSettings) -> str | None:
    """Why BM25 cannot run inside this collection, with what to do (None: it can)."""
    if yours("bm25"):
        return "a bm25 function of your own is in use (helpers.mechanisms), and only the kernel can run it"
    problem = store.keywords_problem(settings.bm25_tokenizer)
    if problem:
        return f"{problem}; ingest again with bm25_backend = 'store' to add them in place"
    return None


class StoreBM25Retriever:
    """Keyword search by Qdrant: the chunks' BM25 vectors against the query's."""

    def __init__(self, store: KitStore, tokenizer: Callable[[str], list[str]]) -> None:
        self.store, self.tokenizer = store, tokenizer
        self._kernel: Retriever | None = None

    def vector(self, query: str) -> models.SparseVector | None:
        """The query's BM25 vector: each token's count (None when it holds no word BM25 keeps)."""
        tokens = self.tokenizer(query)
        return query_vector(tokens) if tokens else None

    def __repr__(self) -> str:
        return "BM25 in Qdrant"

    def kernel(self) -> Retriever:
        """The same ranking in this kernel (bm25s over the stored chunks), where a student's `bm25` can run."""
        if self._kernel is None:
            self._kernel = bm25_for_store(self.store, self.tokenizer)
        return self._kernel

    def retrieve(self, query: str, k: int, filters: Filters | None = None) -> list[Hit]:
        """Top-k chunks by BM25 score; chunks that share no word with the query are never returned."""
        if yours("bm25"):
            return self.kernel().retrieve(query, k, filters)
        sparse = self.vector(query)
        if sparse is None:
            return []
        found = self.store.client.query_points(
            self.store.collection,
            query=sparse,
            using=SPARSE_VECTOR,
            limit=k,
            query_filter=self.store.qdrant_filter(filters),
            with_payload=True,
        ).points
        return self.store.hits(found, "sparse")


class StoreHybridRetriever:
    """Dense + BM25 candidates from Qdrant in one request, fused by Qdrant (RRF) or by the kit (weighted)."""

    def __init__(
        self,
        store: KitStore,
        embedder: Embedder,
        tokenizer: Callable[[str], list[str]],
        fusion: str = "weighted",
        alpha: float = DEFAULTS.hybrid_alpha,
        rrf_k: int = DEFAULTS.rrf_k,
        pool: int = DEFAULTS.hybrid_pool,
        rescore: int = DEFAULTS.hybrid_rescore,
    ) -> None:
        check_fusion(fusion, alpha)
        self.store, self.embedder = store, embedder
        self.sparse = StoreBM25Retriever(store, tokenizer)
        self.fusion, self.alpha, self.rrf_k, self.pool, self.rescore = fusion, alpha, rrf_k, pool, rescore
        self._kernel: Retriever | None = None

    def __repr__(self) -> str:
        fusion = fusion_label(self.fusion, self.alpha, self.rrf_k, self.rescore)
        return f"Hybrid(Dense, {self.sparse!r}; {fusion}, pool {self.pool})"

    def kernel(self) -> Retriever:
        """The same hybrid in this kernel, where a student's `top_k` and `bm25` can run: dense by the slot, bm25s."""
        if self._kernel is None:
            dense = DenseRetriever(self.store, self.embedder)
            tuning = self.alpha, self.rrf_k, self.pool, self.rescore
            self._kernel = HybridRetriever(dense, self.sparse.kernel(), self.fusion, *tuning)
        return self._kernel

    def retrieve(self, query: str, k: int, filters: Filters | None = None) -> list[Hit]:
        """Both sides' `pool` candidates (at least k) in one request, fused; the top k."""
        if yours("bm25") or yours("top_k"):
            return self.kernel().retrieve(query, k, filters)
        self.store.check_vectors()  # the dense side compares this embedder's query with the stored vectors
        depth, flt = max(k, self.pool), self.store.qdrant_filter(filters)
        vector = [float(x) for x in self.embedder.embed_query(query)]
        if self.fusion == "rrf" and not yours("rrf"):
            return self.fused_by_qdrant(vector, query, k, depth, flt)
        deep = rescore_depth(self.fusion, depth, self.rescore)
        dense, sparse = self.both_lists(vector, query, depth, flt, deep)
        return fuse(self.fusion, dense, sparse, k, depth, deep, self.alpha, self.rrf_k)

    def both_lists(
        self, vector: list[float], query: str, depth: int, flt: models.Filter | None, deep: int = 0
    ) -> tuple[list[Hit], list[Hit]]:
        """The dense and the BM25 candidates with their scores: one batch of queries. Ranked `deep` (rescoring), each
        list goes on past the candidates with ids and scores only, from a second query without payload."""
        sides: list[tuple[str, object, str | None]] = [("dense", vector, None)]
        sparse = self.sparse.vector(query)
        if sparse is not None:
            sides.append(("sparse", sparse, SPARSE_VECTOR))
        requests = [models.QueryRequest(query=q, using=using, limit=depth, filter=flt, with_payload=True)
                    for _, q, using in sides]  # fmt: skip
        if deep > depth:
            requests += [models.QueryRequest(query=q, using=using, limit=deep, filter=flt, with_payload=False)
                         for _, q, using in sides]  # fmt: skip
        answers = self.store.client.query_batch_points(self.store.collection, requests=requests)
        lists = []
        for i, (stage, _, _) in enumerate(sides):
            top = self.store.hits(answers[i].points, stage)
            seen = {hit.node_id for hit in top}
            rest = self.store.scores_only(answers[i + len(sides)].points, stage) if deep > depth else []
            lists.append(top + [hit for hit in rest if hit.node_id not in seen][: deep - len(top)])
        return lists[0], lists[1] if sparse is not None else []

    def fused_by_qdrant(
        self, vector: list[float], query: str, k: int, depth: int, flt: models.Filter | None
    ) -> list[Hit]:
        """One Query API call: both prefetches, fused by Qdrant's RRF; each hit's cosine from its own vector."""
        prefetch = [models.Prefetch(query=vector, limit=depth, filter=flt)]
        sparse = self.sparse.vector(query)
        if sparse is not None:
            prefetch.append(models.Prefetch(query=sparse, using=SPARSE_VECTOR, limit=depth, filter=flt))
        found = self.store.client.query_points(
            self.store.collection,
            prefetch=prefetch,
            query=models.RrfQuery(rrf=models.Rrf(k=self.rrf_k + 1)),  # ranks from 0 in Qdrant, from 1 in the kit
            limit=k,
            with_payload=True,
            with_vectors=True,
        ).points
        q = np.asarray(vector) / (np.linalg.norm(vector) or 1.0)
        hits = []
        for hit, point in zip(self.store.hits(found, "fused"), found, strict=True):
            dense = np.asarray(point.vector.get("", []) if isinstance(point.vector, dict) else point.vector)
            cosine = float(q @ dense / (np.linalg.norm(dense) or 1.0)) if dense.size else None
            hits.append(copy_hit(hit, dense=cosine) if cosine is not None else hit)
        return hits
