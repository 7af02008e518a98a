"""The self-checks of notebook 03: a cosine top-k, int8 against fp32 vectors, and the worst-ranked evidence.

A wrong top-k is named by its slip (a plain dot product, worst first, an unstable sort); the other two embed again
(the cache answers most of it) and compare. None prints the expected value.
What it leaves out: the embedder itself (tests/test_embedding.py), and the prose half of each exercise.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence

import numpy as np
from llama_index.core.schema import MetadataMode, TextNode

from helpers.config import Settings
from helpers.corpus import Question
from helpers.embedding import Embedder
from helpers.embedding.similarity import cosine_top_k, unit_rows
from helpers.exercises.base import (
    STUB_HINT,
    answer_problem,
    as_count,
    call_for_pairs,
    function_problem,
    keeps,
    not_yet,
    require,
    right,
    self_check,
)
from helpers.metrics import chunk_supports

# --- the cosine top-k (the `top_k` slot) ---------------------------------------------------------------------------

TopK = Callable[[np.ndarray, np.ndarray, int], list[tuple[int, float]]]
TopKCase = tuple[str, np.ndarray, np.ndarray, int]  # (what the case is, matrix, query, k)
SCORE_TOLERANCE = 1e-4
TOP_K_QUERIES = 5  # real queries checked against the course vectors


def top_k_cases(vectors: np.ndarray | None = None, queries: np.ndarray | None = None) -> list[TopKCase]:
    """Small matrices that each test one rule of the top-k, then real queries against the course vectors."""
    rng = np.random.default_rng(0)
    unit = unit_rows(rng.standard_normal((6, 8)))
    lengths = np.array([[0.2], [5.0], [1.0], [0.5], [3.0], [1.5]])
    query = unit[2] * 0.7 + unit[4] * 0.3
    cases = [
        ("unit rows", unit, unit_rows(query), 3),
        ("rows and a query that are not unit length", unit * lengths, query * 4.0, 3),
        ("a row of zeros", np.vstack([unit[:3], np.zeros(8), unit[3:]]), unit_rows(query), 7),
        ("equal rows (a tie)", np.vstack([unit[1], unit[4], unit[1], unit[4]]), unit[4], 4),
        ("k = 0", unit, unit[0], 0),
        ("k larger than the number of rows", unit, unit[3], 10),
        ("no rows at all", np.zeros((0, 8)), unit[0], 3),
    ]
    if vectors is not None and queries is not None and len(vectors):
        cases += [(f"the course vectors, query {i + 1}", vectors, q, 10) for i, q in enumerate(queries[:TOP_K_QUERIES])]
    return cases


def _same_ranking(got: list[tuple[int, float]], expected: list[tuple[int, float]], exact_rows: bool) -> bool:
    """Same length and scores at every rank; the same rows too (or, on real data, rows whose scores tie)."""
    if len(got) != len(expected):
        return False
    if not all(abs(g - e) <= SCORE_TOLERANCE for (_, g), (_, e) in zip(got, expected, strict=True)):
        return False
    return [r for r, _ in got] == [r for r, _ in expected] or not exact_rows


def _dot_top_k(matrix: np.ndarray, query: np.ndarray, k: int) -> list[int]:
    """The rows a plain dot product would rank first (no normalisation)."""
    return [int(i) for i in np.argsort(-(matrix @ query), kind="stable")[: max(k, 0)]]


def _top_k_slip(case: TopKCase, got: list[tuple[int, float]], expected: list[tuple[int, float]]) -> str:
    """What a wrong top-k for `case` looks like, without showing the expected rows or scores."""
    name, matrix, query, k = case
    where = f"on {name} (k = {k})"
    rows, expected_rows = [r for r, _ in got], [r for r, _ in expected]
    if k <= 0 and got:
        return f"{where}: k = 0 asks for no rows — return an empty list"
    if len(matrix) == 0 and got:
        return f"{where}: a matrix with no rows has nothing to rank — return an empty list"
    if len(got) > len(expected):
        return f"{where}: more than k pairs — keep only the k best"
    if len(got) < len(expected):
        return f"{where}: fewer pairs than expected — when k is larger than the number of rows, return every row"
    if any(not 0 <= r < len(matrix) for r in rows):
        return f"{where}: a row number outside the matrix — return the index of each row (0 … n - 1)"
    if any(np.isnan(score) for _, score in got):
        return f"{where}: a score is nan — a row of zeros has no direction: give it cosine 0, do not divide by 0"
    scores = [score for _, score in got]
    if len(rows) > 1 and (rows == expected_rows[::-1] or scores == sorted(scores) != sorted(scores, reverse=True)):
        return f"{where}: worst first — sort from the highest score to the lowest"
    if rows == _dot_top_k(matrix, query, k) and rows != expected_rows:
        return f"{where}: ranked by the dot product — when rows have other lengths, scale rows and query to length 1"
    if rows == expected_rows:
        return f"{where}: the right rows, but the scores are not their cosines (scale both rows and query to length 1)"
    if sorted(rows) == sorted(expected_rows):
        return f"{where}: the right rows in another order — equal scores keep the order of their rows (a stable sort)"
    return f"{where}: not the k rows with the highest cosine similarity to the query"


@keeps("top_k")
@self_check
def check_top_k(function: TopK | None, vectors: np.ndarray | None = None, queries: np.ndarray | None = None) -> bool:
    """Right when `function(matrix, query, k)` gives the kit's cosine top-k on small cases and the course vectors."""
    require(function_problem(function, "cosine_top_k"))
    cases = top_k_cases(vectors, queries)
    for case in cases:
        name, matrix, query, k = case
        wanted = "return a list of (row, score) pairs, best first — got {}"
        pairs = call_for_pairs(function, matrix.copy(), query.copy(), k, wanted=wanted, on=name)  # type: ignore[arg-type]
        expected = cosine_top_k(matrix, query, k)
        if not _same_ranking(pairs, expected, exact_rows=not name.startswith("the course")):
            return not_yet(_top_k_slip(case, pairs, expected))
    real = len(cases) - len(top_k_cases())
    what = f"{len(cases) - real} small cases" + (f" and {real} queries against the course vectors" if real else "")
    return right(f"your top-k ranks by cosine, best first, ties in row order, on {what}.")


