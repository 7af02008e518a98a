"""The self-checks of notebook 08: SQuAD EM and F1, the paired bootstrap, and the exercises after the ablation.

EM and F1 run on pairs that each test one step of SQuAD's normalisation; a resampler is checked for what any right
one does, whatever its draws (seeded, centred on mean(b - a), pairs kept together, the right spread).
What it leaves out: the prose halves, answered in the notebook and read against the instructor's rubric.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from helpers.corpus import load_gold
from helpers.evaluation.ablation import AblationResult
from helpers.evaluation.judge import RubricJudge
from helpers.exercises.base import (
    as_whole_number,
    call_student,
    function_problem,
    keeps,
    not_yet,
    number_function_verdict,
    require,
    require_answer,
    right,
    self_check,
)
from helpers.metrics.answers import squad_exact_match, squad_f1

ALPHA = 0.05  # a gain survives when fewer than 5 % of the resamples make it vanish
TOLERANCE = 1e-6

# --- SQuAD exact match and F1 (the slots "exact_match" and "f1") -----------------------------------------------

NORMALISATION_CASES = [
    # (prediction, reference, what a wrong score there says)
    ("$90", "$90", "identical answers score 1.0"),
    ("Capstone Studio", "capstone studio", "lower-case both sides before comparing"),
    ("$90.", "$90", "remove punctuation (every character of string.punctuation) from both sides"),
    ("the Capstone Studio", "capstone studio", "drop the articles a, an and the"),
    ("theory class", "ory class", "drop a, an and the only as whole words ('theory' keeps its 'the')"),
    ("three  to\nfive", "three to five", "split on any white space (line breaks and runs of spaces too)"),
    ("", "", "two answers with no words after normalisation are equal"),
    ("the", "a", "two answers with no words after normalisation are equal"),
    ("", "$90", "an empty answer matches no reference"),
]
EM_CASES = [
    ("the fee is $90", "$90", "exact match is all or nothing: an answer containing the reference is not equal to it"),
    *NORMALISATION_CASES,
]
F1_CASES = [
    *NORMALISATION_CASES,
    ("the fee is $90", "$90", "F1 = 2PR/(P+R): precision P = shared words / your words, recall R = shared words / "
     "the reference's words"),
    ("90 90", "90", "a repeated word is shared only as often as it appears on both sides (Counter(a) & Counter(b))"),
    ("$5,000", "$90", "with no shared word F1 is 0.0 (and nothing is divided by zero)"),
    ("ninety", "nine", "count words (split on white space), not characters"),
    ("$90", "", "when one side has no words after normalisation, F1 is 1.0 only if both are empty"),
]  # fmt: skip


def gold_pairs(limit: int = 12) -> list[tuple[str, str]]:
    """(prediction, reference) pairs from gold `dev` answers: the answer dressed up, padded, and another answer."""
    answers = [q.answer for q in load_gold(split="dev") if q.answer][:limit]
    pairs = []
    for answer, other in zip(answers, answers[1:] + answers[:1], strict=True):
        pairs += [(f"The {answer.upper()}.", answer), (f"{answer} per quarter", answer), (other, answer)]
    return pairs


def _explainer(cases: list[tuple[str, str, str]]) -> Callable[[str, str, float], str]:
    """explain(prediction, reference, got): the slip a wrong score on this pair points to, in words."""
    messages = {(prediction, reference): message for prediction, reference, message in cases}

    def explain(prediction: str, reference: str, got: float) -> str:
        if (prediction, reference) == ("the fee is $90", "$90") and cases is F1_CASES:
            precision, recall = 1 / 3, 1.0
            named = {recall: "recall alone", precision: "precision alone", (precision + recall) / 2: "the plain mean"}
            for value, name in named.items():
                if abs(got - value) < TOLERANCE:
                    return f"on ({prediction!r}, {reference!r}) that is {name}: F1 is the harmonic mean 2PR/(P+R)"
        message = messages.get((prediction, reference), "")
        if message:
            return f"on ({prediction!r}, {reference!r}): {message}"
        return (f"on the gold pair ({prediction!r}, {reference!r}) your score is {got:.3f}: normalise both, "
                "then compare (EM) or count the shared words (F1)")  # fmt: skip

    return explain


def squad_verdict(
    function: object, name: str, cases: list[tuple[str, str, str]], reference: Callable[[str, str], float], what: str,
    message: str,
) -> bool:  # fmt: skip
    """Right when `function` scores as `reference` on the `cases` and the gold pairs; a wrong score gets its slip."""
    pairs = [(p, r) for p, r, _ in cases] + gold_pairs()
    return number_function_verdict(function, name, pairs, reference, what, TOLERANCE, _explainer(cases), message)


@keeps("exact_match")
@self_check
def check_exact_match(function: object) -> bool:
    """Right when `function(prediction, reference)` is SQuAD's exact match on every made-up and gold pair."""
    message = "your exact match agrees with SQuAD's on every pair, normalisation included."
    return squad_verdict(function, "exact_match", EM_CASES, squad_exact_match, "1.0 or 0.0", message)


