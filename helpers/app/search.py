"""From knobs to a retriever: the kit's retrieval, rerank and query packages, wired by name.

    make_retriever(name, alpha)  →  Reranked (rerank on)  or  MultiQueryRetriever (multi-query on)
                                 →  SimilarityFloor (the knob "drop passages below cosine")

The floor is on the dense score: a fused or RRF score is rescaled per query, so only cosine similarity can say
"nothing here is close".
What it leaves out: choosing the retriever by measurement (notebook 05 does that; the app uses the knobs).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from helpers.app.knobs import Knobs
from helpers.pipeline import RAGPipeline
from helpers.types import Hit

Filters = dict[str, object]


class SimilarityFloor:
    """Any retriever, keeping only hits whose dense (cosine) similarity reaches `threshold`."""

    def __init__(self, retriever: Any, threshold: float) -> None:
        self.retriever, self.threshold = retriever, threshold

    def retrieve(self, query: str, k: int, filters: Filters | None = None) -> list[Hit]:
        """The inner hits at or above the floor; a hit only BM25 found has no cosine score and is dropped."""
        hits = self.retriever.retrieve(query, k, filters)
        return [hit for hit in hits if hit.scores.get("dense", -1.0) >= self.threshold]


class SearchBuilder:
    """Builds the retriever for a set of knobs, reusing the expensive parts (BM25 index, reranker)."""

    def __init__(self, pipeline: RAGPipeline) -> None:
        self.pipeline = pipeline
        self._bm25: Any = None
        self._reranker: Any = None
        self._in_store: bool | None = None

    def facets(self, key: str) -> list[str]:
        """The distinct values of one metadata field in the index, sorted, asked of the store (for the dropdowns)."""
        return self.pipeline.store.distinct_values(key)

    def keywords_in_store(self) -> bool:
        """Whether BM25 runs inside Qdrant (`bm25_backend`, and the collection has its vectors): nothing to fit."""
        if self._in_store is None:
            from helpers.retrieval.store_hybrid import store_problem
            from helpers.store.client import bm25_in_store

            settings = self.pipeline.settings.retrieval
            store = self.pipeline.store
            in_store = bm25_in_store(settings.bm25_backend, store.client)
            self._in_store = in_store and store_problem(store, settings) is None
        return self._in_store

    def bm25(self) -> Any:
        """The BM25 index over the stored chunks (once: the one saved beside a local-mode collection, else fitted)."""
        if self._bm25 is None:
            from helpers.retrieval import TOKENIZERS, bm25_for_store

            tokenizer = TOKENIZERS[self.pipeline.settings.retrieval.bm25_tokenizer]
            self._bm25 = bm25_for_store(self.pipeline.store, tokenizer)
        return self._bm25

    def reranker(self) -> Any:
        """The reranker the rerank knob uses (loaded once): the configured one, else MaxSim (no training, quick)."""
        if self._reranker is None:
            name = self.pipeline.settings.rerank.reranker
            self._reranker = self.pipeline.make_reranker(name if name != "none" else "maxsim")
        return self._reranker

    def base(self, knobs: Knobs) -> Any:
        """The first-stage retriever by name, sharing the one BM25 index."""
        sides = {} if knobs.retriever == "dense" or self.keywords_in_store() else {"bm25": self.bm25()}
        return self.pipeline.make_retriever(knobs.retriever, alpha=knobs.alpha, threshold=0.0, **sides)

    def build(self, knobs: Knobs) -> Any:
        """The whole retriever for these knobs."""
        retriever = self.base(knobs)
        depth = self.pipeline.settings.rerank.rerank_depth
        reranker = self.reranker() if knobs.rerank else None
        if knobs.multi_query:
            from helpers.llm.cache import CachedCompleter
            from helpers.query import MultiQueryRetriever

            llm = CachedCompleter.from_pipeline(self.pipeline)
            retriever = MultiQueryRetriever(retriever, llm, reranker=reranker, depth=depth)
        elif reranker is not None:
            from helpers.rerank import Reranked

            retriever = Reranked(retriever, reranker, depth=depth)
        return SimilarityFloor(retriever, knobs.drop_below) if knobs.drop_below > 0 else retriever

    def retrieve(self, query: str, knobs: Knobs) -> list[Hit]:
        """The hits for `query` under these knobs."""
        return self.build(knobs).retrieve(query, knobs.k, knobs.filters())


def standalone_query(pipeline: RAGPipeline, history: Sequence[dict[str, str]], question: str) -> str:
    """The question made standalone from the chat so far (notebook 06), as `settings.query.followup_rewrite` says."""
    method = pipeline.settings.query.followup_rewrite
    if not history or method == "none":
        return question
    from helpers.llm.cache import CachedCompleter
    from helpers.query import keyword_rewrite, llm_rewrite

    if method == "llm":
        return llm_rewrite(CachedCompleter.from_pipeline(pipeline), history, question)
    return keyword_rewrite(history, question)
