"""The story ladder of notebook 08: its rows, its table over two corpora, and the committed run it reads."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from helpers.config import Settings
from helpers.evaluation.ladder import METRICS, load_story, plot_story, story_rungs, story_table
from helpers.pipeline import RAGPipeline
from helpers.query import MultiQueryRetriever
from helpers.rerank import MaxSimReranker, Reranked

RESULTS = Path(__file__).resolve().parents[1] / "bench" / "results"

RUNGS = ["closed book", "naive (dense)", "kit defaults (hybrid)", "+ rerank (maxsim)", "+ multi-query"]


def test_each_rung_adds_one_step_and_the_advanced_ones_rerank_with_maxsim(
    tmp_settings: Settings, tiny_corpus: Path
) -> None:
    pipeline = RAGPipeline(tmp_settings.replace(corpus_dir=tiny_corpus, retriever="hybrid"))
    try:
        rungs = story_rungs(pipeline)
        assert [r.name for r in rungs] == RUNGS
        assert rungs[0].retriever is None
        rerank, multi = rungs[3].retriever, rungs[4].retriever
        assert isinstance(rerank, Reranked) and isinstance(rerank.reranker, MaxSimReranker)
        assert isinstance(multi, MultiQueryRetriever) and isinstance(multi.reranker, MaxSimReranker)
        assert rungs[4].paraphraser is not None  # its paraphrasing seconds count in the row's latency
    finally:
        pipeline.close()


def rows_of(corpus: str, f1: list[float]) -> pd.DataFrame:
    """Made-up per-question rows (this test's own data, not a measurement): two questions per rung."""
    rows = []
    for rung, value in zip(RUNGS, f1, strict=True):
        for qid in ("q1", "q2"):
            in_context = np.nan if rung == "closed book" else 1.0 if qid == "q1" else 0.0
            rows.append({"corpus": corpus, "configuration": rung, "id": qid, "f1": value, "em": 0.0,
                         "recall@5": in_context, "answer in context": in_context, "latency": 1.0})  # fmt: skip
    return pd.DataFrame(rows)


def test_the_table_keeps_ladder_order_and_puts_the_corpora_side_by_side() -> None:
    rows = pd.concat([rows_of("course", [0.1, 0.3, 0.4, 0.5, 0.6]), rows_of("real", [0.0, 0.2, 0.5, 0.4, 0.7])])
    table = story_table(rows)
    assert list(table.index) == RUNGS
    assert list(table.columns.get_level_values(0).unique()) == list(METRICS)
    assert table.loc["+ rerank (maxsim)", ("F1", "real")] == pytest.approx(0.4)
    assert table.loc["naive (dense)", ("answer in context", "course")] == pytest.approx(0.5)
    assert np.isnan(table.loc["closed book", ("answer in context", "course")])
    assert table.attrs["questions"] == {"course": 2, "real": 2}
    assert len(plot_story(table).axes) == 2


def test_the_committed_run_covers_both_corpora_and_every_rung() -> None:
    rows = load_story(RESULTS)
    if rows is None:
        pytest.skip("bench/results/story_ladder.csv not written yet: python -m bench.story")
    assert set(rows.corpus) == {"course", "real"}
    assert list(dict.fromkeys(rows.configuration))[:2] == RUNGS[:2]
    assert rows.groupby(["corpus", "configuration"]).id.nunique().nunique() == 1  # same questions in every row
