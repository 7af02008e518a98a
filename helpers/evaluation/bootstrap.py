"""Paired bootstrap significance: is system B really better than system A on the same questions? The pairs are
redrawn 10,000 times (seeded, the "bootstrap" slot); p (one-sided) is the share of draws whose mean gain is <= 0.
What it leaves out: corrections for many comparisons (an ablation table makes several) and non-mean metrics.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from helpers.mechanisms import chosen

RESAMPLES = 10_000


@dataclass(frozen=True)
class BootstrapResult:
    """Mean difference B - A, its 95 % interval and the p-values, over `n` paired questions."""

    mean_diff: float
    ci_low: float
    ci_high: float
    p_one_sided: float
    p_two_sided: float
    n: int

    def __str__(self) -> str:
        return (
            f"diff {self.mean_diff:+.3f} (95% CI {self.ci_low:+.3f} … {self.ci_high:+.3f}), "
            f"p = {self.p_one_sided:.4f} one-sided, {self.p_two_sided:.4f} two-sided, n = {self.n}"
        )


def resampled_mean_differences(a: np.ndarray, b: np.ndarray, resamples: int = RESAMPLES, seed: int = 0) -> np.ndarray:
    """The kit's "bootstrap" slot: mean(b - a) of each of `resamples` seeded redraws of the pairs, with replacement."""
    diffs = b - a
    rng = np.random.default_rng(seed)
    indices = rng.integers(0, len(diffs), size=(resamples, len(diffs)))  # one row of question indices per redraw
    return diffs[indices].mean(axis=1)


def paired_bootstrap(
    baseline: Sequence[float], system: Sequence[float], resamples: int = RESAMPLES, seed: int = 0
) -> BootstrapResult:
    """Paired bootstrap of mean(system - baseline); pairs with a missing (NaN) score on either side are dropped."""
    a, b = np.asarray(baseline, dtype=float), np.asarray(system, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"paired scores need the same questions: {a.shape} vs {b.shape}")
    paired = ~(np.isnan(a) | np.isnan(b))
    a, b = a[paired], b[paired]
    diffs = b - a
    if len(diffs) == 0:
        nan = float("nan")
        return BootstrapResult(nan, nan, nan, nan, nan, 0)
    means = np.asarray(chosen("bootstrap", resampled_mean_differences)(a, b, resamples, seed), dtype=float)
    low, high = np.percentile(means, [2.5, 97.5])
    p_le, p_ge = float(np.mean(means <= 0)), float(np.mean(means >= 0))
    return BootstrapResult(
        float(diffs.mean()), float(low), float(high), p_le, min(1.0, 2 * min(p_le, p_ge)), len(diffs)
    )
