"""The self-checks of notebooks 07 and 08's student-written functions: ✓ on the kit's reference, a named slip else.

Each check gets the kit's own function (it must say ✓), a stub, and the usual slips, each of which must get
"✗ Not yet" with the hint that names it and without the expected value. The checks that call a model or ragas
(`check_accuracy_drop`, `check_shortest_bleu`) and the count of chunks run in notebooks 07 and 08 under nbval.
What it leaves out: whether the notebooks call the checks (tests/test_checks.py) and the slots' plumbing
(tests/test_mechanisms_generation.py, tests/test_mechanisms_evaluation.py).
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Callable

import numpy as np
import pytest
from test_checks import assert_not_yet, assert_right

from helpers.chunking import count_tokens
from helpers.evaluation.bootstrap import resampled_mean_differences
from helpers.exercises import evaluation as evaluation_checks
from helpers.exercises.base import STRICT_ENV
from helpers.exercises.evaluation import check_bootstrap, check_exact_match, check_f1
from helpers.exercises.generation import check_budget, check_prompt, fit_variant
from helpers.generation.budget import fit_passages
from helpers.generation.prompts import numbered_prompt
from helpers.metrics.answers import normalize_answer, squad_exact_match, squad_f1

REAL = [
    "The application fee is $90 and cannot be waived.\n\nPay it online.",
    "Full-time tuition is $14,850 per quarter; part-time students pay per unit. " * 6,
    "Capstone teams have three to five students and a faculty mentor. " * 4,
]


@pytest.fixture(autouse=True)
def lenient(monkeypatch: pytest.MonkeyPatch) -> None:
    """Checks print and return here, as in a student's notebook."""
    monkeypatch.delenv(STRICT_ENV, raising=False)


def stub(*args: object) -> None:
    raise NotImplementedError


# --- notebook 07: the prompt and the budget -----------------------------------------------------------------------


def layout(numbering_start: int = 1, collapse: bool = True, separator: str = "\n\n", tail: str = "\n\nQuestion: ") -> \
        Callable[[str, list[str]], str]:  # fmt: skip
    """A prompt builder with one slip switched on (all defaults: the kit's layout)."""

    def build(question: str, passages: list[str]) -> str:
        texts = [" ".join(t.split()) if collapse else t for t in passages]
        numbered = separator.join(f"[{n}] {t}" for n, t in enumerate(texts, start=numbering_start))
        return f"Context:\n{numbered}{tail}{question}"

    return build


def test_check_prompt_accepts_the_kits_layout(capsys) -> None:
    assert_right(capsys, check_prompt, numbered_prompt, REAL)
    assert_right(capsys, check_prompt, layout(), REAL)


@pytest.mark.parametrize(
    ("function", "hint"),
    [
        (None, "still None"),
        (stub, "NotImplementedError"),
        (layout(numbering_start=0), "from 1"),
        (layout(collapse=False), "collapse the white space"),
        (layout(separator="\n"), "blank line"),
        (layout(tail="\nQuestion: "), "end with a blank line"),
        (lambda q, p: [q, *p], "one string"),
    ],
)
def test_check_prompt_names_the_slip(capsys, function, hint) -> None:
    assert_not_yet(capsys, check_prompt, function, REAL, hint=hint, hidden=[numbered_prompt("Q", REAL)])


def test_check_budget_accepts_the_kits_fitting(capsys) -> None:
    assert_right(capsys, check_budget, fit_passages, REAL)


@pytest.mark.parametrize(
    ("changes", "hint"),
    [
        ({"label": 0, "piece_label": False}, "LABEL_TOKENS"),
        ({"cut": False}, "cut_to_tokens"),
        ({"piece": 0}, "MIN_PIECE_TOKENS"),
        ({"stop": False}, "stop"),
    ],
)
def test_check_budget_names_the_slip(capsys, changes, hint) -> None:
    assert_not_yet(capsys, check_budget, lambda p, r, c: fit_variant(p, r, c, **changes), REAL, hint=hint)


def test_check_budget_wants_the_given_counter_and_a_list(capsys) -> None:
    assert_not_yet(capsys, check_budget, lambda p, r, c: fit_passages(p, r, count_tokens), REAL, hint="`count`")
    assert_not_yet(capsys, check_budget, lambda p, r, c: "\n".join(p), REAL, hint="list of the passages' texts")
    assert_not_yet(capsys, check_budget, stub, REAL, hint="NotImplementedError")


# --- notebook 08: EM, F1 and the bootstrap ------------------------------------------------------------------------


