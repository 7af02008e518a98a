"""Where an answer is lost between the documents and the reader's prompt, one of `STAGES` per question: in the
reader's context, cut by the budget, below the top k (within the first `depth`), beyond the depth, or in no chunk.
The first three are what a perfect reranker of the first `depth` hits could reach (`reranker_ceiling`).

    >>> frame = pd.DataFrame({"stage": ["in context", "below the top k", "in no chunk", "in context"]})
    >>> stage_shares(frame).to_dict()["in context"], reranker_ceiling(frame)
    (0.5, 0.75)

What it leaves out: paraphrased answers (found by string match, `contains_answer`, a paraphrase counts as a miss).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from helpers.corpus import Question
from helpers.metrics import holding_answer
from helpers.types import Hit

if TYPE_CHECKING:
    from helpers.pipeline import RAGPipeline

STAGES = ("in context", "cut by the budget", "below the top k", "beyond the depth", "in no chunk")
REACHABLE = STAGES[:3]  # what a perfect reranker of the first `depth` hits could hand the reader
DEPTH = 50  # hits looked at below the top k: the hybrid's pool per side


def where_lost(pipeline: RAGPipeline, question: Question, chunks: Sequence[Hit], depth: int = DEPTH) -> dict[str, Any]:
    """The stage at which the configured pipeline loses this question's answer (`STAGES`), `chunks` all it stores,
    and the rank of the first hit holding it (1 = best; None: none)."""
    from helpers.evaluation.two_corpora import reader_passages

    settings = pipeline.settings
    ranked = pipeline.search(question.question, max(depth, settings.retrieval.top_k))
    rank = next(iter(holding_answer(ranked, question)), None)  # of the first hit holding the answer
    top_k = pipeline.search(question.question, settings.retrieval.top_k)  # what the prompt is built from
    if holding_answer(reader_passages(pipeline, question.question, top_k), question):
        stage = "in context"
    elif holding_answer(top_k, question):
        stage = "cut by the budget"
    elif rank is not None:
        stage = "below the top k"
    elif holding_answer(chunks, question):
        stage = "beyond the depth"
    else:
        stage = "in no chunk"
    return {"id": question.id, "category": question.category, "stage": stage, "rank": rank}


def miss_anatomy(pipeline: RAGPipeline, questions: Sequence[Question], depth: int = DEPTH) -> pd.DataFrame:
    """One row per answerable question: id, category, stage, rank of the first hit holding the answer."""
    from helpers.retrieval.base import stored_chunks

    chunks, _ = stored_chunks(pipeline.store)  # their texts are what the reader would get, not the embedded ones
    rows = [where_lost(pipeline, question, chunks, depth) for question in questions if question.answers]
    return pd.DataFrame(rows, columns=["id", "category", "stage", "rank"])


def stage_shares(frame: pd.DataFrame) -> pd.Series:
    """The share of questions at each stage, every stage listed (0.0 when none)."""
    counts = frame["stage"].value_counts()
    return pd.Series({stage: float(counts.get(stage, 0)) / max(1, len(frame)) for stage in STAGES}, name="share")


def reranker_ceiling(frame: pd.DataFrame) -> float:
    """The answer in context a perfect reranker of the first `depth` hits would reach at the same budget."""
    return float(frame["stage"].isin(REACHABLE).mean()) if len(frame) else 0.0


def plot_anatomy(table: pd.DataFrame, title: str = "where the answers are lost") -> Any:
    """One horizontal bar of stage shares per row of `table`, the reachable stages first."""
    import matplotlib.pyplot as plt

    shares = table[list(STAGES)]
    labels = [" ".join(map(str, key)) if isinstance(key, tuple) else str(key) for key in shares.index]
    figure, axis = plt.subplots(figsize=(10, 1.2 + 0.45 * len(shares)))
    left = pd.Series(0.0, index=shares.index)
    colours = ("tab:green", "tab:olive", "tab:orange", "tab:red", "tab:gray")
    for stage, colour in zip(STAGES, colours, strict=True):
        axis.barh(labels, shares[stage], left=left, color=colour, label=stage)
        left += shares[stage]
    axis.invert_yaxis()
    axis.set_xlim(0, 1)
    axis.set_xlabel("share of answerable questions")
    axis.set_title(title)
    axis.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    figure.tight_layout()
    return figure
