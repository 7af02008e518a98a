"""Measure retrievers side by side on the gold questions (what notebook 05 shows): overall, by category, and along
sweeps of the hybrid weight and of the similarity threshold, each retriever asked with the question text alone.
What it leaves out: answer quality (notebooks 07–08) and significance tests (notebook 08).
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from helpers.corpus import Question
from helpers.metrics import RetrievalScores, evaluate_retrieval, recall_at_k, relevance_labels
from helpers.retrieval.base import Filters, Retriever
from helpers.retrieval.expansion import Expanded
from helpers.retrieval.hybrid import HybridRetriever
from helpers.retrieval.postprocess import above_threshold

METRICS = ("hit@1", "recall@5", "recall@10", "mrr", "ndcg@10")
SWEEP_POOL = 30  # candidates per side in the alpha sweep (the configured retriever asks for `hybrid_pool`)


def evaluate(
    retriever: Retriever, questions: Sequence[Question], k: int = 10, filters: Filters | None = None
) -> RetrievalScores:
    """Retrieval metrics of one retriever (top k, question text alone, optionally filtered)."""
    return evaluate_retrieval(questions, lambda q: retriever.retrieve(q.question, k, filters), ks=(1, 5, 10))


def compare_retrievers(
    retrievers: Mapping[str, Retriever], questions: Sequence[Question]
) -> dict[str, RetrievalScores]:
    """The metrics of every retriever, by name."""
    return {name: evaluate(retriever, questions) for name, retriever in retrievers.items()}


def summary_table(results: Mapping[str, RetrievalScores], metrics: Sequence[str] = METRICS) -> pd.DataFrame:
    """One row per retriever, one column per metric (means over the questions)."""
    return pd.DataFrame({name: scores.mean()[list(metrics)] for name, scores in results.items()}).T.round(3)


def category_table(results: Mapping[str, RetrievalScores], metric: str = "recall@5") -> pd.DataFrame:
    """One metric: a row per question category (and "all"), a column per retriever, plus question counts."""
    table = pd.DataFrame({name: scores.by_category()[metric] for name, scores in results.items()})
    table.loc["all"] = [scores.mean()[metric] for scores in results.values()]
    counts = next(iter(results.values())).per_question["category"].value_counts()
    table.insert(0, "questions", [int(counts.get(c, counts.sum())) for c in table.index])
    return table.round(3)


def best_row(table: pd.DataFrame, by: str = "recall@5", then: str = "mrr") -> str:
    """The row name with the highest `by`, ties broken by `then`."""
    return str(table.sort_values([by, then], ascending=False, kind="stable").index[0])


def alpha_sweep(
    dense: Retriever,
    sparse: Retriever,
    questions: Sequence[Question],
    alphas: Sequence[float] = tuple(np.round(np.arange(0.0, 1.01, 0.1), 1)),
    expand: bool = False,
    pool: int = SWEEP_POOL,
) -> pd.DataFrame:
    """recall@5, recall@10 and MRR of the weighted hybrid at each dense weight alpha (pass memoized sides)."""
    rows = {}
    for alpha in alphas:
        retriever: Retriever = HybridRetriever(dense, sparse, "weighted", alpha=float(alpha), pool=pool)
        retriever = Expanded(retriever) if expand else retriever
        rows[float(alpha)] = evaluate(retriever, questions).mean()[["recall@5", "recall@10", "mrr"]]
    return pd.DataFrame(rows).T.rename_axis("alpha (dense weight)").round(3)


def threshold_sweep(
    retriever: Retriever, questions: Sequence[Question], thresholds: Sequence[float], k: int = 5
) -> pd.DataFrame:
    """What a minimum score does: recall@k and empty results on answerable vs unanswerable questions."""
    answerable = [(q, retriever.retrieve(q.question, k)) for q in questions if q.evidence]
    unanswerable = [retriever.retrieve(q.question, k) for q in questions if q.category == "unanswerable"]
    rows = []
    for threshold in thresholds:
        kept = [(q, above_threshold(hits, threshold)) for q, hits in answerable]
        recalls = [recall_at_k(relevance_labels(hits, q.evidence), k, len(q.evidence)) for q, hits in kept]
        unanswerable_empty = statistics.mean(not above_threshold(hits, threshold) for hits in unanswerable)
        rows.append({
            "threshold": threshold,
            f"recall@{k}": round(statistics.mean(recalls), 3),
            "answerable left empty": round(statistics.mean(not hits for _, hits in kept), 3),
            "unanswerable left empty": round(unanswerable_empty, 3),
        })  # fmt: skip
    return pd.DataFrame(rows).set_index("threshold")


def plot_alpha_sweep(
    sweeps: Mapping[str, pd.DataFrame], metric: str = "recall@5", reference_alpha: float = 0.6
) -> None:
    """One line per sweep: `metric` against the dense weight alpha, the TUM chatbot's weight marked for comparison."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    for label, table in sweeps.items():
        ax.plot(table.index, table[metric], marker="o", label=label)
    ax.axvline(reference_alpha, color="grey", linestyle=":", label=f"TUM chatbot's default ({reference_alpha})")
    ax.set_xlabel("alpha = weight of the dense score (1 − alpha on BM25)")
    ax.set_ylabel(f"{metric} (dev)")
    ax.set_title(f"Weighted hybrid: {metric} against the dense weight")
    ax.legend()
    fig.tight_layout()
    plt.show()