@keeps("f1")
@self_check
def check_f1(function: object) -> bool:
    """Right when `function(prediction, reference)` is SQuAD's token F1 on every made-up and gold pair."""
    message = "your F1 agrees with SQuAD's on every pair, normalisation and repeated words included."
    return squad_verdict(function, "token_f1", F1_CASES, squad_f1, "one number between 0 and 1", message)


# --- the paired bootstrap (the slot "bootstrap") ----------------------------------------------------------------

RESAMPLES = 4000  # enough draws to tell a right spread from a wrong one, in milliseconds


def paired_scores(n: int = 40, seed: int = 7) -> tuple[np.ndarray, np.ndarray]:
    """Made-up per-question scores of a baseline and a better system, correlated as real pairs are."""
    rng = np.random.default_rng(seed)
    baseline = rng.random(n).round(2)
    return baseline, np.clip(baseline + rng.normal(0.08, 0.25, n), 0, 1).round(2)


def _means(function: Callable[..., Any], a: np.ndarray, b: np.ndarray, resamples: int, seed: int) -> tuple[Any, str]:
    """The student's resample means as a 1-d float array, or (None, what is off)."""
    got, error = call_student(function, a.copy(), b.copy(), resamples, seed)
    if error:
        return None, error
    try:
        means = np.asarray(got, dtype=float)
    except (TypeError, ValueError):
        return None, f"return an array of numbers, one mean per resample; got a {type(got).__name__}"
    if means.shape != (resamples,):
        return None, f"return one mean difference per resample (shape ({resamples},)), got shape {means.shape}"
    if not np.isfinite(means).all():
        return None, "some of your means are not finite numbers"
    return means, ""


def bootstrap_slip(function: Callable[..., Any]) -> str:
    """What a resampler gets wrong, in words; empty when it behaves like a paired bootstrap."""
    a, b = paired_scores()
    diffs = b - a
    first, error = _means(function, a, b, RESAMPLES, 0)
    if error:
        return error
    again, _ = _means(function, a, b, RESAMPLES, 0)
    other, _ = _means(function, a, b, RESAMPLES, 1)
    if again is None or not np.array_equal(first, again):
        return "the same seed must give the same draws: make your generator with np.random.default_rng(seed)"
    if other is not None and np.array_equal(first, other):
        return "another seed should give other draws: pass `seed` to your generator"
    error_of_mean = diffs.std() / np.sqrt(len(diffs))  # the spread of the mean of n draws with replacement
    centre = float(first.mean())
    if abs(centre + diffs.mean()) < 5 * error_of_mean / np.sqrt(RESAMPLES) < abs(centre - diffs.mean()):
        return "your differences point the wrong way: resample b - a (the system minus the baseline)"
    if abs(centre - diffs.mean()) > 5 * error_of_mean / np.sqrt(RESAMPLES):
        return "your resample means should centre on mean(b - a): average the differences of each resample"
    constant, error = _means(function, a, a + 0.1, RESAMPLES, 0)
    if error or np.abs(constant - 0.1).max() > TOLERANCE:
        return (
            "resample the pairs together (the same question indices for a and b): when b = a + 0.1 on every "
            "question, every resample's mean difference is 0.1"
        )
    spread = float(first.std()) / error_of_mean
    if spread < 0.1:
        return "every resample gives nearly the same mean: draw n indices with replacement (a shuffle keeps each once)"
    if not 0.85 < spread < 1.15:
        return (
            "the spread of your means is off: each resample draws n question indices (as many as there are "
            "questions), with replacement, and averages their differences"
        )
    return ""


@keeps("bootstrap")
@self_check
def check_bootstrap(function: object) -> bool:
    """Right when `function(a, b, resamples, seed)` resamples paired differences the way a paired bootstrap does."""
    require(function_problem(function, "bootstrap_differences"))
    slip = bootstrap_slip(function)  # type: ignore[arg-type]
    if slip:
        return not_yet(slip)
    return right("one seeded mean of b - a per resample, pairs kept together, with the right spread.")


