"""The self-check of notebook 06's exercise: late interaction (MaxSim) written by hand.

`check_maxsim(maxsim_by_hand)` calls the student's function on seeded token matrices (rows L2-normalised, as
MiniLM's token vectors are; several shapes, one token each side included) and compares it with the kit's
`helpers.rerank.maxsim.maxsim`. It names the usual slips — the max over the wrong side, the mean of every cosine,
the single best pair, a sum instead of a mean — and never prints the expected scores.
What it leaves out: the token vectors themselves (MiniLM); the exercise compares with the reranker's score.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from helpers.exercises.base import number_function_verdict, self_check
from helpers.rerank.maxsim import maxsim

TOLERANCE = 1e-5
MaxSim = Callable[[np.ndarray, np.ndarray], float]


def token_matrices(seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    """(query tokens, passage tokens) pairs of several shapes, each row L2-normalised."""
    rng = np.random.default_rng(seed)

    def unit_rows(n: int, dimension: int = 16) -> np.ndarray:
        m = rng.standard_normal((n, dimension)).astype(np.float32)
        return m / np.linalg.norm(m, axis=1, keepdims=True)

    return [
        (unit_rows(4), unit_rows(9)),
        (unit_rows(7), unit_rows(3)),
        (unit_rows(1), unit_rows(5)),
        (unit_rows(6), unit_rows(1)),
    ]


def _slips(q: np.ndarray, p: np.ndarray) -> dict[str, float]:
    """What the usual wrong formulas give, each with the hint that explains it."""
    sims = q @ p.T
    return {
        "each *query* token finds its best passage token: take the max over the passage tokens (axis 1), "
        "then the mean over the query tokens": float(sims.max(axis=0).mean()),
        "take the best passage token for each query token first (max), then average those": float(sims.mean()),
        "not only the single best pair: average the best cosine of every query token": float(sims.max()),
        "a mean, not a sum, over the query tokens (so long questions do not score higher)": float(
            sims.max(axis=1).sum()
        ),
    }


def _maxsim_slip(q: np.ndarray, p: np.ndarray, got: float) -> str:
    """The usual wrong formula a wrong MaxSim matches, else where to look."""
    expected = maxsim(q, p)
    for hint, value in _slips(q, p).items():
        if abs(got - value) <= TOLERANCE and abs(value - expected) > TOLERANCE:
            return hint
    return f"off for {len(q)} query and {len(p)} passage tokens: max over passage tokens, mean over query tokens"


@self_check
def check_maxsim(function: MaxSim | None) -> bool:
    """Right when `function(query_vectors, passage_vectors)` equals the kit's MaxSim on seeded token matrices."""
    right = "your MaxSim equals the kit's on query and passage token matrices of several shapes."
    what = "one number for a (query, passage) pair"
    return number_function_verdict(
        function, "maxsim_by_hand", token_matrices(), maxsim, what, TOLERANCE, _maxsim_slip, right
    )
