"""Cosine top-k over a matrix: the k rows most similar to a query, the kit's function for the `top_k` slot.

    >>> cosine_top_k(vectors, embedder.embed_query("How much is the fee?"), k=5)   # [(row, cosine), ...]

Rows and query are scaled to length 1 unless they already are; a stable sort keeps equal scores in row order.
What it leaves out: approximate search (HNSW, Qdrant's, notebook 04) and any other similarity than the cosine.
"""

from __future__ import annotations

import numpy as np

UNIT_TOLERANCE = 1e-3  # a length this close to 1 counts as 1: float16 shipped vectors are within ~1e-3


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    """`matrix` (or one vector) with every row of length 1, as it is when it already is (a zero row stays zero)."""
    norms = np.sqrt(np.einsum("...i,...i->...", matrix, matrix))[..., None]  # np.linalg.norm, without its copies
    if np.all((np.abs(norms - 1) <= UNIT_TOLERANCE) | (norms == 0)):
        return matrix  # unit (or zero) rows already: dividing again would only add rounding
    return matrix / np.where(norms == 0, 1, norms)


def cosine_top_k(matrix: np.ndarray, query: np.ndarray, k: int) -> list[tuple[int, float]]:
    """(row, cosine) of the k rows of `matrix` most similar to `query`, best first; ties in row order."""
    if k <= 0 or len(matrix) == 0:
        return []
    scores = unit_rows(np.asarray(matrix)) @ unit_rows(np.asarray(query))
    best = np.argsort(-scores, kind="stable")[:k]
    return [(int(row), float(scores[row])) for row in best]
