"""The capstone: your RAG on a folder it has never seen, its `Setting` (a retriever and k) shortlisted by retrieval
and chosen by the reader's F1 on dev alone, then reported once on test with bootstrap intervals.
What it leaves out: reranking and the other knobs (the app compares them), and LLM judges.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from helpers.corpus import Question
from helpers.corpus.questions import question_subset
from helpers.evaluation.bootstrap import paired_bootstrap
from helpers.generation.scores import score_answer
from helpers.mechanisms import MEASURES, kits_own
from helpers.metrics import contains_answer, recall_at_k, relevance_labels
from helpers.retrieval import Memoized

if TYPE_CHECKING:
    from helpers.config import Settings
    from helpers.pipeline import RAGPipeline

RETRIEVERS = ("dense", "bm25", "hybrid")  # the candidates of the sweep
KS = (1, 2, 4)
CI_QUESTIONS = 2  # questions per split the ci profile answers: a seeded one of each of two categories
REPORT_KEYS = ("setting", "questions", "em", "f1", "f1_low", "f1_high", "vs_default", "vs_low", "vs_high", "p")


@dataclass(frozen=True)
class Setting:
    """What the capstone tunes: a retriever by name and the number of chunks it gives the reader."""

    retriever: str
    k: int

    @property
    def name(self) -> str:
        """The label of the setting's rows: "hybrid, k=4"."""
        return f"{self.retriever}, k={self.k}"


def candidates(retrievers: Sequence[str] = RETRIEVERS, ks: Sequence[int] = KS) -> list[Setting]:
    """Every retriever with every k."""
    return [Setting(retriever, k) for retriever in retrievers for k in ks]


def default_setting(settings: Settings) -> Setting:
    """The kit's defaults: the configured retriever and top_k."""
    return Setting(settings.retrieval.retriever, settings.retrieval.top_k)


def capstone_subset(questions: Sequence[Question], settings: Settings) -> list[Question]:
    """All the questions (`full`), or a seeded few of different categories (`ci`)."""
    if settings.profile != "ci":
        return list(questions)
    return question_subset(questions, 1, seed=settings.seed)[:CI_QUESTIONS]


def _retrieval_row(question: Question, setting: Setting, hits: Sequence[Any]) -> dict[str, Any]:
    """One question under one setting: answer-in-top-k and recall@k (empty for an unanswerable question)."""
    found = float(any(contains_answer(hit.text, question.answers) for hit in hits)) if question.answer else np.nan
    labels = relevance_labels(list(hits), question.evidence)
    recall = recall_at_k(labels, setting.k, len(question.evidence)) if question.evidence else np.nan
    where = {"setting": setting.name, "retriever": setting.retriever, "k": setting.k}
    about = {"id": question.id, "split": question.split, "category": question.category}
    return where | about | {"answer_in_top_k": found, "recall": recall}


def retrieval_rows(pipeline: RAGPipeline, questions: Sequence[Question], settings: Sequence[Setting]) -> pd.DataFrame:
    """Every setting on every question, retrieval only: one row per (setting, question)."""
    retrievers = {name: pipeline.make_retriever(name) for name in dict.fromkeys(s.retriever for s in settings)}
    rows = [_retrieval_row(q, s, pipeline.search(q.question, s.k, retrievers[s.retriever]))
            for s in settings for q in questions]  # fmt: skip
    return pd.DataFrame(rows)