def surviving_gains(result: AblationResult, metric: str = "em", alpha: float = ALPHA, against: str = "") -> list[str]:
    """Configurations whose `metric` gain over the row they build on (or over `against`) has p_one_sided < alpha."""
    table = result.significance(metric)
    names = []
    for name in result.configurations[1:]:
        other = against or result.base_of(name)
        rows = table[(table.configuration == name) & (table.against == other)]
        if len(rows) and float(rows.p_one_sided.iloc[0]) < alpha:  # NaN (no paired questions) never survives
            names.append(name)
    return names


@self_check
def check_surviving_gains(answer: object, result: AblationResult, metric: str = "em", alpha: float = ALPHA) -> bool:
    """Right when `answer` lists exactly the rows whose `metric` gain over the row they build on has p < alpha."""
    require_answer(answer)
    if isinstance(answer, str) or not isinstance(answer, Iterable):
        return not_yet(f"the answer should be a list of configuration names, got a {type(answer).__name__}")
    listed = list(answer)
    if unknown := [name for name in listed if name not in result.configurations[1:]]:
        return not_yet(f"{unknown[0]!r} is not a row that builds on another: use the names in result.configurations")
    expected = surviving_gains(result, metric, alpha)
    if set(listed) == set(expected):
        survivors = (
            f"{len(expected)} of {len(result.configurations) - 1} gains survive" if expected else "no gain survives"
        )
        return right(f"{survivors} on {metric.upper()} at p < {alpha}.")
    other_metric = "f1" if metric != "f1" else "em"
    if set(listed) == set(surviving_gains(result, other_metric, alpha)):
        return not_yet(f"those survive on {other_metric.upper()}; run the bootstrap on {metric.upper()}")
    if set(listed) == set(surviving_gains(result, metric, alpha, against=result.configurations[0])):
        return not_yet("those are the gains over closed book; compare each row with the row it builds on")
    return not_yet(f"not the rows whose gain survives: read p_one_sided of each row against the row it builds on "
                   f"(< {alpha})")  # fmt: skip


# --- judge the judge --------------------------------------------------------------------------------------------


@self_check
def check_accuracy_drop(answer: object, judge: RubricJudge, question: str, reference: str, wrong: str) -> bool:
    """Right when `answer` is the judge's accuracy for the reference as answer minus its accuracy for `wrong`."""
    require_answer(answer)
    if isinstance(answer, bool) or not isinstance(answer, numbers.Real):
        return not_yet(f"the answer is one number (a difference of two scores), got {answer!r}")
    right_score = judge.judge(question, reference, reference).score
    wrong_score = judge.judge(question, reference, wrong).score
    if right_score is None or wrong_score is None:
        return not_yet("the judge gave no score for one of the two answers: print both judgements and read the error")
    drop = right_score.accuracy - wrong_score.accuracy
    if abs(float(answer) - drop) < TOLERANCE:
        return right("that is how far the judge's accuracy score falls for the wrong answer.")
    if abs(float(answer) + drop) < TOLERANCE:
        return not_yet("subtract the other way: the right answer's accuracy minus the wrong answer's")
    return not_yet("use the accuracy criterion of both judgements (judgement.score.accuracy), right minus wrong")


# --- BLEU and short answers ---------------------------------------------------------------------------------------

BLEU_WORDS = ("the", "fee", "is", "ninety", "dollars", "today")


def shortest_bleu_credit() -> int | None:
    """The fewest words a correct answer (identical to its reference) needs before ragas' BLEU is above 0."""
    from helpers.evaluation.ragas_eval import non_llm_scores

    for n in range(1, len(BLEU_WORDS) + 1):
        answer = " ".join(BLEU_WORDS[:n])
        if non_llm_scores(answer, [answer], [answer], [])["BLEU"] > 0:
            return n
    return None


@self_check
def check_shortest_bleu(answer: object) -> bool:
    """Right when `answer` is the fewest words a correct answer needs before BLEU gives it any credit."""
    count = as_whole_number(answer, f"the answer is a whole number of words, got {answer!r}")
    expected = shortest_bleu_credit()
    if count == expected:
        return right("below that many words even a perfect answer scores BLEU 0.")
    return not_yet("not the fewest words: score correct answers of one word, two words, … with non_llm_scores and "
                   "read where BLEU first rises above 0")  # fmt: skip
