"""Refusing well, measured without the reader: the refusal threshold, the input guard, the best similarity.
What it leaves out: scoring answers (`helpers.generation.scores`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from helpers.corpus import Question
from helpers.generation.answer import best_similarity
from helpers.generation.guard import check_input
from helpers.generation.scores import question_kind
from helpers.types import Hit


def tune_threshold(similarity: Sequence[float], should_refuse: Sequence[bool], max_lost: float = 0.02) -> pd.DataFrame:
    """For candidate thresholds: share of unanswerable questions caught and of answerable ones lost; the chosen
    one (`.attrs["best"]`) is the highest that loses at most `max_lost` of the answerable questions."""
    sims, refuse = np.asarray(similarity, dtype=float), np.asarray(should_refuse, dtype=bool)
    rows = []
    for t in np.round(np.arange(0.0, 0.71, 0.05), 2):
        below = sims < t
        rows.append(
            {"threshold": t, "unanswerable caught": below[refuse].mean(), "answerable lost": below[~refuse].mean()}
        )
    table = pd.DataFrame(rows).set_index("threshold")
    table.attrs["best"] = float(table.index[table["answerable lost"] <= max_lost].max())
    return table


def guard_table(questions: Sequence[Question]) -> pd.DataFrame:
    """What the input guard does to each question: blocked, or answered without the sentences it removed."""
    rows = []
    for question in questions:
        verdict = check_input(question.question)
        outcome = "rejected" if verdict.blocked else ("cleaned" if verdict.removed else "passed")
        rows.append(
            {"id": question.id, "kind": question_kind(question), "guard": outcome, "question": question.question}
        )
    return pd.DataFrame(rows)


def best_similarities(questions: Sequence[Question], search: Callable[[str, int], list[Hit]], k: int) -> pd.DataFrame:
    """The best dense similarity each question's hits reach (what the refusal threshold looks at)."""
    rows = []
    for question in questions:
        hits = search(question.question, k)
        rows.append({"id": question.id, "kind": question_kind(question), "similarity": best_similarity(hits)})
    return pd.DataFrame(rows)
