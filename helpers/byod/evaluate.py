"""Evaluate your folder with your questions: closed book, dense, hybrid and the best reranked configuration, each
answer scored by EM, F1 and answer-in-top-k (a retrieved chunk holds a reference answer).
What it leaves out: retrieval metrics that need evidence documents (hit@k, MRR: notebook 05), LLM judges.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from helpers.byod.ingest import ByodError
from helpers.corpus import Question
from helpers.corpus.questions import question_subset
from helpers.generation.scores import score_answer
from helpers.metrics import contains_answer
from helpers.retrieval import Memoized

if TYPE_CHECKING:
    from helpers.pipeline import RAGPipeline
    from helpers.rerank import Reranker

CONFIGS = ("closed_book", "dense", "hybrid", "default", "rerank")  # the rows `evaluate_questions` can run
DEFAULT_CONFIGS = ("closed_book", "dense", "hybrid", "rerank")  # notebook 10's four rows
CI_QUESTIONS = 3  # questions evaluated in the ci profile (seeded subset): 9 answers + 3 reranked + 15 rerank pairs
CI_RERANK_DEPTH = 5  # candidates the reranker reads per question in ci (the LLM reranker takes seconds per pair)
COLUMNS = ["config", "id", "question", "reference", "answer", "status", "em", "f1", "answer_in_top_k"]
COLUMNS += ["seconds", "cached"]


@dataclass
class BYODEvaluation:
    """Per-question rows (one per configuration and question), the summary table, and which reranker ran."""

    rows: pd.DataFrame
    reranker_note: str

    @property
    def table(self) -> pd.DataFrame:
        """One row per configuration: questions, EM, F1, answer-in-top-k, answered share, seconds, cached share."""
        grouped = self.rows.groupby("config", sort=False)
        return pd.DataFrame(
            {
                "questions": grouped.size(),
                "EM": grouped.em.mean(),
                "F1": grouped.f1.mean(),
                "answer in top-k": grouped.answer_in_top_k.mean(),
                "answered": grouped.status.apply(lambda s: (s == "answered").mean()),
                "s / question": grouped.seconds.mean(),  # wall time: near 0 when answers come from the cache
                "cached": grouped.cached.mean(),
            }
        )

    def save_rows(self, path: str | Path) -> Path:
        """Write the per-question rows to a CSV; returns its path."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.rows.to_csv(path, index=False)
        return path


def evaluation_subset(questions: Sequence[Question], settings: Any, limit: int | None = None) -> list[Question]:
    """The first `limit` questions if given; else all of them (`full`) or a seeded subset (`ci`)."""
    if limit is not None:
        return list(questions[: max(limit, 0)])
    if settings.profile == "ci":
        return question_subset(questions, CI_QUESTIONS, seed=settings.seed)
    return list(questions)


def choose_reranker(pipeline: RAGPipeline) -> tuple[Reranker | None, str]:
    """The configured reranker, else MaxSim (no training; it raised recall@5 on both dev sets); and why."""
    name = pipeline.settings.rerank.reranker
    if name == "none":
        return pipeline.make_reranker("maxsim"), "MaxSim late interaction, the kit's reranker that needs no training"
    try:
        return pipeline.make_reranker(name), f"the configured reranker ({name})"
    except RuntimeError as err:  # not trained yet, or a remote endpoint without next-token logits
        return None, f"no reranked row: {err}"


def _row(config: str, question: Question, answer: Any, hits: Sequence[Any] | None, seconds: float) -> dict:
    """One scored row; answer_in_top_k is empty for the closed book (nothing was retrieved)."""
    scored = score_answer(question, answer)
    found = np.nan if hits is None else float(any(contains_answer(hit.text, question.answers) for hit in hits))
    reference = "; ".join(question.answers)
    return {**scored, "config": config, "question": question.question, "reference": reference,
            "answer_in_top_k": found, "seconds": seconds}  # fmt: skip


def evaluate_questions(
    pipeline: RAGPipeline,
    questions: Sequence[Question],
    limit: int | None = None,
    k: int | None = None,
    progress: bool = True,
    configs: Sequence[str] = DEFAULT_CONFIGS,
) -> BYODEvaluation:
    """Answer every question in the chosen configurations (`CONFIGS`) and score each answer."""
    settings = pipeline.settings
    unknown = [name for name in configs if name not in CONFIGS]
    if unknown or not configs:
        raise ByodError(f"unknown configuration(s) {unknown or '(none)'}; choose from: {', '.join(CONFIGS)}")
    picked, k = evaluation_subset(questions, settings, limit), k or settings.retrieval.top_k
    if not picked:
        raise ByodError(f"no questions to evaluate (limit={limit}); give at least one")
    retrievers: dict[str, Any] = {n: pipeline.make_retriever(n) for n in ("dense", "hybrid") if n in configs}
    if "default" in configs:
        default = f"default ({settings.retrieval.retriever}, k={k}, reranker {settings.rerank.reranker})"
        retrievers[default] = pipeline.retriever
    note = "not run (add rerank to the configurations)"
    if "rerank" in configs:
        reranker, note = choose_reranker(pipeline)
        if reranker is not None:
            from helpers.rerank import Reranked

            hybrid = retrievers["hybrid"] if "hybrid" in retrievers else pipeline.make_retriever("hybrid")
            depth = settings.rerank.rerank_depth
            depth = min(depth, CI_RERANK_DEPTH) if settings.profile == "ci" else depth
            retrievers[f"hybrid + {reranker.name} (top {depth})"] = Reranked(hybrid, reranker, depth)
    rows = []
    for config in ["closed book"] * ("closed_book" in configs) + list(retrievers):
        for question in tqdm(picked, desc=config, unit="question", disable=not progress):
            start = time.perf_counter()
            if config == "closed book":
                answer, hits = pipeline.ask(question.question, closed_book=True), None
            else:
                retriever = Memoized(retrievers[config])  # the hits scored here are the ones the prompt gets
                hits = pipeline.search(question.question, k, retriever)
                answer = pipeline.ask(question.question, k, retriever=retriever, mode="short")
            rows.append(_row(config, question, answer, hits, time.perf_counter() - start))
    return BYODEvaluation(pd.DataFrame(rows, columns=COLUMNS), note)


def plot_evaluation(table: pd.DataFrame) -> Any:
    """Grouped bars: EM, F1 and answer-in-top-k per configuration."""
    import matplotlib.pyplot as plt

    metrics = ["EM", "F1", "answer in top-k"]
    fig, ax = plt.subplots(figsize=(8, 3.5))
    width = 0.8 / len(metrics)
    x = np.arange(len(table))
    for i, metric in enumerate(metrics):
        ax.bar(x + i * width, table[metric].fillna(0).to_numpy(), width, label=metric)
    ax.set_xticks(x + width, table.index, rotation=10)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("share of questions")
    ax.set_title(f"Your questions ({int(table['questions'].max())} per configuration)")
    ax.legend(loc="upper left")
    fig.tight_layout()
    return fig
