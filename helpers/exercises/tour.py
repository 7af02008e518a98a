"""The self-checks of notebook 00's exercises, all on the visible core (`helpers.core`).

Each asks the core again, names the usual slip (a rank from 0, a floor ignored, no limit of k) and never prints
the expected value; the student's loop must give the core's reply (the answer cache makes it repeatable).
What it leaves out: whether the model refuses or invents, and the prompt's token counts.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from helpers.core import search
from helpers.exercises.base import (
    as_whole_number,
    call_for_pairs,
    function_problem,
    not_yet,
    require,
    require_answer,
    result_of,
    right,
    self_check,
)

TOLERANCE = 1e-5  # float32 cosines agree to 5 decimals
Pairs = list[tuple[int, float]]
SearchAbove = Callable[[np.ndarray, np.ndarray, int, float], Pairs]


def best_cosine(rag: Any, question: str) -> float:
    """The cosine of the best passage the core retrieves for `question` (`rag` is a `TinyRAG`)."""
    return float(rag.retrieve(question)[0][1])


@self_check
def check_refusal_threshold(threshold: object, rag: Any, answered: str, refused: str) -> bool:
    """Right when a best cosine below `threshold` refuses `refused` and still lets `answered` through."""
    require_answer(threshold)
    if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real):
        return not_yet(f"the threshold should be one number (a cosine), got a {type(threshold).__name__}")
    value = float(threshold)
    if not -1.0 <= value <= 1.0:
        return not_yet("a cosine lies between -1 and 1: read the cosines the core's search prints (rag.retrieve)")
    low, high = best_cosine(rag, refused), best_cosine(rag, answered)
    if low >= high:
        return not_yet("no threshold separates these two questions: the unanswerable one's best passage is closer")
    if value <= low or value > high:
        return not_yet(f"this threshold does not refuse {refused!r} and answer {answered!r} both: print the best "
                       "cosine of each question (rag.retrieve) and choose a threshold between them")  # fmt: skip
    return right(f"a best cosine below {value:.3f} refuses {refused!r} and still answers {answered!r}.")


def first_rank(rag: Any, question: str, text: str) -> int | None:
    """The rank (from 1) of the first chunk holding `text` when the core ranks every chunk for `question`."""
    ranked = search(rag.matrix, rag.embedder.embed_query(question), len(rag.chunks))
    return next((rank for rank, (row, _) in enumerate(ranked, start=1) if text in rag.chunks[row].text), None)


@self_check
def check_first_rank(rank: object, rag: Any, question: str, answer: str) -> bool:
    """Right when `rank` is where the core's search puts the first chunk holding `answer` (counted from 1)."""
    count = as_whole_number(rank, f"the answer should be a whole number (a rank), got a {type(rank).__name__}")
    expected = first_rank(rag, question, answer)
    if expected is None:
        return not_yet(f"no chunk of this corpus holds {answer!r}: choose an answer the documents state")
    if count == expected:
        return right(f"the first passage holding {answer!r} is at rank {count}: with k below it, "
                     "the model never sees the answer.")  # fmt: skip
    if count == expected - 1:
        return not_yet("ranks count from 1 (the best passage is rank 1), not from 0 as Python's indices do")
    return not_yet(f"not the rank of the first chunk holding {answer!r}: rank every chunk with core.search and "
                   "walk the ranking from the top")  # fmt: skip


def reference_search_above(matrix: np.ndarray, query: np.ndarray, k: int, min_cosine: float) -> Pairs:
    """The reference: the core's top k, without the rows whose cosine is below `min_cosine`."""
    return [(row, score) for row, score in search(matrix, query, k) if score >= min_cosine]


def search_cases(seed: int = 0) -> list[tuple[np.ndarray, np.ndarray, int, float]]:
    """(matrix, query, k, min_cosine): some rows pass the floor, none pass, more than k pass, no floor at all."""
    rng = np.random.default_rng(seed)
    matrix = rng.standard_normal((60, 16)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    query = matrix[7] + 0.6 * rng.standard_normal(16).astype(np.float32)
    query /= np.linalg.norm(query)
    scores = np.sort(matrix @ query)[::-1]
    between = float(scores[2] + scores[3]) / 2  # three rows pass, the k asked for is larger
    return [(matrix, query, 5, between), (matrix, query, 4, 0.999), (matrix, query, 3, 0.0), (matrix, query, 6, -1.0)]


def _same(got: Pairs, expected: Pairs) -> bool:
    """Same rows in the same order, cosines within the tolerance."""
    return [r for r, _ in got] == [r for r, _ in expected] and all(
        abs(a - b) <= TOLERANCE for (_, a), (_, b) in zip(got, expected, strict=True)
    )


def _search_slip(got: Pairs, matrix: np.ndarray, query: np.ndarray, k: int, min_cosine: float) -> str:
    """What a wrong result looks like: the floor ignored, no limit of k, the wrong order, or else."""
    expected = reference_search_above(matrix, query, k, min_cosine)
    if _same(got, search(matrix, query, k)):
        return f"all {k} passages come back: leave out the ones whose cosine is below min_cosine"
    if _same(got, reference_search_above(matrix, query, len(matrix), min_cosine)):
        return "every row above the floor comes back: return at most k of them, the best ones"
    if sorted(r for r, _ in got) == sorted(r for r, _ in expected):
        return "the right rows in the wrong order: best cosine first"
    return f"off for k={k}, min_cosine={min_cosine:.3f}: the k best rows, only those whose cosine reaches the floor"


@self_check
def check_search_above(function: SearchAbove | None) -> bool:
    """Right when `function(matrix, query, k, min_cosine)` keeps the k best rows whose cosine reaches the floor."""
    require(function_problem(function, "search_above"))
    for matrix, query, k, min_cosine in search_cases():
        wanted = "return a list of (row, cosine) pairs like core.search does, got {}"
        pairs = call_for_pairs(function, matrix, query, k, min_cosine, wanted=wanted)  # type: ignore[arg-type]
        if not _same(pairs, reference_search_above(matrix, query, k, min_cosine)):
            return not_yet(_search_slip(pairs, matrix, query, k, min_cosine))
    return right("at most k rows, best first, none below the floor — and an empty list when no row reaches it.")


@self_check
def check_rag(function: object, rag: Any, questions: Sequence[str]) -> bool:
    """Right when `function(question)` gives the core's reply to each question: its own search, prompt and call."""
    require(function_problem(function, "rag"))
    if "ask" in getattr(getattr(function, "__code__", None), "co_names", ()):
        return not_yet("write the loop itself — search, build_prompt, the model's chat — rather than calling an ask")
    for question in questions:
        got = result_of(function, question, rag.k)
        if not isinstance(got, str):
            return not_yet(f"return the model's reply as text (.text of what chat gives), got a {type(got).__name__}")
        if got.strip() != rag.ask(question).text:
            return not_yet(
                f"for {question!r} the model was asked something else than by the core: the k best chunks of "
                "core.search, numbered by core.build_prompt, and chat(messages, max_tokens=48)"
            )
    return right(f"your loop answers {len(questions)} questions exactly as the core does.")
