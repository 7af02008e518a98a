"""Retrieval: dense, BM25 and hybrid retrievers behind one interface, plus the steps around them.

    >>> retriever = make_retriever("hybrid", store, embedder, settings.retrieval, alpha=0.6)
    >>> retriever = pipeline.make_retriever("hybrid", alpha=0.6)   # the same, with the pipeline's parts
    >>> hits = retriever.retrieve("When is the ADS 530 exam?", k=5, filters={"doc_type": "pdf"})
    >>> hits[0].scores   # {"dense": 0.61, "sparse": 14.2, "fused": 0.93}

Like minbpe's variants, each retriever has its own file: `dense.py` (Qdrant), `bm25.py` (bm25s; `bm25_file.py`
keeps its fitted index beside a local-mode collection, so a kernel starts without reading every chunk),
`hybrid.py` (weighted sum of min-max-normalised scores, or reciprocal rank fusion), `store_hybrid.py` (BM25 and
hybrid inside Qdrant, from the chunks' sparse vectors: `bm25_backend = "store"`; where a collection cannot serve
them, one warning line and bm25s in the kernel instead). Wrappers add a step in
front or behind any of them: `Expanded` (synonym table, expansion.py) and `PostProcessed` (over-fetch,
dedupe by source, threshold; postprocess.py) and `Windowed` (neighbouring chunks for the reader, small-to-big;
window.py) and `PeriodAware` (the academic year a question names as a filter inside the store, else the newest
versions first; periods.py). Filters are plain dicts (metadata_match.py checks one chunk against them).
`helpers.lab.retrieval` measures the retrievers on the gold questions (notebook 05).
What it leaves out: reranking, multi-query and follow-up rewriting (notebook 06).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from helpers.retrieval.base import Filters, Memoized, Retriever, stored_chunks
from helpers.retrieval.bm25 import TOKENIZERS, BM25Retriever, stemmed_tokenize, tokenize
from helpers.retrieval.bm25_file import SavedBM25, SavedBM25Retriever, bm25_for_store, save_bm25_beside
from helpers.retrieval.dense import DenseRetriever
from helpers.retrieval.expansion import Expanded, expand_query, load_synonyms
from helpers.retrieval.hybrid import HybridRetriever, min_max, rrf_fusion, weighted_fusion
from helpers.retrieval.metadata_match import matches
from helpers.retrieval.periods import PeriodAware, newest_first, older_versions
from helpers.retrieval.postprocess import PostProcessed, above_threshold, dedupe_by_source
from helpers.retrieval.store_hybrid import StoreBM25Retriever, StoreHybridRetriever, store_keywords, store_problem
from helpers.retrieval.window import Neighbours, StoreNeighbours, Windowed, drop_near_duplicates, widen
from helpers.store.client import bm25_in_store

if TYPE_CHECKING:
    from helpers.config import RetrievalSettings
    from helpers.embedding import Embedder
    from helpers.store import KitStore

PARAMS = {"alpha", "rrf_k", "pool", "expand", "dedupe", "fetch_multiplier", "threshold", "bm25", "dense", "window",
          "period_aware"}  # fmt: skip

# Every base retriever by name: (dense side, a function that fits or reuses BM25, the retrieval section, params)
# -> Retriever.
# To add one: its own file, one entry here, its name in helpers.config.RETRIEVERS (a test keeps them in step).
Builder = Callable[[Retriever, Callable[[], BM25Retriever], "RetrievalSettings", dict[str, Any]], Retriever]
BUILDERS: dict[str, Builder] = {
    "dense": lambda dense, bm25, settings, params: dense,
    "bm25": lambda dense, bm25, settings, params: bm25(),
    "hybrid": lambda dense, bm25, settings, params: HybridRetriever(
        dense, bm25(), "weighted", alpha=params.get("alpha", settings.hybrid_alpha),
        pool=params.get("pool", settings.hybrid_pool),
    ),
    "hybrid_rrf": lambda dense, bm25, settings, params: HybridRetriever(
        dense, bm25(), "rrf", rrf_k=params.get("rrf_k", settings.rrf_k), pool=params.get("pool", settings.hybrid_pool)
    ),
}  # fmt: skip
NAMES = tuple(BUILDERS)  # = helpers.config.RETRIEVERS

# The same retrievers with BM25 inside Qdrant (bm25_backend = "store"): (store, embedder, the retrieval section,
# params) -> Retriever. "dense" is the same either way.
StoreBuilder = Callable[["KitStore", "Embedder", "RetrievalSettings", dict[str, Any]], Retriever]
STORE_BUILDERS: dict[str, StoreBuilder] = {
    "bm25": lambda store, embedder, settings, params: StoreBM25Retriever(store, TOKENIZERS[settings.bm25_tokenizer]),
    "hybrid": lambda store, embedder, settings, params: StoreHybridRetriever(
        store, embedder, TOKENIZERS[settings.bm25_tokenizer], "weighted",
        alpha=params.get("alpha", settings.hybrid_alpha), pool=params.get("pool", settings.hybrid_pool),
    ),
    "hybrid_rrf": lambda store, embedder, settings, params: StoreHybridRetriever(
        store, embedder, TOKENIZERS[settings.bm25_tokenizer], "rrf",
        rrf_k=params.get("rrf_k", settings.rrf_k), pool=params.get("pool", settings.hybrid_pool),
    ),
}  # fmt: skip


def make_retriever(
    name: str | None, store: KitStore, embedder: Embedder, settings: RetrievalSettings, **params: Any
) -> Retriever:
    """A retriever by name over `store` (queries embedded by `embedder`); unset params come from `settings`,
    the retrieval section (`Settings.retrieval`).

    params: alpha, rrf_k, pool (hybrid candidates per side), expand, dedupe, fetch_multiplier, threshold, window,
    period_aware, and the sides to reuse: bm25 (an already fitted `BM25Retriever`, to skip the refit) and dense
    (e.g. `Memoized`).
    """
    name = name or settings.retriever
    if name not in BUILDERS:
        raise ValueError(f"unknown retriever {name!r}; choose one of: {', '.join(NAMES)}")
    if set(params) - PARAMS:
        raise ValueError(f"unknown parameter(s) {sorted(set(params) - PARAMS)}; known: {', '.join(sorted(PARAMS))}")

    def bm25() -> BM25Retriever:
        return params.get("bm25") or bm25_for_store(store, TOKENIZERS[settings.bm25_tokenizer])  # saved, or fitted

    # 1. the base retriever: BM25 inside Qdrant when so configured and the collection can (and no side is handed
    #    in to reuse), else bm25s fitted here
    retriever: Retriever | None = None
    in_store = bm25_in_store(settings.bm25_backend, store.client)
    if in_store and name in STORE_BUILDERS and not {"bm25", "dense"} & set(params):
        problem = store_problem(store, settings)
        if problem is None:
            retriever = STORE_BUILDERS[name](store, embedder, settings, params)
        else:
            backend = settings.bm25_backend
            warnings.warn(f"bm25_backend = {backend!r}: {problem}. BM25 runs in this kernel instead.", stacklevel=2)
    if retriever is None:
        dense = params.get("dense") or DenseRetriever(store, embedder)
        retriever = BUILDERS[name](dense, bm25, settings, params)
    # 1b. the academic year the question names: a filter inside the store; none named: the newest versions first
    if params.get("period_aware", settings.period_aware):
        retriever = PeriodAware(retriever, store, params.get("fetch_multiplier", settings.fetch_multiplier))
    # 2. steps behind it: over-fetch, dedupe by source, threshold
    dedupe = params.get("dedupe", settings.dedupe_by_source)
    threshold = params.get("threshold", settings.similarity_threshold) or None
    if dedupe or threshold is not None:
        multiplier = params.get("fetch_multiplier", settings.fetch_multiplier)
        retriever = PostProcessed(retriever, threshold, dedupe, multiplier)
    # 3. what the reader gets: each hit with its neighbouring chunks, touching hits merged, near-copies dropped
    window = params.get("window", settings.context_window)
    if window or settings.near_duplicate:
        # the chunks of a fitted BM25 handed in, else each hit's source file asked of Qdrant when needed;
        # none at all when only copies are dropped (window 0), so nothing reads the collection
        neighbours = None
        if window:
            neighbours = Neighbours(params["bm25"].chunks) if params.get("bm25") else StoreNeighbours(store)
        multiplier = params.get("fetch_multiplier", settings.fetch_multiplier)
        retriever = Windowed(retriever, neighbours, window, settings.near_duplicate, multiplier)
    # 4. the step in front: query expansion
    if params.get("expand", settings.query_expansion):
        retriever = Expanded(retriever)
    return retriever


__all__ = [
    "BUILDERS",
    "NAMES",
    "BM25Retriever",
    "DenseRetriever",
    "Expanded",
    "Filters",
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
    "StoreNeighbours",
    "Windowed",
    "above_threshold",
    "bm25_for_store",
    "dedupe_by_source",
    "drop_near_duplicates",
    "expand_query",
    "load_synonyms",
    "make_retriever",
    "matches",
    "min_max",
    "newest_first",
    "older_versions",
    "rrf_fusion",
    "save_bm25_beside",
    "stemmed_tokenize",
    "store_keywords",
    "store_problem",
    "stored_chunks",
    "tokenize",
    "weighted_fusion",
    "widen",
]
