"""Hybrid retrieval: ask a dense and a keyword retriever, then fuse their two rankings into one.

Two ways to fuse (both keep each hit's "dense" and "sparse" scores and add "fused"):
- weighted sum (seed 001): min-max normalise each list's scores to [0, 1] — cosine similarities and BM25
  scores live on different scales — then `alpha * dense + (1 - alpha) * sparse`; a chunk missing from one
  list gets 0 there. alpha = 1 is pure dense, 0 pure BM25; the seed's default is 0.6.
- reciprocal rank fusion (RRF): ignore the scores, sum `1 / (rrf_k + rank)` over the lists a chunk appears
  in (rank from 1, rrf_k = 60 as in the original paper). No scale to tune, no weight to choose.
Each side is asked for `pool` candidates (more than k), so a chunk ranked 15th by one side and 2nd by the
other can still win.
What it leaves out: fusion inside Qdrant (`Prefetch` + `FusionQuery`) — the same maths, done by the server.
"""

from __future__ import annotations

from collections.abc import Sequence

from helpers.retrieval.base import Filters, Retriever, copy_hit
from helpers.types import Hit

FUSIONS = ("weighted", "rrf")


def min_max(scores: Sequence[float]) -> list[float]:
    """Scale scores to [0, 1]: the lowest becomes 0, the highest 1 (all 1.0 if they are equal)."""
    low, high = min(scores, default=0.0), max(scores, default=0.0)
    if high == low:
        return [1.0 for _ in scores]
    return [(s - low) / (high - low) for s in scores]


def weighted_fusion(dense: Sequence[Hit], sparse: Sequence[Hit], alpha: float = 0.6) -> list[Hit]:
    """One list, ranked by alpha * min-max(dense) + (1 - alpha) * min-max(sparse)."""
    # 1. normalise each side separately: node id -> score in [0, 1]
    dense_norm = dict(zip((h.node_id for h in dense), min_max([h.scores["dense"] for h in dense]), strict=True))
    sparse_norm = dict(zip((h.node_id for h in sparse), min_max([h.scores["sparse"] for h in sparse]), strict=True))
    # 2. one hit per chunk, carrying the scores of both sides
    merged = _merge(dense, sparse)
    # 3. weighted sum; a side that did not return the chunk contributes 0
    fused = [
        copy_hit(h, fused=alpha * dense_norm.get(h.node_id, 0.0) + (1 - alpha) * sparse_norm.get(h.node_id, 0.0))
        for h in merged
    ]
    return sorted(fused, key=lambda h: -h.scores["fused"])


def rrf_fusion(rankings: Sequence[Sequence[Hit]], rrf_k: int = 60) -> list[Hit]:
    """One list, ranked by the sum over rankings of 1 / (rrf_k + rank)."""
    fused: dict[str, float] = {}
    for ranking in rankings:
        for rank, hit in enumerate(ranking, start=1):
            fused[hit.node_id] = fused.get(hit.node_id, 0.0) + 1.0 / (rrf_k + rank)
    merged = _merge(*rankings)
    return sorted((copy_hit(h, fused=fused[h.node_id]) for h in merged), key=lambda h: -h.scores["fused"])


def _merge(*rankings: Sequence[Hit]) -> list[Hit]:
    """Each chunk once, in order of first appearance, with the stage scores of every list that has it."""
    merged: dict[str, Hit] = {}
    for ranking in rankings:
        for hit in ranking:
            merged[hit.node_id] = copy_hit(merged[hit.node_id], **hit.scores) if hit.node_id in merged else hit
    return list(merged.values())


class HybridRetriever:
    """Dense + keyword retrieval, fused by weighted sum or by reciprocal rank fusion."""

    def __init__(
        self,
        dense: Retriever,
        sparse: Retriever,
        fusion: str = "weighted",
        alpha: float = 0.6,
        rrf_k: int = 60,
        pool: int = 30,
    ) -> None:
        if fusion not in FUSIONS:
            raise ValueError(f"fusion must be one of {FUSIONS}, got {fusion!r}")
        if not 0.0 <= alpha <= 1.0:
            raise ValueError(f"alpha (the dense weight) must be between 0 and 1, got {alpha}")
        self.dense, self.sparse = dense, sparse
        self.fusion, self.alpha, self.rrf_k, self.pool = fusion, alpha, rrf_k, pool

    def retrieve(self, query: str, k: int, filters: Filters | None = None) -> list[Hit]:
        """Ask both sides for `pool` candidates (at least k), fuse, keep the top k."""
        depth = max(k, self.pool)
        dense = self.dense.retrieve(query, depth, filters)
        sparse = self.sparse.retrieve(query, depth, filters)
        if self.fusion == "rrf":
            return rrf_fusion([dense, sparse], self.rrf_k)[:k]
        return weighted_fusion(dense, sparse, self.alpha)[:k]
