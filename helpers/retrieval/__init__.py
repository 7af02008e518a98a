"""Retrieval: dense, BM25 and hybrid retrievers behind one interface, plus the steps around them.

    >>> retriever = make_retriever("hybrid", pipeline, alpha=0.6)
    >>> hits = retriever.retrieve("When is the ADS 530 exam?", k=5, filters={"doc_type": "pdf"})
    >>> hits[0].scores   # {"dense": 0.61, "sparse": 14.2, "fused": 0.93}

Like minbpe's variants, each retriever has its own file: `dense.py` (Qdrant), `bm25.py` (bm25s),
`hybrid.py` (weighted sum of min-max-normalised scores, or reciprocal rank fusion). Wrappers add a step in
front or behind any of them: `Expanded` (synonym table, expansion.py) and `PostProcessed` (over-fetch,
dedupe by source, threshold; postprocess.py). Filters are plain dicts (filters.py). `compare.py` measures
them on the gold questions (notebook 05).
What it leaves out: reranking, multi-query and follow-up rewriting (notebook 06).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from helpers.retrieval.base import Filters, Memoized, Retriever, stored_chunks
from helpers.retrieval.bm25 import TOKENIZERS, BM25Retriever, stemmed_tokenize, tokenize
from helpers.retrieval.dense import DenseRetriever
from helpers.retrieval.expansion import Expanded, expand_query, load_synonyms
from helpers.retrieval.filters import matches
from helpers.retrieval.hybrid import HybridRetriever, min_max, rrf_fusion, weighted_fusion
from helpers.retrieval.postprocess import PostProcessed, above_threshold, dedupe_by_source

if TYPE_CHECKING:
    from helpers.pipeline import RAGPipeline

NAMES = ("dense", "bm25", "hybrid", "hybrid_rrf")  # = helpers.config.RETRIEVERS
PARAMS = {"alpha", "rrf_k", "pool", "expand", "dedupe", "fetch_multiplier", "threshold", "bm25", "dense"}


def make_retriever(name: str | None, pipeline: RAGPipeline, **params: Any) -> Retriever:
    """A retriever by name over the pipeline's store; unset params come from the pipeline's settings.

    params: alpha, rrf_k, pool (hybrid candidates per side), expand, dedupe, fetch_multiplier, threshold,
    and the sides to reuse: bm25 (an already fitted `BM25Retriever`, to skip the refit) and dense (e.g. `Memoized`).
    """
    settings = pipeline.settings
    name = name or settings.retriever
    if name not in NAMES:
        raise ValueError(f"unknown retriever {name!r}; choose one of: {', '.join(NAMES)}")
    if set(params) - PARAMS:
        raise ValueError(f"unknown parameter(s) {sorted(set(params) - PARAMS)}; known: {', '.join(sorted(PARAMS))}")
    # 1. the base retriever
    dense = params.get("dense") or DenseRetriever(pipeline.store, pipeline.embedder)
    retriever: Retriever = dense
    if name != "dense":
        tokenizer = TOKENIZERS[settings.bm25_tokenizer]
        bm25 = params.get("bm25") or BM25Retriever.from_store(pipeline.store, tokenizer=tokenizer)
        pool = params.get("pool", settings.hybrid_pool)
        if name == "bm25":
            retriever = bm25
        elif name == "hybrid":
            alpha = params.get("alpha", settings.hybrid_alpha)
            retriever = HybridRetriever(dense, bm25, "weighted", alpha=alpha, pool=pool)
        else:
            retriever = HybridRetriever(dense, bm25, "rrf", rrf_k=params.get("rrf_k", settings.rrf_k), pool=pool)
    # 2. steps behind it: over-fetch, dedupe by source, threshold
    dedupe = params.get("dedupe", settings.dedupe_by_source)
    threshold = params.get("threshold", settings.similarity_threshold) or None
    if dedupe or threshold is not None:
        multiplier = params.get("fetch_multiplier", settings.fetch_multiplier)
        retriever = PostProcessed(retriever, threshold, dedupe, multiplier)
    # 3. the step in front: query expansion
    if params.get("expand", settings.query_expansion):
        retriever = Expanded(retriever)
    return retriever


__all__ = [
    "NAMES",
    "BM25Retriever",
    "DenseRetriever",
    "Expanded",
    "Filters",
    "HybridRetriever",
    "Memoized",
    "PostProcessed",
    "Retriever",
    "above_threshold",
    "dedupe_by_source",
    "expand_query",
    "load_synonyms",
    "make_retriever",
    "matches",
    "min_max",
    "rrf_fusion",
    "stemmed_tokenize",
    "stored_chunks",
    "tokenize",
    "weighted_fusion",
]
