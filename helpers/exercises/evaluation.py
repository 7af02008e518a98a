"""The self-check of notebook 08's exercise: which gains of the ablation ladder survive the bootstrap on EM.

`check_surviving_gains(answer, result, "em")` runs the same seeded paired bootstrap (`result.significance`,
milliseconds) and takes the rows whose gain over the row they build on has a one-sided p below 0.05, then
compares with the student's list of configuration names. It recognises F1's survivors, the comparison with
closed book instead of the row built on, and names that are no row of the ladder, without naming the answer.
What it leaves out: why EM's p-values are larger (the exercise's second question, answered in prose).
"""

from __future__ import annotations

from collections.abc import Iterable

from helpers.evaluation.ablation import AblationResult
from helpers.exercises.base import STUB_HINT, not_yet, self_check, verdict

ALPHA = 0.05  # a gain survives when fewer than 5 % of the resamples make it vanish


def surviving_gains(result: AblationResult, metric: str = "em", alpha: float = ALPHA, against: str = "") -> list[str]:
    """Configurations whose `metric` gain over the row they build on (or over `against`) has p_one_sided < alpha."""
    table = result.significance(metric)
    names = []
    for name in result.configurations[1:]:
        other = against or result.base_of(name)
        rows = table[(table.configuration == name) & (table.against == other)]
        if len(rows) and float(rows.p_one_sided.iloc[0]) < alpha:  # NaN (no paired questions) never survives
            names.append(name)
    return names


@self_check
def check_surviving_gains(answer: object, result: AblationResult, metric: str = "em", alpha: float = ALPHA) -> bool:
    """Right when `answer` lists exactly the rows whose `metric` gain over the row they build on has p < alpha."""
    if answer is None:
        return not_yet(STUB_HINT)
    if isinstance(answer, str) or not isinstance(answer, Iterable):
        return not_yet(f"the answer should be a list of configuration names, got a {type(answer).__name__}")
    listed = list(answer)
    if unknown := [name for name in listed if name not in result.configurations[1:]]:
        return not_yet(f"{unknown[0]!r} is not a row that builds on another: use the names in result.configurations")
    expected = surviving_gains(result, metric, alpha)
    if set(listed) == set(expected):
        survivors = (
            f"{len(expected)} of {len(result.configurations) - 1} gains survive" if expected else "no gain survives"
        )
        return verdict(True, f"{survivors} on {metric.upper()} at p < {alpha}.", "")
    other_metric = "f1" if metric != "f1" else "em"
    if set(listed) == set(surviving_gains(result, other_metric, alpha)):
        return not_yet(f"those survive on {other_metric.upper()}; run the bootstrap on {metric.upper()}")
    if set(listed) == set(surviving_gains(result, metric, alpha, against=result.configurations[0])):
        return not_yet("those are the gains over closed book; compare each row with the row it builds on")
    extra, missing = len(set(listed) - set(expected)), len(set(expected) - set(listed))
    parts = [
        f"{extra} listed row(s) do not survive" if extra else "",
        f"{missing} surviving row(s) missing" if missing else "",
    ]
    return not_yet(", ".join(p for p in parts if p) + f": read p_one_sided against the row each builds on (< {alpha})")
