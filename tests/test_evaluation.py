"""Metrics against hand-computed values."""

from __future__ import annotations

import math

import pytest

from helpers.corpus import Evidence
from helpers.metrics import (
    chunk_supports,
    exact_match,
    f1_score,
    hit_at_k,
    mrr,
    ndcg_at_k,
    normalize_answer,
    recall_at_k,
    relevance_labels,
    squad_scores,
)
from helpers.types import Hit


def test_squad_normalisation_and_scores() -> None:
    assert normalize_answer("The  Fee: $90!") == "fee 90"
    assert exact_match("the $90", ["$90"]) == 1.0
    assert exact_match("90 dollars", ["$90"]) == 0.0
    # prediction "fee is 90" vs reference "90": precision 1/3, recall 1 -> F1 0.5
    assert f1_score("fee is 90", ["90"]) == pytest.approx(0.5)
    assert f1_score("nothing", ["90", "fee is 90"]) == 0.0
    scores = squad_scores("fee is 90", ["ninety", "90"])
    assert scores["precision"] == pytest.approx(1 / 3) and scores["recall"] == 1.0


def test_chunk_supports_needs_same_doc_and_most_of_the_quote() -> None:
    quote = Evidence("a.md", "The application fee is ninety dollars for every applicant to the program.")
    assert chunk_supports("Intro. The application  fee is ninety dollars for every applicant", "a.md", quote)
    assert not chunk_supports("The application fee is ninety dollars", "b.md", quote)
    assert not chunk_supports("fee is ninety", "a.md", quote)


def test_ranking_metrics_by_hand() -> None:
    evidence = [Evidence("a", "alpha beta gamma delta"), Evidence("b", "one two three four")]
    hits = [
        Hit("1", "nothing here", {"source": "a"}),
        Hit("2", "x alpha beta gamma delta", {"source": "a"}),
        Hit("3", "nothing", {"source": "b"}),
        Hit("4", "one two three four", {"source": "b"}),
    ]
    labels = relevance_labels(hits, evidence)
    assert labels == [set(), {0}, set(), {1}]
    assert hit_at_k(labels, 1) == 0.0 and hit_at_k(labels, 2) == 1.0
    assert recall_at_k(labels, 2, 2) == 0.5 and recall_at_k(labels, 4, 2) == 1.0
    assert mrr(labels) == 0.5
    dcg = 1 / math.log2(3) + 1 / math.log2(5)
    ideal = 1 / math.log2(2) + 1 / math.log2(3)
    assert ndcg_at_k(labels, 4, 2) == pytest.approx(dcg / ideal)
    assert mrr([set(), set()]) == 0.0