def reader_rows(
    pipeline: RAGPipeline, questions: Sequence[Question], settings: Sequence[Setting], progress: bool = True
) -> pd.DataFrame:
    """Every setting on every question with the reader's short answer: the retrieval columns, EM, F1, status."""
    rows = []
    for setting in dict.fromkeys(settings):  # one setting after the other: the model's prompt cache stays warm
        retriever = Memoized(pipeline.make_retriever(setting.retriever))  # the hits scored are the prompt's
        for question in tqdm(questions, desc=setting.name, unit="question", disable=not progress):
            hits = pipeline.search(question.question, setting.k, retriever)
            answer = pipeline.ask(question.question, setting.k, retriever=retriever, mode="short")
            with kits_own(slots=MEASURES):  # every student's answers are scored alike, by the kit's metrics
                scored = score_answer(question, answer)
            rows.append(_retrieval_row(question, setting, hits) | {key: scored[key] for key in ("em", "f1", "status")}
                        | {"answer": answer.text})  # fmt: skip
    return pd.DataFrame(rows)


def summary(rows: pd.DataFrame) -> pd.DataFrame:
    """One line per setting: the mean of every score the rows have, best answer-in-top-k first."""
    scores = [c for c in ("answer_in_top_k", "recall", "em", "f1") if c in rows]
    table = rows.groupby(["setting", "retriever", "k"], sort=False)[scores].mean().reset_index("setting", drop=True)
    order = ["f1", "answer_in_top_k"] if "f1" in rows else ["answer_in_top_k", "recall"]
    return table.sort_values(order, ascending=False, kind="stable")


def _ranked(rows: pd.DataFrame, scores: list[str]) -> list[Setting]:
    """The settings of `rows`, best first by the mean of `scores` in order, then the smaller k, then the name."""
    means = rows.groupby(["retriever", "k"])[scores].mean().reset_index()
    means = means.sort_values([*scores, "k", "retriever"], ascending=[False] * len(scores) + [True, True])
    return [Setting(str(row.retriever), int(row.k)) for row in means.itertuples()]


def shortlist(rows: pd.DataFrame, n: int, default: Setting) -> list[Setting]:
    """The `n` best settings by answer-in-top-k (then recall), and the default when it is not among them."""
    best = _ranked(rows, ["answer_in_top_k", "recall"])[:n]
    return best + [default] * (default not in best)


def reference_choice(rows: pd.DataFrame) -> Setting:
    """The kit's rule on the dev rows only: best mean F1, then answer-in-top-k, then the smaller k."""
    return _ranked(rows[rows.split == "dev"], ["f1", "answer_in_top_k"])[0]


def choice_or_default(choose: Callable[[pd.DataFrame], Any], dev_rows: pd.DataFrame, default: Setting) -> Setting:
    """Your `choose(dev_rows)`; the default, said in one line, while it is a stub or returns no `Setting`."""
    try:
        chosen = choose(dev_rows)
    except NotImplementedError:
        chosen = None
    if isinstance(chosen, Setting):
        print(f"your choice: {chosen.name}")
        return chosen
    print(f"your choose_settings is not written yet (it gave {chosen!r}): the kit's default runs, {default.name}")
    return default


def _scores(rows: pd.DataFrame, setting: Setting) -> pd.DataFrame:
    """The test rows of one setting, indexed by question id."""
    return rows[(rows.setting == setting.name) & (rows.split == "test")].set_index("id").sort_index()


def report_on_test(rows: pd.DataFrame, chosen: Setting, default: Setting) -> dict[str, Any]:
    """The numbers to report (`REPORT_KEYS`): test EM and F1 with its interval, and F1 paired against the default."""
    mine, kits = _scores(rows, chosen), _scores(rows, default)
    answerable = mine.f1.notna()
    with kits_own(slots=MEASURES):  # the leaderboard's intervals are the kit's for everyone
        interval = paired_bootstrap(np.zeros(int(answerable.sum())), mine.f1[answerable].to_numpy())
        versus = paired_bootstrap(kits.f1.reindex(mine.index).to_numpy(), mine.f1.to_numpy())
    values = (chosen.name, int(answerable.sum()), mine.em.mean(), mine.f1.mean(), interval.ci_low, interval.ci_high,
              versus.mean_diff, versus.ci_low, versus.ci_high, versus.p_one_sided)  # fmt: skip
    return dict(zip(REPORT_KEYS, values, strict=True))