# --- int8 against fp32 -------------------------------------------------------------------------------------------

PRECISIONS = ("int8", "fp32")
DRIFT_TOLERANCE = 1e-5  # the same cached vectors on both sides: only float32 rounding differs


def precision_drift(
    texts: Sequence[str], questions: Sequence[str], settings: Settings, k: int = 5
) -> tuple[float, int, dict[str, float]]:
    """(mean cosine of a text's int8 and fp32 vectors, questions whose top-k rows differ, the usual slips)."""
    embedders = {p: Embedder(settings.replace(embed_backend="onnx", embed_precision=p)) for p in PRECISIONS}
    chunks = {p: e.embed_texts(list(texts)) for p, e in embedders.items()}
    asked = {p: e.embed_queries(list(questions)) for p, e in embedders.items()}
    cosines = np.sum(chunks["int8"] * chunks["fp32"], axis=1)
    tops = {p: [[r for r, _ in cosine_top_k(chunks[p], q, k)] for q in asked[p]] for p in PRECISIONS}
    pairs = list(zip(tops["int8"], tops["fp32"], strict=True))
    changed = sum(a != b for a, b in pairs)
    slips = {
        "the same": float(len(pairs) - changed),
        "as sets": float(sum(set(a) != set(b) for a, b in pairs)),
        "top 1": float(sum(a[:1] != b[:1] for a, b in pairs)),
        "median": float(np.median(cosines)),
        "minimum": float(np.min(cosines)),
    }
    return float(np.mean(cosines)), changed, slips


