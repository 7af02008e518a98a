"""Evaluation helpers of notebook 08: bootstrap, rubric judge, ablation table and report export."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from helpers.evaluation.ablation import AblationResult
from helpers.evaluation.bootstrap import paired_bootstrap
from helpers.evaluation.judge import SCHEMA, RubricJudge, validate_rubric
from helpers.evaluation.report import export_report
from helpers.llm import Completion
from helpers.llm.cache import DiskCache
from helpers.metrics import exact_match, f1_score, squad_scores


def test_em_f1_precision_recall_on_known_pairs() -> None:
    assert exact_match("The Capstone Studio.", ["capstone studio"]) == 1.0
    # "three to five students" vs "three to five": precision 3/4, recall 1, F1 6/7
    scores = squad_scores("three to five students", ["three to five"])
    assert scores == pytest.approx({"em": 0.0, "f1": 6 / 7, "precision": 0.75, "recall": 1.0})
    assert f1_score("", ["90"]) == 0.0 and squad_scores("", [""])["f1"] == 1.0


def test_bootstrap_identical_systems_is_not_significant() -> None:
    scores = np.random.default_rng(1).random(40)
    result = paired_bootstrap(scores, scores)
    assert result.mean_diff == 0.0 and result.ci_low <= 0.0 <= result.ci_high
    assert result.p_one_sided == pytest.approx(1.0) and result.p_two_sided == pytest.approx(1.0)


def test_bootstrap_better_on_every_question_has_p_zero() -> None:
    baseline = np.linspace(0, 0.5, 30)
    result = paired_bootstrap(baseline, baseline + 0.2, seed=3)
    assert result.mean_diff == pytest.approx(0.2) and result.ci_low == pytest.approx(0.2)
    assert result.p_one_sided == 0.0 and result.p_two_sided == 0.0 and result.n == 30


def test_bootstrap_is_seeded_and_drops_missing_pairs() -> None:
    a, b = [0.0, 1.0, 0.0, 1.0, np.nan], [1.0, 1.0, 0.0, 0.0, 1.0]
    assert paired_bootstrap(a, b, seed=7) == paired_bootstrap(a, b, seed=7)
    assert paired_bootstrap(a, b).n == 4
    with pytest.raises(ValueError):
        paired_bootstrap([1.0], [1.0, 2.0])


def test_rubric_schema_validation() -> None:
    good, error = validate_rubric('{"accuracy": 5, "completeness": 4, "relevance": 5, "reason": "matches"}')
    assert good is not None and good.accuracy == 5 and error == ""
    assert validate_rubric('{"accuracy": 7, "completeness": 4, "relevance": 5, "reason": "x"}')[0] is None
    assert "completeness" in validate_rubric('{"accuracy": 3, "relevance": 5, "reason": "x"}')[1]
    assert "invalid JSON" in validate_rubric("Score: 5")[1]
    assert set(SCHEMA["required"]) == {"accuracy", "completeness", "relevance", "reason"}


class FakeJudgeLLM:
    """A fake LLM for this unit test only: replies from a script, so no model is loaded."""

    name = "fake-judge"

    def __init__(self, replies: list[str]) -> None:
        self.replies, self.calls = replies, 0

    def chat_json(self, messages: list[dict[str, str]], schema: dict, max_tokens: int) -> Completion:
        self.calls += 1
        return Completion(self.replies.pop(0), 10, 10, 0.01)


def test_rubric_judge_retries_once_caches_and_names_the_judge(tmp_path: Path) -> None:
    valid = json.dumps({"accuracy": 4, "completeness": 3, "relevance": 5, "reason": "close"})
    llm = FakeJudgeLLM(["not json", valid])
    judge = RubricJudge(llm, DiskCache(tmp_path))
    rows = [{"id": "q1", "question": "Fee?", "reference": "$90", "answer": "$90"}]
    first = judge.judge_rows(rows)
    assert llm.calls == 2 and first.loc[0, "accuracy"] == 4 and first.loc[0, "judge"] == "fake-judge"
    again = judge.judge_rows(rows)  # from the disk cache: the model is not asked again
    assert llm.calls == 2 and bool(again.loc[0, "cached"]) and again.loc[0, "completeness"] == 3
    broken = RubricJudge(FakeJudgeLLM(["{}", "{}"]), DiskCache(tmp_path / "b")).judge("Q", "R", "A")
    assert broken.score is None and broken.judge == "fake-judge" and "accuracy" in broken.error


def _result() -> AblationResult:
    """A hand-made two-configuration result: the second is better on every question."""
    rows = []
    for name, f1 in (("closed book", 0.2), ("dense", 0.7)):
        for i in range(6):
            rows.append({"configuration": name, "id": f"q{i}", "category": "numerical", "em": float(f1 > 0.5),
                         "f1": f1, "recall@5": np.nan if name == "closed book" else 1.0, "faithfulness": np.nan,
                         "latency": 1.0, "status": "answered", "answer": "x"})  # fmt: skip
    summary = pd.DataFrame({"refusal accuracy": [0.5, 0.75]}, index=["closed book", "dense"])
    return AblationResult(pd.DataFrame(rows), summary, judge="fake-judge", notes=["hand-made"])


def test_ablation_table_has_p_values() -> None:
    table = _result().table()
    assert list(table.index) == ["closed book", "dense"]
    assert table.loc["dense", "F1"] == pytest.approx(0.7)
    assert table.loc["dense", "p vs previous (F1)"] == 0.0 and np.isnan(table.loc["closed book", "p vs previous (F1)"])


def test_p_values_compare_with_the_row_a_configuration_builds_on() -> None:
    result = _result()
    extra = result.per_question[result.per_question.configuration == "dense"].assign(configuration="+ detour")
    worse = extra.assign(configuration="+ on dense", f1=0.9)
    result.per_question = pd.concat([result.per_question, extra.assign(f1=0.1), worse], ignore_index=True)
    result.builds_on = {"+ on dense": "dense"}
    table = result.table()
    assert table.loc["+ on dense", "builds on"] == "dense" and table.loc["+ detour", "builds on"] == "dense"
    sig = result.significance()  # paired with dense, not with "+ detour" right above it
    assert set(sig[sig.configuration == "+ on dense"].against) == {"dense", "closed book"}


def test_report_export_writes_three_files(tmp_path: Path, tmp_settings) -> None:
    paths = export_report(_result(), tmp_settings, tmp_path)
    assert set(paths) == {"markdown", "html", "csv"} and all(
        p.exists() and p.parent == tmp_path for p in paths.values()
    )
    text = paths["markdown"].read_text(encoding="utf-8")
    assert "CPUs" in text and "p vs previous" in text and "fake-judge" in text
    assert len(pd.read_csv(paths["csv"])) == 12


def test_ragas_non_llm_metrics_on_a_known_pair() -> None:
    from helpers.evaluation.ragas_eval import non_llm_scores

    right = non_llm_scores("$90", ["ninety", "$90"], ["The application fee is $90."], ["The application fee is $90."])
    assert right["ragas exact match"] == 1.0 and right["chrF"] == 1.0 and right["context recall (non-LLM)"] == 1.0
    wrong = non_llm_scores("$5,000", ["$90"], ["Tuition is $5,000."], ["The application fee is $90."])
    assert wrong["ragas exact match"] == 0.0 and wrong["context recall (non-LLM)"] == 0.0


class FakeRetriever:
    """Records the queries it is asked (no index needed)."""

    def __init__(self) -> None:
        self.queries: list[str] = []

    def retrieve(self, query: str, k: int, filters: dict | None = None) -> list:
        self.queries.append(query)
        return []


def test_follow_up_rung_searches_with_the_rewrite_only_for_follow_ups() -> None:
    from helpers.corpus import Question
    from helpers.evaluation.ablation import Rung
    from helpers.query import FollowUpRewriter

    history = ({"role": "user", "content": "How big are ADSc capstone teams?"},)
    follow_up = Question("c1", "What about on MLE?", "4", "conversational", "test", history=history)
    plain = Question("d1", "What is the fee?", "$90", "direct_fact", "test")
    retriever = FakeRetriever()
    rung = Rung("+ follow-up", retriever, FollowUpRewriter("keywords"))
    rung.retriever_for(follow_up).retrieve(follow_up.question, 5)
    rung.retriever_for(plain).retrieve("What is the fee?", 5)
    assert retriever.queries[0].startswith("What about on MLE?") and "capstone" in retriever.queries[0]
    assert retriever.queries[1] == "What is the fee?"
    assert Rung("closed book").retriever_for(plain) is None
