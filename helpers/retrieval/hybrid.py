"""Hybrid retrieval: ask a dense and a keyword retriever (`pool` candidates each), fuse the two rankings into one.

Weighted sum (the TUM chatbot's): `alpha * min-max(dense) + (1 - alpha) * min-max(sparse)`; or reciprocal rank
fusion: the sum of `1 / (rrf_k + rank)`. The arithmetic is the slots "fusion" and "rrf". With `rescore` each side
ranks deeper, so a candidate only one side returned is scored by the other too instead of counting 0 there.
What it leaves out: fusion inside Qdrant (store_hybrid.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from helpers.config import RetrievalSettings
from helpers.mechanisms import chosen
from helpers.retrieval.base import Filters, Retriever, copy_hit
from helpers.types import Hit

FUSIONS = ("weighted", "rrf")
DEFAULTS = RetrievalSettings()  # the configured alpha, rrf_k and pool: their one home is helpers.config


def min_max(scores: Sequence[float]) -> list[float]:
    """Scale scores to [0, 1]: the lowest becomes 0, the highest 1 (all 1.0 if they are equal)."""
    low, high = min(scores, default=0.0), max(scores, default=0.0)
    if high == low:
        return [1.0 for _ in scores]
    return [(s - low) / (high - low) for s in scores]


def min_max_fusion(dense: dict[str, float], sparse: dict[str, float], alpha: float) -> dict[str, float]:
    """alpha * min-max(dense) + (1 - alpha) * min-max(sparse) for every id of either side (0 where a side lacks it)."""
    # 1. normalise each side separately: id -> score in [0, 1]
    dense_norm = dict(zip(dense, min_max(list(dense.values())), strict=True))
    sparse_norm = dict(zip(sparse, min_max(list(sparse.values())), strict=True))
    # 2. weighted sum; a side that did not return the id contributes 0
    return {key: alpha * dense_norm.get(key, 0.0) + (1 - alpha) * sparse_norm.get(key, 0.0) for key in dense | sparse}


def rrf_scores(rankings: list[list[str]], k: int) -> dict[str, float]:
    """Reciprocal rank fusion: each id's sum over the rankings that hold it of 1 / (k + rank), rank from 1."""
    fused: dict[str, float] = {}
    for ranking in rankings:
        for rank, key in enumerate(ranking, start=1):
            fused[key] = fused.get(key, 0.0) + 1.0 / (k + rank)
    return fused


def fusion_label(fusion: str, alpha: float, rrf_k: int, rescore: int = 0) -> str:
    """How a hybrid fuses, in a few words: "weighted α 0.5", "weighted α 0.5 rescored from 3000" or "RRF k 60"."""
    if fusion != "weighted":
        return f"RRF k {rrf_k}"
    return f"weighted α {alpha}" + (f" rescored from {rescore}" if rescore else "")


def rescore_depth(fusion: str, depth: int, rescore: int) -> int:
    """How deep each side ranks: `depth`, or `rescore` when the weighted fusion rescores (RRF uses ranks only)."""
    return max(depth, rescore) if fusion == "weighted" and rescore else depth


def weighted_fusion(dense: Sequence[Hit], sparse: Sequence[Hit], alpha: float = DEFAULTS.hybrid_alpha) -> list[Hit]:
    """One list, ranked by the fusion in force (the kit's: alpha * min-max(dense) + (1 - alpha) * min-max(sparse))."""
    fuse = chosen("fusion", min_max_fusion)
    fused = fuse({h.node_id: h.scores["dense"] for h in dense}, {h.node_id: h.scores["sparse"] for h in sparse}, alpha)
    return _ranked(_merge(dense, sparse), fused)


def rescored_fusion(
    dense: Sequence[Hit], sparse: Sequence[Hit], depth: int, deep: int, alpha: float = DEFAULTS.hybrid_alpha
) -> list[Hit]:
    """`weighted_fusion` of each side's top `depth`, every candidate scored on both sides from lists ranked `deep`.

    A candidate missing from a side's list scores that side's lowest listed score if the list is full (it was cut
    there), else 0 (that side does not hold it: BM25 shares no word with the query).
    """
    candidates = _merge(dense[:depth], sparse[:depth])
    by_side = []
    for hits, stage in ((dense, "dense"), (sparse, "sparse")):
        scores = {h.node_id: h.scores[stage] for h in hits}
        floor = min(scores.values()) if scores and len(hits) >= deep else 0.0
        by_side.append({h.node_id: scores.get(h.node_id, floor) for h in candidates})
    fused = chosen("fusion", min_max_fusion)(by_side[0], by_side[1], alpha)
    rescored = [copy_hit(h, dense=by_side[0][h.node_id], sparse=by_side[1][h.node_id]) for h in candidates]
    return _ranked(rescored, fused)


