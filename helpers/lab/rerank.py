"""Measure rerankers and query rewriting on the gold questions (notebook 06): a *system* is any function from a
`Question` to ranked hits, scored and timed alike. What it leaves out: answer quality and significance tests.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd

from helpers.corpus import Question
from helpers.metrics import evaluate_retrieval, relevance_labels
from helpers.rerank.base import Reranker
from helpers.retrieval.base import Retriever
from helpers.types import Hit

System = Callable[[Question], Sequence[Hit]]
METRICS = ("recall@5", "mrr", "hit@1")


def timed(system: System, seconds: list[float]) -> System:
    """The same system, appending the wall time of every call to `seconds`."""

    def run(question: Question) -> Sequence[Hit]:
        start = time.perf_counter()
        hits = system(question)
        seconds.append(time.perf_counter() - start)
        return hits

    return run


def measure(systems: Mapping[str, System], questions: Sequence[Question], baseline: str | None = None) -> pd.DataFrame:
    """One row per system: recall@5, MRR, hit@1, median ms per question and ms added over `baseline`."""
    rows = {}
    for name, system in systems.items():
        seconds: list[float] = []
        scores = evaluate_retrieval(questions, timed(system, seconds), ks=(1, 5, 10))
        row = scores.mean()[list(METRICS)].to_dict()
        row["ms / question"] = 1000 * statistics.median(seconds) if seconds else 0.0
        rows[name] = row
    table = pd.DataFrame(rows).T
    first = baseline or next(iter(systems))
    table["ms added"] = table["ms / question"] - table.loc[first, "ms / question"]
    table.insert(0, "questions", sum(1 for q in questions if q.evidence))
    return table.round(3)


def reranked(retriever: Retriever, reranker: Reranker, depth: int, k: int = 10) -> System:
    """System: the retriever's top `depth`, reranked, top k (the question text alone)."""
    return lambda q: reranker.rerank(q.question, retriever.retrieve(q.question, max(depth, k)), k)


def reranker_rows(
    retriever: Retriever, rerankers: Mapping[str, Reranker], depth: int, baseline: str = "first stage"
) -> dict[str, System]:
    """Systems for `measure`: the retriever alone (named `baseline`), then each reranker over its top `depth`."""
    return {baseline: plain(retriever)} | {name: reranked(retriever, r, depth) for name, r in rerankers.items()}


def training_free_rerankers() -> dict[str, Reranker]:
    """The rerankers that need no training and no LLM: MaxSim alone, and MaxSim fused with the first-stage rank."""
    from helpers.rerank.maxsim import DEFAULT_FIRST_STAGE_WEIGHT, DEFAULT_FUSION_K, MaxSimReranker

    fused = MaxSimReranker(first_stage_weight=DEFAULT_FIRST_STAGE_WEIGHT, fusion_k=DEFAULT_FUSION_K)
    return {"MaxSim": MaxSimReranker(), "MaxSim + first-stage rank": fused}


def with_target(table: pd.DataFrame, baseline: str, gain: float = 0.05, max_ms: float = 1000.0) -> pd.DataFrame:
    """The table plus the recall@5 gain over `baseline` and whether a row meets "+gain at ≤ max_ms per question"."""
    table = table.copy()
    table["recall@5 gain"] = (table["recall@5"] - table.loc[baseline, "recall@5"]).round(3)
    table["meets target"] = (table["recall@5 gain"] >= gain) & (table["ms / question"] <= max_ms)
    table.loc[baseline, "meets target"] = False
    return table


def negative_audit(chunks: Sequence[Hit], n_queries: int = 200, seed: int = 0) -> pd.DataFrame:
    """Inverse-cloze pairs mined the first way and the fixed way: the query's words the positive and negatives share."""
    from helpers.rerank.synthetic import cloze_pairs, word_overlap

    rows = {}
    for name, fair in (("first recipe", False), ("fixed recipe", True)):
        groups: dict[str, list] = {}
        for pair in cloze_pairs(chunks, n_queries, seed=seed, fair=fair):
            groups.setdefault(pair.question, []).append((pair.label, word_overlap(pair.question, pair.passage)))
        positive = [o for g in groups.values() for label, o in g if label == 1.0]
        negative = [o for g in groups.values() for label, o in g if label == 0.0]
        beaten = [max((o for label, o in g if label == 0.0), default=0.0) > g[0][1] for g in groups.values()]
        rows[name] = {
            "queries": len(groups),
            "negatives per query": len(negative) / max(len(groups), 1),
            "query words in positive": statistics.fmean(positive),
            "query words in negatives": statistics.fmean(negative) if negative else float("nan"),
            "queries where a negative shares more": statistics.fmean(beaten),
        }
    return pd.DataFrame(rows).T.round(3)