def f1_variant(normalise: Callable[[str], str] = normalize_answer, score: str = "f1", counts: bool = True) -> \
        Callable[[str, str], float]:  # fmt: skip
    """A token F1 with one slip switched on (all defaults: SQuAD's)."""

    def f1(prediction: str, reference: str) -> float:
        mine, theirs = normalise(prediction).split(), normalise(reference).split()
        if not mine or not theirs:
            return float(mine == theirs)
        if counts:
            shared = sum((Counter(mine) & Counter(theirs)).values())
        else:
            mine, theirs = sorted(set(mine)), sorted(set(theirs))
            shared = len(set(mine) & set(theirs))
        if not shared:
            return 0.0
        precision, recall = shared / len(mine), shared / len(theirs)
        return {"f1": 2 * precision * recall / (precision + recall), "recall": recall}[score]

    return f1


def no_lower(text: str) -> str:
    return " ".join(re.sub(r"\b(a|an|the)\b", " ", "".join(c for c in text if c not in string.punctuation)).split())


def articles_anywhere(text: str) -> str:
    text = "".join(c for c in text.lower() if c not in string.punctuation)
    for article in ("the", "an", "a"):
        text = text.replace(article, " ")
    return " ".join(text.split())


def test_check_f1_and_em_accept_squad(capsys) -> None:
    assert_right(capsys, check_f1, squad_f1)
    assert_right(capsys, check_exact_match, squad_exact_match)


@pytest.mark.parametrize(
    ("function", "hint"),
    [
        (None, "still None"),
        (stub, "NotImplementedError"),
        (f1_variant(no_lower), "lower-case"),
        (f1_variant(articles_anywhere), "whole words"),
        (f1_variant(lambda t: t), "lower-case"),
        (f1_variant(score="recall"), "recall alone"),
        (f1_variant(counts=False), "repeated word"),
    ],
)
def test_check_f1_names_the_slip(capsys, function, hint) -> None:
    assert_not_yet(capsys, check_f1, function, hint=hint, hidden=["0.667", "0.5 "])


@pytest.mark.parametrize(
    ("function", "hint"),
    [
        (lambda p, r: float(normalize_answer(r) in normalize_answer(p)), "all or nothing"),
        (lambda p, r: float(p.lower() == r.lower()), "punctuation"),
        (lambda p, r: "yes", "1.0 or 0.0"),
    ],
)
def test_check_exact_match_names_the_slip(capsys, function, hint) -> None:
    assert_not_yet(capsys, check_exact_match, function, hint=hint)


def unpaired(a: np.ndarray, b: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = len(a)
    return b[rng.integers(0, n, (resamples, n))].mean(axis=1) - a[rng.integers(0, n, (resamples, n))].mean(axis=1)


def shuffled(a: np.ndarray, b: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.array([rng.permutation(b - a).mean() for _ in range(resamples)])


def a_loop(a: np.ndarray, b: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """Right, with other draws than the kit's: a loop of rng.choice."""
    rng = np.random.default_rng(seed)
    return np.array([rng.choice(b - a, len(a)).mean() for _ in range(resamples)])


def test_check_bootstrap_accepts_any_right_resampler(capsys) -> None:
    assert_right(capsys, check_bootstrap, resampled_mean_differences)
    assert_right(capsys, check_bootstrap, a_loop)


@pytest.mark.parametrize(
    ("function", "hint"),
    [
        (stub, "NotImplementedError"),
        (lambda a, b, r, s: resampled_mean_differences(a, b, r, None), "same seed"),
        (lambda a, b, r, s: resampled_mean_differences(b, a, r, s), "wrong way"),
        (unpaired, "pairs together"),
        (shuffled, "with replacement"),
        (lambda a, b, r, s: resampled_mean_differences(a, b, 10, s), "one mean difference per resample"),
    ],
)
def test_check_bootstrap_names_the_slip(capsys, function, hint) -> None:
    assert_not_yet(capsys, check_bootstrap, function, hint=hint)


# --- notebook 08: the fewest words BLEU credits ------------------------------------------------------------------


def test_shortest_bleu_says_no_direction(capsys, monkeypatch) -> None:
    """Fewer and more words than the answer read the same, so the answer cannot be found by moving one way."""
    monkeypatch.setattr(evaluation_checks, "shortest_bleu_credit", lambda: 4)
    assert evaluation_checks.check_shortest_bleu(4) is True
    capsys.readouterr()
    outs = []
    for wrong in (1, 3, 5, 6):
        assert evaluation_checks.check_shortest_bleu(wrong) is False
        outs.append(capsys.readouterr().out)
    assert len(set(outs)) == 1 and "4" not in outs[0] and "fewer" not in outs[0]
