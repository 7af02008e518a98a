"""The self-checks of the capstone (notebook 12), and the tables its hidden tests run the student's choice on, tables
the student never saw: another setting made to win on dev (`rigged_dev_rows`), or on added test rows.
What it leaves out: the prose answer (graded by hand with its rubric).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pandas as pd

from helpers.byod.capstone import REPORT_KEYS, Setting, reference_choice, report_on_test
from helpers.exercises.base import not_yet, require_answer, right, self_check, verdict

DECOY_COPIES = 3  # decoy test rows per dev row: enough to outweigh every dev score


def _other(rows: pd.DataFrame, setting: Setting) -> str | None:
    """The name of a setting of `rows` that is not `setting` (None when there is none)."""
    return next((name for name in rows.setting.unique() if name != setting.name), None)


def rigged_dev_rows(dev_rows: pd.DataFrame) -> pd.DataFrame:
    """The dev rows with the rule's choice made worthless and another setting perfect: the rule now picks that one."""
    rigged, best = dev_rows.copy(), reference_choice(dev_rows)
    other = _other(rigged, best)
    if other is not None:
        rigged.loc[rigged.setting == best.name, ["f1", "em", "answer_in_top_k"]] = 0.0
        rigged.loc[rigged.setting == other, ["f1", "em", "answer_in_top_k"]] = 1.0
    return rigged


def with_decoy_test_rows(dev_rows: pd.DataFrame, chosen: Setting) -> pd.DataFrame:
    """The dev rows, then test copies of them on which another setting than `chosen` scores 1 and `chosen` 0."""
    other = _other(dev_rows, chosen)
    decoys = []
    for copy in range(DECOY_COPIES if other is not None else 0):
        decoy = dev_rows.assign(split="test", id=[f"decoy{copy}-{i}" for i in dev_rows.id])
        decoy["f1"] = (decoy.setting == other).astype(float)
        decoys.append(decoy)
    return pd.concat([dev_rows, *decoys], ignore_index=True)


def report_mismatches(report: Any, expected: dict[str, Any]) -> list[str]:
    """The keys of `report` whose value differs from `expected` (floats within 1e-9; a missing key differs)."""

    def same(a: Any, b: Any) -> bool:
        if isinstance(b, float):
            both_nan = isinstance(a, float) and math.isnan(a) and math.isnan(b)
            return isinstance(a, (int, float)) and (both_nan or math.isclose(a, b, abs_tol=1e-9))
        return a == b

    return [key for key in REPORT_KEYS if key not in report or not same(report[key], expected[key])]


@self_check
def check_choice(choose: Callable[[pd.DataFrame], Any], dev_rows: pd.DataFrame) -> bool:
    """Right when `choose(dev_rows)` is the `Setting` the kit's rule picks from the dev rows."""
    chosen = choose(dev_rows)
    require_answer(chosen)
    if not isinstance(chosen, Setting):
        return not_yet(f"return a Setting(retriever, k), got a {type(chosen).__name__}")
    if chosen.name not in set(dev_rows.setting):
        return not_yet(f"{chosen.name} was not measured on dev: choose one of the settings in dev_rows")
    best = reference_choice(dev_rows)
    means = dev_rows.groupby("setting").f1.mean()
    if math.isclose(means[chosen.name], means[best.name]):
        message = "it ties on F1 with another setting: break the tie by answer-in-top-k, then by the smaller k"
        return verdict(chosen == best, f"{chosen.name} has the best mean dev F1.", message)
    return not_yet("another setting has a higher mean F1 on the dev rows (the mean over the answerable questions)")


@self_check
def check_report(report: Any, test_rows: pd.DataFrame, chosen: Setting, default: Setting) -> bool:
    """Right when every number of `report` is what the kit computes from `test_rows` for `chosen` and `default`."""
    require_answer(report)
    if not isinstance(report, dict):
        return not_yet(f"report should be a dict with the keys {', '.join(REPORT_KEYS)}, got a {type(report).__name__}")
    wrong = report_mismatches(report, report_on_test(test_rows, chosen, default))
    if wrong:
        return not_yet(f"these entries are not right yet: {', '.join(wrong)}")
    return right(f"test F1 {report['f1']:.3f} on {report['questions']} answerable questions.")
