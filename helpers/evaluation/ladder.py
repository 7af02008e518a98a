"""The course's last picture: what each step bought (closed book → naive dense → the kit's defaults → + rerank →
+ multi-query), on the course's own documents and on real ones; `bench/story.py` writes the README's results.
What it leaves out: LLM judges and significance (notebook 08's ablation does both).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from helpers.config import Settings
from helpers.evaluation.ablation import RECALL_K, Rung, run_rung
from helpers.evaluation.two_corpora import Corpus, course_corpus, indexed, realworld_corpus, tuning_settings
from helpers.llm.cache import CachedCompleter
from helpers.metrics.answer_relevance import contains_answer
from helpers.query import MultiQueryRetriever
from helpers.rerank import Reranked

if TYPE_CHECKING:
    from helpers.pipeline import RAGPipeline

SAMPLE = {"full": 30, "ci": 1}  # answerable questions per corpus (seeded): 5 rows × 2 corpora × 30 answers
METRICS = ("F1", "EM", f"recall@{RECALL_K}", "answer in context", "s / question")


def story_rungs(pipeline: RAGPipeline) -> list[Rung]:
    """The five rows over one pipeline's index, each adding one step to the row above."""
    settings = pipeline.settings
    defaults = pipeline.make_retriever()
    maxsim = pipeline.make_reranker("maxsim")
    paraphraser = CachedCompleter.from_pipeline(pipeline)
    return [
        Rung("closed book"),
        Rung("naive (dense)", pipeline.make_retriever("dense")),
        Rung(f"kit defaults ({settings.retrieval.retriever})", defaults),
        Rung("+ rerank (maxsim)", Reranked(defaults, maxsim, depth=settings.rerank.rerank_depth)),
        Rung(
            "+ multi-query",
            MultiQueryRetriever(defaults, paraphraser, reranker=maxsim, depth=settings.rerank.rerank_depth),
            paraphraser=paraphraser,
        ),
    ]


def story_questions(corpus: Corpus, n: int, seed: int = 0) -> list:
    """A seeded sample of n answerable questions of the corpus (all of them when n is larger)."""
    answerable = corpus.answerable
    return sorted(random.Random(seed).sample(answerable, min(n, len(answerable))), key=lambda q: q.id)


def story_corpora(settings: Settings, split: str = "test") -> list[Corpus]:
    """The course corpus, and the real one when its folder has been rebuilt."""
    real = realworld_corpus(split, settings)
    return [course_corpus(split, settings), *([real] if real is not None else [])]


def story_ladder(
    settings: Settings, split: str = "test", n: int | None = None, progress: bool = True,
    corpora: Sequence[Corpus] | None = None,
) -> pd.DataFrame:  # fmt: skip
    """One row per (corpus, rung, question): the ladder answered on each corpus's seeded sample."""
    n = n if n is not None else SAMPLE[settings.profile]
    frames = []
    for corpus in corpora if corpora is not None else story_corpora(settings, split):
        pipeline = indexed(corpus, tuning_settings(corpus, settings), progress=progress)
        questions = story_questions(corpus, n, settings.seed)
        answers = {q.id: q.answers for q in questions}
        for rung in story_rungs(pipeline):
            rows = run_rung(pipeline, rung, questions, progress)
            rows["answer in context"] = [
                float(any(contains_answer(text, answers[qid]) for text in contexts)) if rung.retriever else float("nan")
                for qid, contexts in zip(rows.id, rows.contexts, strict=True)
            ]
            rows.insert(0, "corpus", corpus.name)
            frames.append(rows.drop(columns=["contexts"]))
    return pd.concat(frames, ignore_index=True)


def story_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Mean F1, EM, recall@5, answer-in-context and seconds per question: rows = rungs, columns = (metric, corpus)."""
    named = rows.rename(columns={"f1": "F1", "em": "EM", "latency": "s / question"})
    order = list(dict.fromkeys(named.configuration))
    table = named.pivot_table(index="configuration", columns="corpus", values=list(METRICS), aggfunc="mean")
    corpora = list(dict.fromkeys(named.corpus))
    table = table.reindex(index=order, columns=pd.MultiIndex.from_product([METRICS, corpora]))
    table.attrs["questions"] = named.groupby("corpus").id.nunique().to_dict()
    return table.round(3)


def plot_story(table: pd.DataFrame, metrics: Sequence[str] = ("F1", "answer in context")) -> Any:
    """Grouped bars per rung, one panel per metric, one colour per corpus."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(metrics), figsize=(6 * len(metrics), 4), sharey=True)
    for ax, metric in zip(list(axes) if len(metrics) > 1 else [axes], metrics, strict=True):
        table[metric].plot.bar(ax=ax, rot=25)
        ax.set_title(metric)
        ax.set_xlabel("")
        ax.set_ylim(0, 1)
        ax.grid(axis="y", alpha=0.3)
        for label in ax.get_xticklabels():
            label.set_horizontalalignment("right")
    counts = ", ".join(f"{corpus}: {n}" for corpus, n in table.attrs.get("questions", {}).items())
    fig.suptitle(f"What each step bought (questions per corpus — {counts})")
    fig.tight_layout()
    return fig


STORY_CSV = "story_ladder.csv"


def load_story(folder: Path) -> pd.DataFrame | None:
    """The rows `python -m bench.story` wrote into `folder` (its `story_ladder.csv`), or None before its first run."""
    path = Path(folder) / STORY_CSV
    return pd.read_csv(path) if path.exists() else None


def story_steps(rows: pd.DataFrame, metric: str = "f1", seed: int = 0) -> pd.DataFrame:
    """Each rung's gain over the rung below it, per corpus, with the paired bootstrap's two-sided p."""
    from helpers.evaluation.bootstrap import paired_bootstrap

    order, found = list(dict.fromkeys(rows.configuration)), []
    for corpus, group in rows.groupby("corpus", sort=False):
        by_rung = {name: part.set_index("id")[metric] for name, part in group.groupby("configuration")}
        for below, step in pairwise(order):
            base = by_rung[below]
            result = paired_bootstrap(base.to_numpy(), by_rung[step].reindex(base.index).to_numpy(), seed=seed)
            found.append({"corpus": corpus, "step": f"{below} → {step}", f"{metric} gain": round(result.mean_diff, 3),
                          "p (two-sided)": round(result.p_two_sided, 3)})  # fmt: skip
    return pd.DataFrame(found).pivot(index="step", columns="corpus").reindex([f"{a} → {b}" for a, b in pairwise(order)])
