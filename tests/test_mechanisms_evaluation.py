"""The slots "exact_match", "f1" and "bootstrap" really drive notebook 08's ablation table; `reset` gives it back.

A small ladder of three made-up configurations answers a seeded handful of gold `test` questions with fixed
texts (no model): a wrong answer everywhere, the reference in half of the questions, the reference dressed up
("The …." in capitals) in most. Each answer is scored by the notebook's own code (`run_answers`, the kit's
`score_answer`), and `AblationResult.table()` gives the EM and F1 columns and the paired bootstrap's p-values.
A wrong function in a slot — an F1 over characters, an EM without SQuAD's normalisation, a bootstrap of a - b —
moves the column it feeds, and `reset` brings back the kit's table exactly.
What it leaves out: the pipeline and the reader (notebook 08 runs them) and the exercises' checks.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

import numpy as np
import pandas as pd
import pytest

from helpers.corpus import Question, load_gold
from helpers.evaluation.ablation import AblationResult
from helpers.evaluation.bootstrap import paired_bootstrap, resampled_mean_differences
from helpers.generation import Answer
from helpers.generation.scores import run_answers, summarize
from helpers.mechanisms import chosen, reset, use
from helpers.metrics.answers import exact_match, f1_score, squad_exact_match, squad_f1, squad_scores

P_PREVIOUS = "p vs previous (F1)"


def handful(n: int = 12, seed: int = 0) -> list[Question]:
    """A seeded sample of answerable gold `test` questions."""
    return random.Random(seed).sample([q for q in load_gold(split="test") if q.answer], n)


def answered(question: Question, text: str) -> Answer:
    """`text` as the model's answer to `question` (one token a tenth of a second, no retrieval)."""
    return Answer(question.question, text, [], [], [], 0, 1, {"generate": 0.1})


def ladder(questions: list[Question]) -> AblationResult:
    """Three configurations of fixed answers, scored by the notebook's code, as an ablation result."""
    others = questions[1:] + questions[:1]
    pairs = list(zip(questions, others, strict=True))
    texts = {
        "closed book": {q.id: o.answer for q, o in pairs},
        "dense": {q.id: q.answer if i % 2 else o.answer for i, (q, o) in enumerate(pairs)},
        "hybrid": {q.id: f"The {q.answer.upper()}." if i % 4 else o.answer for i, (q, o) in enumerate(pairs)},
    }  # fmt: skip
    runs = {}
    for name, answers in texts.items():
        rows = run_answers(questions, lambda q, a=answers: answered(q, a[q.id]), progress=False)
        rows.insert(0, "configuration", name)
        runs[name] = rows.assign(**{"recall@5": np.nan, "faithfulness": np.nan, "latency": 0.0})
    return AblationResult(pd.concat(runs.values(), ignore_index=True), summarize(runs))


@pytest.fixture(autouse=True)
def kit_functions() -> Iterator[None]:
    """Every test starts and ends with the kit's own functions in every slot."""
    reset()
    yield
    reset()


def character_f1(prediction: str, reference: str) -> float:
    """A wrong F1: it counts shared characters, not words."""
    a, b = Counter(prediction.lower()), Counter(reference.lower())
    common = sum((a & b).values())
    return 2 * common / (sum(a.values()) + sum(b.values())) if common else 0.0


def unnormalised_exact_match(prediction: str, reference: str) -> float:
    """A wrong EM: the raw strings compared, without SQuAD's normalisation."""
    return float(prediction == reference)


def reversed_bootstrap(a: np.ndarray, b: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """A wrong bootstrap: the differences a - b."""
    return resampled_mean_differences(b, a, resamples, seed)


def test_the_kit_references_through_chosen_give_todays_scores_and_p_values() -> None:
    assert chosen("f1", squad_f1) is squad_f1 and chosen("exact_match", squad_exact_match) is squad_exact_match
    assert chosen("bootstrap", resampled_mean_differences) is resampled_mean_differences
    assert squad_scores("The fee is $90.", ["ninety", "$90"]) == {"em": 0.0, "f1": 0.5, "precision": 1 / 3, "recall": 1}
    assert exact_match("The Capstone Studio.", ["capstone studio"]) == 1.0 and f1_score("90 90", ["90"]) == 2 / 3
    rng = np.random.default_rng(5)
    a, b = rng.random(30), rng.random(30)
    diffs = b - a
    means = diffs[np.random.default_rng(3).integers(0, 30, size=(2000, 30))].mean(axis=1)  # the formula, written out
    result = paired_bootstrap(a, b, 2000, seed=3)
    assert result.p_one_sided == float(np.mean(means <= 0))
    assert (result.ci_low, result.ci_high) == tuple(np.percentile(means, [2.5, 97.5]))
    table = ladder(handful()).table()
    assert table.loc["hybrid", "EM"] == table.loc["hybrid", "F1"] == 0.75 and table.loc["dense", "F1"] == 0.5


def test_a_wrong_f1_or_em_moves_the_ablation_table_and_reset_brings_it_back() -> None:
    questions = handful()
    kit = ladder(questions).table()
    use("f1", character_f1, quiet=True)
    characters = ladder(questions).table()
    assert characters.loc["closed book", "F1"] > kit.loc["closed book", "F1"]  # wrong answers share characters
    gain = characters.loc["dense", "F1"] - characters.loc["closed book", "F1"]
    assert gain < kit.loc["dense", "F1"] - kit.loc["closed book", "F1"]  # the step's gain shrinks with it
    use("exact_match", unnormalised_exact_match, quiet=True)
    assert ladder(questions).table().loc["hybrid", "EM"] == 0.0 < kit.loc["hybrid", "EM"]  # "The …." never equals
    reset("f1")
    reset("exact_match")
    pd.testing.assert_frame_equal(ladder(questions).table(), kit)


def test_a_wrong_bootstrap_moves_the_p_values_and_reset_brings_them_back() -> None:
    result = ladder(handful())
    kit, observed = result.table(), result.significance("f1").mean_diff
    assert kit.loc["dense", P_PREVIOUS] < 0.05  # half the answers right, against none: a real gain
    use("bootstrap", reversed_bootstrap, quiet=True)
    assert result.table().loc["dense", P_PREVIOUS] > 0.95  # the same gain, read backwards
    assert result.significance("f1").mean_diff.equals(observed)  # the observed gain is the kit's to compute
    reset("bootstrap")
    pd.testing.assert_frame_equal(result.table(), kit)
