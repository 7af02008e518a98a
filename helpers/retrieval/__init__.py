"""Retrieval: dense, BM25 and hybrid retrievers behind one interface, plus the steps around them.

    >>> hits = pipeline.make_retriever("hybrid", alpha=0.6).retrieve("When is the ADS 530 exam?", k=5)

What it leaves out: reranking, multi-query and follow-up rewriting (notebook 06).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

from helpers.retrieval.base import Memoized, Retriever, stored_chunks
from helpers.retrieval.bm25 import TOKENIZERS, BM25Retriever, stemmed_tokenize, tokenize
from helpers.retrieval.bm25_file import SavedBM25, SavedBM25Retriever, bm25_for_store, save_bm25_beside
from helpers.retrieval.dense import DenseRetriever
from helpers.retrieval.expansion import Expanded, expand_query, load_synonyms
from helpers.retrieval.hybrid import HybridRetriever, min_max, rescored_fusion, rrf_fusion, weighted_fusion
from helpers.retrieval.metadata_match import matches
from helpers.retrieval.periods import PeriodAware, older_versions
from helpers.retrieval.postprocess import PostProcessed, above_threshold, dedupe_by_source
from helpers.retrieval.store_hybrid import StoreBM25Retriever, StoreHybridRetriever, store_keywords, store_problem
from helpers.retrieval.window import Neighbours, StoreNeighbours, Windowed
from helpers.store.client import bm25_in_store

if TYPE_CHECKING:
    from helpers.config import RetrievalSettings
    from helpers.embedding import Embedder
    from helpers.store import KitStore

PARAMS = {"alpha", "rrf_k", "pool", "rescore", "expand", "dedupe", "fetch_multiplier", "threshold", "bm25", "dense",
          "window", "period_aware"}  # fmt: skip

# The base retrievers by name (to add one: its own file, a branch in `_base`, its name here and in
# helpers.config.RETRIEVERS: a test keeps them in step), and how each hybrid fuses.
NAMES = ("dense", "bm25", "hybrid", "hybrid_rrf")
FUSION_OF = {"hybrid": "weighted", "hybrid_rrf": "rrf"}
TUNING = {"alpha": "hybrid_alpha", "rrf_k": "rrf_k", "pool": "hybrid_pool", "rescore": "hybrid_rescore"}  # and settings


def _base(
    name: str, store: KitStore, embedder: Embedder, settings: RetrievalSettings, params: dict[str, Any]
) -> Retriever:
    """The retriever `name` alone: BM25 inside Qdrant when configured and possible, else bm25s in this kernel."""
    tokenizer, fusion = TOKENIZERS[settings.bm25_tokenizer], FUSION_OF.get(name, "")
    tuning = {key: params.get(key, getattr(settings, field)) for key, field in TUNING.items()}
    if name != "dense" and bm25_in_store(settings.bm25_backend, store.client) and not {"bm25", "dense"} & set(params):
        problem = store_problem(store, settings)
        if problem is None and name == "bm25":
            return StoreBM25Retriever(store, tokenizer)
        if problem is None:
            return StoreHybridRetriever(store, embedder, tokenizer, fusion, **tuning)
        backend = settings.bm25_backend
        warnings.warn(f"bm25_backend = {backend!r}: {problem}. BM25 runs in this kernel instead.", stacklevel=3)
    dense = params.get("dense") or DenseRetriever(store, embedder)
    if name == "dense":
        return dense
    bm25 = params.get("bm25") or bm25_for_store(store, tokenizer)  # saved, or fitted
    return bm25 if name == "bm25" else HybridRetriever(dense, bm25, fusion, **tuning)


def make_retriever(
    name: str | None, store: KitStore, embedder: Embedder, settings: RetrievalSettings, **params: Any
) -> Retriever:
    """A retriever by name over `store`; unset params come from `settings` (`Settings.retrieval`).

    params: alpha, rrf_k, pool (hybrid candidates per side), rescore, expand, dedupe, fetch_multiplier, threshold,
    window, period_aware, and the sides to reuse: bm25 (a fitted `BM25Retriever`) and dense (e.g. `Memoized`).
    """
    name = name or settings.retriever
    if name not in NAMES:
        raise ValueError(f"unknown retriever {name!r}; choose one of: {', '.join(NAMES)}")
    if set(params) - PARAMS:
        raise ValueError(f"unknown parameter(s) {sorted(set(params) - PARAMS)}; known: {', '.join(sorted(PARAMS))}")
    retriever = _base(name, store, embedder, settings, params)
    multiplier = params.get("fetch_multiplier", settings.fetch_multiplier)
    # the academic year the question names: a filter inside the store; none named: the newest versions first
    if params.get("period_aware", settings.period_aware):
        retriever = PeriodAware(retriever, store, multiplier)
    # steps behind it: over-fetch, dedupe by source, threshold
    dedupe = params.get("dedupe", settings.dedupe_by_source)
    threshold = params.get("threshold", settings.similarity_threshold) or None
    if dedupe or threshold is not None:
        retriever = PostProcessed(retriever, threshold, dedupe, multiplier)
    # what the reader gets: each hit with its neighbouring chunks, touching hits merged, near-copies dropped
    window = params.get("window", settings.context_window)
    if window or settings.near_duplicate:
        # the chunks of a fitted BM25 handed in, else each hit's source file asked of Qdrant; none for window 0
        neighbours = None
        if window:
            neighbours = Neighbours(params["bm25"].chunks) if params.get("bm25") else StoreNeighbours(store)
        retriever = Windowed(retriever, neighbours, window, settings.near_duplicate, multiplier)
    # the step in front: query expansion
    if params.get("expand", settings.query_expansion):
        retriever = Expanded(retriever)
    return retriever


__all__ = [
    "NAMES",
    "BM25Retriever",
    "DenseRetriever",
    "Expanded",
    "HybridRetriever",
    "Memoized",
    "Neighbours",
    "PeriodAware",
    "PostProcessed",
    "Retriever",
    "SavedBM25",
    "SavedBM25Retriever",
    "StoreBM25Retriever",
    "StoreHybridRetriever",
    "Windowed",
    "above_threshold",
    "bm25_for_store",
    "dedupe_by_source",
    "expand_query",
    "load_synonyms",
    "make_retriever",
    "matches",
    "min_max",
    "older_versions",
    "rescored_fusion",
    "rrf_fusion",
    "save_bm25_beside",
    "stemmed_tokenize",
    "store_keywords",
    "stored_chunks",
    "tokenize",
    "weighted_fusion",
]