@self_check
def check_precision_drift(
    mean_cosine: object, top5_changed: object, texts: Sequence[str], questions: Sequence[str], settings: Settings
) -> bool:
    """Right when the two answers are the mean int8–fp32 cosine over `texts` and the count of changed top-5 lists."""
    if mean_cosine is None or top5_changed is None:
        return not_yet(STUB_HINT)
    if isinstance(mean_cosine, bool) or not isinstance(mean_cosine, numbers.Real | np.floating):
        return not_yet(f"precision_cosine should be one number (a mean), got a {type(mean_cosine).__name__}")
    count = as_count(top5_changed)
    if count is None:
        return not_yet(f"top5_changed should be a whole number of questions, got {type(top5_changed).__name__}")
    expected_cosine, expected_count, slips = precision_drift(texts, questions, settings)
    value = float(mean_cosine)
    if abs(value - expected_cosine) > DRIFT_TOLERANCE:
        if value > 1 + DRIFT_TOLERANCE:
            return not_yet("a cosine is at most 1: both vectors have length 1, so it is their dot product")
        for slip in ("median", "minimum"):
            if abs(value - slips[slip]) <= DRIFT_TOLERANCE:
                return not_yet(f"that is the {slip} of the cosines: the exercise asks for their mean")
        return not_yet("not the mean over the chunk texts of the cosine between each text's int8 and fp32 vectors")
    if count != expected_count:
        if count == slips["the same"]:
            return not_yet("that counts the questions whose top 5 stayed the same: count the ones that changed")
        if count == slips["as sets"]:
            return not_yet("that compares the top 5 as sets: compare the lists, in order")
        if count == slips["top 1"]:
            return not_yet("that compares only the first row: compare the whole top-5 list")
        return not_yet("the number of questions whose top-5 list (rows, in order) differs between int8 and fp32 is off")
    return right(f"int8 against fp32 on {len(texts)} chunks and {len(questions)} questions, measured.")


# --- the question whose evidence ranks lowest ---------------------------------------------------------------------


def evidence_ranks(questions: Sequence[Question], nodes: Sequence[TextNode], embedder: Embedder) -> dict[str, int]:
    """For each question with evidence some chunk holds: the rank (1 = first) of its first supporting chunk."""
    matrix = embedder.embed_texts([node.get_content(metadata_mode=MetadataMode.EMBED) for node in nodes])
    asked = [q for q in questions if q.evidence]
    ranks = {}
    for question, query in zip(asked, embedder.embed_queries([q.question for q in asked]), strict=True):
        for rank, (row, _) in enumerate(cosine_top_k(matrix, query, len(nodes)), start=1):
            node = nodes[row]
            if any(chunk_supports(node.text, str(node.metadata.get("source")), e) for e in question.evidence):
                ranks[question.id] = rank
                break
    return ranks


@self_check
def check_lowest_evidence(
    answer: object, questions: Sequence[Question], nodes: Sequence[TextNode], embedder: Embedder
) -> bool:
    """Right when `answer` is the id of a question whose first evidence chunk ranks lowest of all the questions."""
    whole_question = "that is the whole Question: the answer is its id (question.id)"
    require(answer_problem(answer, str, "a question id (a string)", [(Question, whole_question)]))
    if answer not in {q.id for q in questions}:
        return not_yet(f"no question of the set has the id {answer!r}")
    ranks = evidence_ranks(questions, nodes, embedder)
    if answer not in ranks:
        return not_yet("no chunk holds that question's evidence, so it has no rank: leave such questions out")
    lowest = max(ranks.values())
    if ranks[answer] == lowest:
        return right(f"of {len(ranks)} questions, that one's evidence comes last in its ranking.")
    if ranks[answer] == 1:
        return not_yet("that question's evidence ranks first: you want the one whose evidence ranks lowest")
    if ranks[answer] <= 10:
        return not_yet("that question's evidence is in its top 10: rank every chunk (k = the number of chunks)")
    return not_yet("another question's evidence ranks lower still: compare the rank of every question")
