"""Where answers are lost: each stage produced on a tiny index, and the shares and ceiling computed from them."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from bench.realworld import anatomy_table
from helpers.config import Settings
from helpers.corpus import Evidence, Question
from helpers.evaluation.misses import STAGES, miss_anatomy, reranker_ceiling, stage_shares
from helpers.evaluation.two_corpora import Corpus, close_all, indexed, tuning_settings


def _question(qid: str, text: str, answer: str) -> Question:
    return Question(qid, text, answer, "direct_fact", "dev", (Evidence("fees.md", answer),))


QUESTIONS = (
    _question("found", "What is the application fee?", "$90"),
    # the fee question's best hit is the fee page; an answer only on the capstone page ranks second
    _question("ranked", "What is the application fee?", "three to five"),
    _question("composed", "What do two application fees cost?", "$180"),  # no chunk says it
)


def test_each_question_gets_the_stage_where_its_answer_stopped(tmp_settings: Settings, tiny_corpus: Path) -> None:
    corpus = Corpus("real", tiny_corpus, QUESTIONS)
    try:
        pipeline = indexed(corpus, tuning_settings(corpus, tmp_settings, top_k=1, near_duplicate=0.0))
        anatomy = miss_anatomy(pipeline, corpus.questions, depth=5).set_index("id")
        pipeline.settings = pipeline.settings.replace(context_tokens=1)  # no passage fits
        starved = miss_anatomy(pipeline, corpus.questions[:1], depth=5).set_index("id")
    finally:
        close_all()
    assert anatomy.stage.to_dict() == {"found": "in context", "ranked": "below the top k", "composed": "in no chunk"}
    assert anatomy.loc["found", "rank"] == 1 and anatomy.loc["ranked", "rank"] == 2
    assert pd.isna(anatomy.loc["composed", "rank"])
    assert starved.loc["found", "stage"] == "cut by the budget"


def test_shares_cover_every_stage_and_the_ceiling_adds_the_reachable_ones() -> None:
    rows = pd.DataFrame({
        "corpus": ["course"] * 4 + ["real"] * 2,
        "split": ["dev"] * 6,
        "stage": ["in context", "cut by the budget", "beyond the depth", "in no chunk", "in context", "in context"],
    })  # fmt: skip
    course = rows[rows.corpus == "course"]
    assert list(stage_shares(course).index) == list(STAGES) and stage_shares(course).sum() == 1.0
    assert stage_shares(course)["below the top k"] == 0.0
    assert reranker_ceiling(course) == 0.5  # in context + cut by the budget
    table = anatomy_table(rows)
    assert table.loc[("real", "dev"), "questions"] == 2 and table.loc[("real", "dev"), "reranker ceiling"] == 1.0
    assert table.loc[("course", "dev"), "in no chunk"] == 0.25
