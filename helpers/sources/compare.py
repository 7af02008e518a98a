"""Planners side by side (notebook 11): routing accuracy per split, and answer F1 with each planner's plans.

What it leaves out: LLM-judged answer quality (notebook 08).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from helpers.metrics.answers import f1_score
from helpers.sources.assistant import SourcedAnswer, SourcesAssistant, score_answers
from helpers.sources.planner import Planner, routing_accuracy


def routing_table(planners: Sequence[Planner], records: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """Accuracy of each planner on each split and on all questions."""
    splits = sorted({str(r["split"]) for r in records})
    rows = []
    for planner in planners:
        row: dict[str, Any] = {"planner": planner.name}
        for split in [*splits, "all"]:
            subset = [r for r in records if split in ("all", r["split"])]
            row[f"{split} ({len(subset)})"] = round(routing_accuracy(planner, subset)[0], 3)
        row["invalid replies (fell back)"] = getattr(planner, "fallbacks", 0)
        rows.append(row)
    return pd.DataFrame(rows).set_index("planner")


def answer_table(assistant: SourcesAssistant, planners: Sequence[Planner], records: Sequence[Mapping[str, Any]]
                 ) -> tuple[pd.DataFrame, dict[str, list[SourcedAnswer]]]:  # fmt: skip
    """Answer F1 and asked-back rates per planner, and every answer by planner name."""
    rows, answers = [], {}
    for planner in planners:
        start = time.perf_counter()
        got = [assistant.answer(r["question"], r["student_id"], planner) for r in records]
        answers[planner.name] = got
        seconds = (time.perf_counter() - start) / max(len(records), 1)
        right = sum(a.plan == frozenset(r["actions"]) for a, r in zip(got, records, strict=True))
        accuracy = right / max(len(records), 1)  # the plans the answers used: no second planning pass
        rows.append({"planner": planner.name, "routing accuracy": accuracy, **score_answers(got, records),
                     "seconds / question": seconds})  # fmt: skip
    return pd.DataFrame(rows).set_index("planner").round(3), answers


def answers_frame(answers: Sequence[SourcedAnswer], records: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """One row per question: the plan, the scope, the answer, the reference and F1."""
    return pd.DataFrame([
        {"question": a.question, "plan": " + ".join(sorted(a.plan)), "scope": a.scope.conditions or "",
         "answer": a.text, "reference": r["answer"], "F1": round(f1_score(a.text, [r["answer"]]), 2) if r["answer"]
         else float(a.asked_back)}
        for a, r in zip(answers, records, strict=True)
    ])  # fmt: skip


def f1_by_label(answers: Mapping[str, Sequence[SourcedAnswer]], records: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """Mean answer F1 (asked-back rate for vague questions) per labelled action set and planner."""
    labels = pd.Series([" + ".join(sorted(r["actions"])) for r in records], name="label")
    table = pd.concat([answers_frame(got, records)["F1"].groupby(labels).mean().rename(name)
                       for name, got in answers.items()], axis=1)  # fmt: skip
    table.insert(0, "questions", labels.value_counts())
    return table.round(2)
