"""The self-check of notebook 03's exercise: a cosine similarity written by hand.

`check_cosine(cosine_similarity)` calls the student's function on seeded vectors of several lengths (2-d ones
you can do in your head, and 384-d ones like MiniLM's, unit length or not) and compares it with
u·v / (|u| |v|) computed here. It names the usual slips — the bare dot product, which equals the cosine only
for unit vectors; one length instead of both — and never prints the expected values.
What it leaves out: the embedder itself; the exercise compares the function with its vectors in the notebook.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from helpers.exercises.base import number_function_verdict, self_check

TOLERANCE = 1e-4  # float32 vectors: agree to 4 decimals


def _cosine(u: np.ndarray, v: np.ndarray) -> float:
    """The reference: u·v / (|u| |v|)."""
    return float(u @ v / (np.linalg.norm(u) * np.linalg.norm(v)))


def _pairs(seed: int = 0, dimension: int = 384) -> list[tuple[np.ndarray, np.ndarray]]:
    """Test pairs: 2-d by-hand ones, opposite and scaled copies, random 384-d ones of unit and other lengths."""
    rng = np.random.default_rng(seed)
    a, b = rng.standard_normal(dimension), rng.standard_normal(dimension)
    unit = a / np.linalg.norm(a)
    return [
        (np.array([3.0, 4.0]), np.array([4.0, 3.0])),
        (np.array([1.0, 2.0]), np.array([-2.0, -4.0])),
        (a * 2.5, a * 0.3),
        (a * 3.0, b * 0.5),
        (unit, b / np.linalg.norm(b)),
        (unit.astype(np.float32), (a + 0.5 * b).astype(np.float32)),
    ]


def _cosine_slip(u: np.ndarray, v: np.ndarray, got: float) -> str:
    """What a wrong cosine of (u, v) looks like: the dot product, one length only, out of range, or else."""
    if abs(got - float(u @ v)) <= TOLERANCE * max(1.0, abs(float(u @ v))):
        return "that is the dot product: it equals the cosine only for vectors of length 1 — divide by both lengths"
    if any(abs(got - float(u @ v / np.linalg.norm(x))) <= TOLERANCE for x in (u, v)):
        return "divide by the product of *both* vectors' lengths (np.linalg.norm of each)"
    if got < -1 - TOLERANCE or got > 1 + TOLERANCE:
        return "a cosine lies between -1 and 1; yours left that range for vectors that are not unit length"
    return f"the cosine of a {len(u)}-d pair is off; check the formula u·v / (|u| |v|)"


@self_check
def check_cosine(function: Callable[[np.ndarray, np.ndarray], float] | None) -> bool:
    """Right when `function(u, v)` gives the cosine similarity of vectors of any length."""
    right = "your cosine matches u·v / (|u| |v|) for unit and non-unit vectors, 2-d and 384-d."
    what = "one number (a float) for a pair of vectors"
    return number_function_verdict(
        function, "cosine_similarity", _pairs(), _cosine, what, TOLERANCE, _cosine_slip, right
    )
