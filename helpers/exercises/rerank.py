"""The self-checks of notebook 06's exercises: the best keyword budget for follow-ups, and MaxSim by hand.

The budget is measured again and its recall asked for too, so a guess does not pass; a wrong MaxSim is named by
its slip (max over the wrong side, a sum, the single best pair).
What it leaves out: the token vectors themselves, and why more terms can hurt (prose).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from helpers.corpus import Question
from helpers.exercises.base import (
    as_choice,
    measured_problem,
    not_yet,
    number_function_verdict,
    require,
    right,
    self_check,
)
from helpers.metrics import evaluate_retrieval
from helpers.query import keyword_rewrite
from helpers.rerank.maxsim import maxsim

TOLERANCE = 1e-5
MaxSim = Callable[[np.ndarray, np.ndarray], float]


def token_matrices(seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    """(query tokens, passage tokens) pairs of several shapes, each row L2-normalised."""
    rng = np.random.default_rng(seed)

    def unit_rows(n: int, dimension: int = 16) -> np.ndarray:
        m = rng.standard_normal((n, dimension)).astype(np.float32)
        return m / np.linalg.norm(m, axis=1, keepdims=True)

    return [(unit_rows(q), unit_rows(p)) for q, p in ((4, 9), (7, 3), (1, 5), (6, 1))]


def _slips(q: np.ndarray, p: np.ndarray) -> dict[str, float]:
    """What the usual wrong formulas give, each with the hint that explains it."""
    sims = q @ p.T
    return {
        "each *query* token finds its best passage token: take the max over the passage tokens (axis 1), "
        "then the mean over the query tokens": float(sims.max(axis=0).mean()),
        "take the best passage token for each query token first (max), then average those": float(sims.mean()),
        "not only the single best pair: average the best cosine of every query token": float(sims.max()),
        "a mean, not a sum, over the query tokens (so long questions do not score higher)": float(
            sims.max(axis=1).sum()
        ),
    }


def _maxsim_slip(q: np.ndarray, p: np.ndarray, got: float) -> str:
    """The usual wrong formula a wrong MaxSim matches, else where to look."""
    expected = maxsim(q, p)
    for hint, value in _slips(q, p).items():
        if abs(got - value) <= TOLERANCE and abs(value - expected) > TOLERANCE:
            return hint
    return f"off for {len(q)} query and {len(p)} passage tokens: max over passage tokens, mean over query tokens"


@self_check
def check_maxsim(function: MaxSim | None) -> bool:
    """Right when `function(query_vectors, passage_vectors)` equals the kit's MaxSim on seeded token matrices."""
    message = "your MaxSim equals the kit's on query and passage token matrices of several shapes."
    what = "one number for a (query, passage) pair"
    return number_function_verdict(
        function, "maxsim_by_hand", token_matrices(), maxsim, what, TOLERANCE, _maxsim_slip, message
    )


MAX_TERMS = (2, 4, 8)


def _keyword_search(retriever: Any, max_terms: int) -> Callable[[Question], list]:
    """Search with a follow-up's keyword rewrite (the question and the earlier user turns' salient terms)."""
    return lambda q: retriever.retrieve(keyword_rewrite(q.history, q.question, max_terms), 10)


def scores_by_max_terms(
    retriever: Any, questions: Sequence[Question], choices: Sequence[int] = MAX_TERMS
) -> dict[int, dict[str, float]]:
    """recall@5 and MRR of the retriever's top 10 for the keyword-rewritten follow-ups, per `max_terms`."""
    scores = {}
    for max_terms in choices:
        mean = evaluate_retrieval(questions, _keyword_search(retriever, max_terms)).mean()
        scores[max_terms] = {"recall@5": float(mean["recall@5"]), "mrr": float(mean["mrr"])}
    return scores


def _best(scores: dict[int, dict[str, float]], metric: str) -> set[int]:
    """The choices with the highest `metric` (several when they tie)."""
    top = max(row[metric] for row in scores.values())
    return {choice for choice, row in scores.items() if row[metric] >= top - 1e-9}


@self_check
def check_best_max_terms(
    answer: object, retriever: Any, questions: Sequence[Question], choices: Sequence[int] = MAX_TERMS,
    recall: object = None,
) -> bool:  # fmt: skip
    """Right when `answer` is the `max_terms` with the best recall@5 and `recall` its recall@5 (so a guess fails)."""
    one = "the answer should be one max_terms (a whole number)"
    choice = as_choice(answer, choices, one, "measure the choices the exercise names ({choices}) and pick one of them")
    scores = scores_by_max_terms(retriever, questions, choices)
    require(measured_problem(recall, scores[choice]["recall@5"], "best_terms_recall (its recall@5)"))
    best = _best(scores, "recall@5")
    if choice in best:
        tie = f" (tied with {sorted(best - {choice})})" if len(best) > 1 else ""
        return right(f"max_terms={choice} gives the best recall@5 on these {len(questions)} follow-ups{tie}.")
    if choice in _best(scores, "mrr"):
        return not_yet("that one has the best MRR; the exercise asks for the best recall@5")
    return not_yet("not the best of the three on recall@5: measure all three on the same follow-ups and compare "
                   "their recall@5")  # fmt: skip