def fuse(
    fusion: str, dense: list[Hit], sparse: list[Hit], k: int, depth: int, deep: int, alpha: float, rrf_k: int
) -> list[Hit]:
    """Both sides' lists, ranked `deep`, fused as configured: the top k (weighted and deeper than `depth`: rescored)."""
    if fusion == "rrf":
        return rrf_fusion([dense, sparse], rrf_k)[:k]
    if deep > depth:
        return rescored_fusion(dense, sparse, depth, deep, alpha)[:k]
    return weighted_fusion(dense, sparse, alpha)[:k]


def rrf_fusion(rankings: Sequence[Sequence[Hit]], rrf_k: int = DEFAULTS.rrf_k) -> list[Hit]:
    """One list, ranked by the RRF in force (the kit's: the sum over rankings of 1 / (rrf_k + rank))."""
    fused = chosen("rrf", rrf_scores)([[h.node_id for h in ranking] for ranking in rankings], rrf_k)
    return _ranked(_merge(*rankings), fused)


def _ranked(merged: list[Hit], fused: Mapping[str, float]) -> list[Hit]:
    """The merged hits with their fused score (0 for an id the fusion left out), best first."""
    if not isinstance(fused, Mapping):
        raise TypeError(
            f"the fusion function in use returned a {type(fused).__name__}; it must return a dict of id -> fused score "
            "(helpers.mechanisms.reset() restores the kit's)"
        )
    hits = (copy_hit(h, fused=float(fused.get(h.node_id, 0.0))) for h in merged)
    return sorted(hits, key=lambda h: -h.scores["fused"])


def _merge(*rankings: Sequence[Hit]) -> list[Hit]:
    """Each chunk once, in order of first appearance, with the stage scores of every list that has it."""
    merged: dict[str, Hit] = {}
    for ranking in rankings:
        for hit in ranking:
            merged[hit.node_id] = copy_hit(merged[hit.node_id], **hit.scores) if hit.node_id in merged else hit
    return list(merged.values())


def check_fusion(fusion: str, alpha: float) -> None:
    """Raise ValueError unless `fusion` is one of FUSIONS and the dense weight `alpha` lies in [0, 1]."""
    if fusion not in FUSIONS:
        raise ValueError(f"fusion must be one of {FUSIONS}, got {fusion!r}")
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha (the dense weight) must be between 0 and 1, got {alpha}")


class HybridRetriever:
    """Dense + keyword retrieval, fused by weighted sum or by reciprocal rank fusion."""

    def __init__(
        self,
        dense: Retriever,
        sparse: Retriever,
        fusion: str = "weighted",
        alpha: float = DEFAULTS.hybrid_alpha,
        rrf_k: int = DEFAULTS.rrf_k,
        pool: int = DEFAULTS.hybrid_pool,
        rescore: int = DEFAULTS.hybrid_rescore,
    ) -> None:
        check_fusion(fusion, alpha)
        self.dense, self.sparse = dense, sparse
        self.fusion, self.alpha, self.rrf_k, self.pool, self.rescore = fusion, alpha, rrf_k, pool, rescore

    def __repr__(self) -> str:
        fusion = fusion_label(self.fusion, self.alpha, self.rrf_k, self.rescore)
        return f"Hybrid({self.dense!r}, {self.sparse!r}; {fusion}, pool {self.pool})"

    def retrieve(self, query: str, k: int, filters: Filters | None = None) -> list[Hit]:
        """Ask both sides for `pool` candidates (at least k), fuse, keep the top k (`rescore`: ranked deeper)."""
        depth = max(k, self.pool)
        deep = rescore_depth(self.fusion, depth, self.rescore)
        ranked = getattr(self.dense, "ranked", None)  # past the candidates only scores are read: no payload needed
        dense = ranked(query, depth, deep, filters) if ranked else self.dense.retrieve(query, deep, filters)
        sparse = self.sparse.retrieve(query, deep, filters)
        return fuse(self.fusion, dense, sparse, k, depth, deep, self.alpha, self.rrf_k)