def target_verdict(tables: Mapping[str, pd.DataFrame], gain: float = 0.05, max_ms: float = 1000.0) -> str:
    """Which rerankers (rows of `with_target` tables) gain ≥ `gain` recall@5 at ≤ `max_ms` on every table."""
    names = [n for n in next(iter(tables.values())).index if all(n in t.index for t in tables.values())]
    lines, winners = [], []
    for name in names[1:]:  # row 0 is the first stage alone
        parts = [
            f"{corpus}: {t.loc[name, 'recall@5 gain']:+.3f} at {t.loc[name, 'ms / question']:.0f} ms"
            for corpus, t in tables.items()
        ]
        if all(bool(t.loc[name, "meets target"]) for t in tables.values()):
            winners.append(name)
        lines.append(f"{name}: " + "; ".join(parts))
    target = f"+{gain:.2f} recall@5 at ≤ {max_ms / 1000:g} s per question on {' and '.join(tables)}"
    head = f"reaches {target}: {', '.join(winners)}" if winners else f"no reranker reaches {target}"
    return "\n".join([head, *lines])


def plain(retriever: Retriever, k: int = 10) -> System:
    """System: the retriever alone (the question text alone)."""
    return lambda q: retriever.retrieve(q.question, k)


def rewritten(retriever: Retriever, rewriter: Any, k: int = 10) -> System:
    """System: search with `rewriter.query(question)` (e.g. a `FollowUpRewriter`) instead of the question text."""
    return lambda q: retriever.retrieve(rewriter.query(q), k)


def depth_sweep(
    retriever: Retriever, reranker: Reranker, questions: Sequence[Question], depths: Sequence[int] = (5, 10, 20, 40)
) -> pd.DataFrame:
    """recall@5, MRR and latency of "rerank the top N" for each N (N = 0: no reranking)."""
    systems = {0: plain(retriever)} | {n: reranked(retriever, reranker, n) for n in depths}
    table = measure({str(n): s for n, s in systems.items()}, questions)
    table.index = pd.Index([int(n) for n in table.index], name="N (candidates reranked)")
    return table


def score_separation(
    reranker: Reranker, retriever: Retriever, questions: Sequence[Question], depth: int = 10
) -> pd.DataFrame:
    """The reranker's mean score on candidates that hold evidence vs. those that do not (top `depth`)."""
    relevant: list[float] = []
    other: list[float] = []
    for question in (q for q in questions if q.evidence):
        candidates = retriever.retrieve(question.question, depth)
        scores = {h.node_id: h.scores["rerank"] for h in reranker.rerank(question.question, candidates, depth)}
        for hit, labels in zip(candidates, relevance_labels(candidates, question.evidence), strict=True):
            (relevant if labels else other).append(scores[hit.node_id])
    rows = {}
    for name, values in (("holds evidence", relevant), ("does not", other)):
        rows[name] = {"candidates": len(values), "mean score": statistics.fmean(values) if values else float("nan")}
    return pd.DataFrame(rows).T.round(3)


def plot_depth_sweep(table: pd.DataFrame) -> None:
    """recall@5 (left axis) and median latency (right axis) against N."""
    import matplotlib.pyplot as plt

    fig, left = plt.subplots(figsize=(6, 3.5))
    left.plot(table.index, table["recall@5"], "o-", color="tab:blue", label="recall@5")
    left.set_xlabel("N = candidates reranked (0 = no reranking)")
    left.set_ylabel("recall@5", color="tab:blue")
    right = left.twinx()
    right.plot(table.index, table["ms / question"], "s--", color="tab:red", label="latency")
    right.set_ylabel("median ms / question", color="tab:red")
    left.set_title("Reranking more candidates: recall vs latency")
    fig.tight_layout()
    plt.show()


# How much each notebook section measures: everything in `full`; in `ci`, seeded subsets within the notebook budget.
BUDGETS = {
    "full": {"per_category": None, "llm_questions": 20, "llm_depth": 10, "depths": (5, 10, 20, 40), "llm_rows": None,
             "sweep_rows": None},
    "ci": {"per_category": 3, "llm_questions": 4, "llm_depth": 5, "depths": (5, 10, 20), "llm_rows": 5,
           "sweep_rows": 10},
}  # fmt: skip


def profile_questions(questions: Sequence[Question], profile: str, seed: int = 0) -> list[Question]:
    """All questions in `full`; a seeded subset with at most 3 per category in `ci`."""
    from helpers.corpus.questions import question_subset

    return question_subset(questions, BUDGETS[profile]["per_category"], seed)


def rerankable(questions: Sequence[Question], retriever: Retriever, depth: int) -> list[Question]:
    """The questions whose top `depth` holds some evidence: the only ones a reranker can improve."""
    ranked = ((q, retriever.retrieve(q.question, depth)) for q in questions if q.evidence)
    return [q for q, hits in ranked if any(relevance_labels(hits, q.evidence))]


def first_rows(questions: Sequence[Question], profile: str, key: str = "llm_rows") -> list[Question]:
    """The first few questions (those with evidence) where the profile limits LLM calls, else all."""
    limit = BUDGETS[profile][key]
    with_evidence = [q for q in questions if q.evidence]
    return with_evidence if limit is None else with_evidence[:limit]


def median_seconds(seconds: Sequence[float]) -> float:
    """The median of recorded model times (NaN if none were recorded)."""
    return statistics.median(seconds) if seconds else float("nan")
