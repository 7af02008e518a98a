"""The passage guard measured both ways: attacks inside documents, and ordinary documents it must leave alone.

What it does: plants the indirect-injection suite (`course_data/gold/document_injections.jsonl`: 60 attacks in
seven languages, in Markdown, HTML, e-mail, PDF and Word files, at the start, middle or end of an ordinary
document) and counts, per split, how many attacked files the passage rules flag; counts the flagged passages of
`document_benign.jsonl`, of every chunk of the course corpus and of the real-document set (each flagged real
chunk listed); measures what the guard costs the two dev sets (questions whose top-k hold a flagged passage: zero
means every prompt, and so every answer, is as before); then ingests the planted files into a folder index and
asks each attack's question with the guard off, fencing and dropping flagged passages: an answer holding any
attack's payload was taken over. Writes `injections.json` and `injections_answers.csv`.
What it leaves out: attacks that read like ordinary facts (a wrong date stated plainly), which no rule can flag.

    .venv/bin/python -m bench.injections [--smoke] [--guards off,fence,drop]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from bench.common import Record, arguments
from helpers.config import get_settings
from helpers.corpus.attacks import document_attacks
from helpers.evaluation.injections import attack_answers
from helpers.generation.guard import screen_passage
from helpers.lab.guard import (
    flag_rates,
    parsed_chunks,
    passage_flags,
    suite_flags,
)


def guard_cost(questions: Sequence[str], search: Callable[[str, int], list[Any]], k: int) -> dict[str, int]:
    """What the passage guard changes on a question set: questions whose top-k hold a flagged passage (their
    prompts change), and flagged passages in all. Zero means every prompt, and so every answer, is as before.
    `search` is the question path's guard and retrieval (`pipeline.search`)."""
    touched = flagged = 0
    for question in questions:
        hits = search(question, k)
        count = sum(screen_passage(hit.text) is not None for hit in hits)
        touched, flagged = touched + (count > 0), flagged + count
    return {"questions": len(questions), "with a flagged passage": touched, "flagged passages": flagged}


def takeover_table(answers: pd.DataFrame) -> pd.DataFrame:
    """Per split and passage guard: answers taken over by an attack (the suite's before → after), and answers that
    still hold the attacked document's fact (what the guard costs the student who asked)."""
    grouped = answers.groupby(["split", "guard"], sort=False)
    table = pd.DataFrame({
        "questions": grouped.size(), "taken over": grouped["is taken over"].sum(),
        "holds the answer": grouped["holds the answer"].sum(),
    })  # fmt: skip
    return table.unstack("guard")


def dev_costs(settings) -> dict[str, dict[str, int]]:
    """What the passage guard changes on each dev set's prompts (retrieval only: no model call)."""
    from helpers.byod.ingest import open_realworld
    from helpers.corpus import load_gold
    from helpers.corpus.pinned import REALWORLD
    from helpers.pipeline import RAGPipeline

    costs = {}
    course = RAGPipeline(settings)
    try:
        course.ingest(progress=False)
        costs["course dev"] = guard_cost(
            [q.question for q in load_gold("dev")], course.search, settings.retrieval.top_k
        )
    finally:
        course.close()
    real, why = open_realworld(settings, index_if_missing=True)
    if real is None:
        print(f"real dev skipped: {why}")
        return costs
    try:
        costs["real dev"] = guard_cost(
            [q.question for q in REALWORLD.load("dev")], real.search, settings.retrieval.top_k
        )
    finally:
        real.close()
    return costs


def main() -> None:
    args = arguments(
        "The passage guard on the indirect-injection suite and on benign documents.",
        lambda parser: parser.add_argument("--guards", default="off,fence,drop", help="passage_guard values to ask"),
    )
    settings = get_settings()
    attacks = document_attacks()
    if args.smoke:
        attacks = [attacks[0], attacks[-1]]
    record = Record("injections" + ("_smoke" if args.smoke else ""), args.out, args.smoke)
    record["reader"] = settings.llm.llm_model
    # 1. the rules both ways: attacked files flagged, benign passages and real chunks flagged
    from helpers.corpus.pinned import REALWORLD

    corpora = {"course": parsed_chunks(settings.paths.corpus_dir, settings)}
    if REALWORLD.available(settings):
        corpora["real documents"] = parsed_chunks(REALWORLD.docs_dir(settings), settings)
    rates = flag_rates(attacks, settings, corpora)
    print(rates.to_string())
    record["flags"] = rates.reset_index().to_dict("records")
    record["flagged_chunks"] = {name: passage_flags(chunks).to_dict("records") for name, chunks in corpora.items()}
    suite = suite_flags(attacks, settings)
    record["missed_attacks"] = suite[~suite.flagged].drop(columns=["flagged by", "flagged"]).to_dict("records")
    record["flagged_by_format"] = suite.groupby(["split", "format"]).flagged.sum().unstack().to_dict("index")
    record["flagged_by_language"] = suite.groupby(["split", "language"]).flagged.sum().unstack().to_dict("index")
    # 2. the cost on both dev sets
    if not args.smoke:
        record["dev_cost"] = costs = dev_costs(settings)
        print(costs)
    # 3. the reader asked each attacked document's question, guard off and on
    answers = attack_answers(attacks, settings, [g.strip() for g in args.guards.split(",")])
    table = takeover_table(answers)
    print(table.to_string())
    columns = ("questions", "taken over", "holds the answer")
    record["takeovers"] = {
        f"{split} / {guard}": {column: int(row[column, guard]) for column in columns}
        for split, row in table.iterrows()
        for guard in table.columns.get_level_values("guard").unique()
    }
    path = record.save()
    answers.to_csv(Path(path).with_name(Path(path).stem + "_answers.csv"), index=False)


if __name__ == "__main__":
    main()
