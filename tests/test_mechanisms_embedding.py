"""Notebook 03's slot drives what it measures: the cosine top-k ("top_k") under the kit's exact dense search.

The kit's `cosine_top_k` agrees with a brute-force cosine ranking (rows of any length, zero rows, ties, any k),
and through `chosen` it gives `dense_retriever` and `core.search` exactly the rankings of the plain `X @ q` and
stable sort they ran before the slot; a deliberately wrong top-k registered with `use` moves the numbers the
notebook reports (the query-prefix table's recall@5 and MRR on a fixed gold subset, the search of `core`),
and `reset` brings them back. Then the self-checks of the notebook: right on the notebook's own solution, "not
yet" with the slip named on stubs and typical mistakes.
What it leaves out: the notebook itself (nbval runs it) and the embedder (tests/test_embedding*.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable

import numpy as np
import pytest
from course_subset import SMALL_COURSE, dev_questions_within
from llama_index.core.schema import MetadataMode, TextNode

from helpers import core
from helpers.chunking import chunk_documents
from helpers.config import REPO_ROOT, get_settings
from helpers.corpus import DOCS_DIR, Question
from helpers.embedding import Embedder
from helpers.embedding.similarity import cosine_top_k
from helpers.exercises.embedding import (
    check_lowest_evidence,
    check_precision_drift,
    check_top_k,
    evidence_ranks,
    precision_drift,
    top_k_cases,
)
from helpers.lab.common import dense_retriever
from helpers.lab.embedding import compare_query_prefixes
from helpers.mechanisms import chosen, in_use, reset, use
from helpers.parsing import parse

FILES = SMALL_COURSE
NOTEBOOK = REPO_ROOT / "notebooks" / "03_embeddings.ipynb"
TopK = Callable[[np.ndarray, np.ndarray, int], list[tuple[int, float]]]


pytestmark = pytest.mark.usefixtures("kit_functions")  # tests/conftest.py


@pytest.fixture(scope="module")
def nodes() -> list[TextNode]:
    """The chunks of FILES under the configured chunking (their vectors ship with the kit)."""
    documents = [document for name in FILES for document in parse(DOCS_DIR / name, root=DOCS_DIR)]
    return chunk_documents(documents, get_settings().chunking.chunk_strategy)


@pytest.fixture(scope="module")
def questions() -> list[Question]:
    """The dev questions whose evidence lies wholly in FILES."""
    return dev_questions_within(FILES)


@pytest.fixture(scope="module")
def vectors(nodes: list[TextNode], embedder: Embedder) -> np.ndarray:
    """One unit row per chunk: what the pipeline embeds."""
    return embedder.embed_texts([node.get_content(metadata_mode=MetadataMode.EMBED) for node in nodes])


@pytest.fixture(scope="module")
def notebook_top_k() -> TopK:
    """The instructor's `cosine_top_k`, run from notebook 03's own solution cell."""
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    [source] = ["".join(c["source"]) for c in cells if "def cosine_top_k" in "".join(c["source"])]
    namespace: dict[str, object] = {"np": np}
    exec(source, namespace)  # the cell defines the function, nothing else
    return namespace["cosine_top_k"]  # type: ignore[return-value]


def brute_force(matrix: np.ndarray, query: np.ndarray, k: int) -> list[tuple[int, float]]:
    """Cosine of every row by the formula, sorted by (-cosine, row): what a top-k must return."""
    cosines = []
    for row, vector in enumerate(matrix):
        length = np.linalg.norm(vector) * np.linalg.norm(query)
        cosines.append((row, float(vector @ query / length) if length else 0.0))
    return sorted(cosines, key=lambda pair: (-pair[1], pair[0]))[: max(k, 0)]


def plain_search(matrix: np.ndarray, query: np.ndarray, k: int) -> list[tuple[int, float]]:
    """The search the kit ran before the slot: `X @ q` and a stable sort."""
    scores = matrix @ query
    return [(int(i), float(scores[i])) for i in np.argsort(-scores, kind="stable")[:k]]


def worst_first(matrix: np.ndarray, query: np.ndarray, k: int) -> list[tuple[int, float]]:
    """A deliberately wrong top-k: the k *least* similar rows."""
    return cosine_top_k(matrix, query, len(matrix))[::-1][:k]


# --- the slot -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("k", [0, 1, 3, 9, 40])
def test_the_reference_is_the_cosine_ranking(k: int) -> None:
    rng = np.random.default_rng(k)
    matrix = rng.standard_normal((9, 5)) * rng.uniform(0.1, 4.0, (9, 1))
    matrix[4] = 0.0  # a row of zeros scores 0
    matrix[7] = matrix[2] * 3.0  # the same direction as row 2: a tie, kept in row order
    query = rng.standard_normal(5) * 2.5
    got, expected = cosine_top_k(matrix, query, k), brute_force(matrix, query, k)
    assert [row for row, _ in got] == [row for row, _ in expected]
    assert np.allclose([s for _, s in got], [s for _, s in expected], atol=1e-6)
    assert cosine_top_k(np.zeros((0, 5)), query, k) == []


def test_through_chosen_the_kit_searches_exactly_as_before_the_slot(
    nodes: list[TextNode], questions: list[Question], embedder: Embedder, vectors: np.ndarray
) -> None:
    assert chosen("top_k", cosine_top_k) is cosine_top_k and in_use() == {}
    retrieve = dense_retriever(nodes, embedder, k=10)
    for question in questions:
        query = embedder.embed_query(question.question)
        before = plain_search(vectors, query, 10)
        assert [(h.node_id, h.score) for h in retrieve(question)] == [(nodes[i].node_id, s) for i, s in before]
        assert core.search(vectors, query, 10) == before


def test_a_wrong_top_k_moves_the_notebooks_table_and_reset_brings_it_back(
    nodes: list[TextNode], questions: list[Question], embedder: Embedder, vectors: np.ndarray
) -> None:
    assert len(questions) >= 10
    kit = compare_query_prefixes(nodes, questions, [""])
    query = embedder.embed_query(questions[0].question)
    use("top_k", worst_first, quiet=True)
    wrong = compare_query_prefixes(nodes, questions, [""])
    assert core.search(vectors, query, 5) == worst_first(vectors, query, 5)
    reset("top_k")
    assert wrong.loc["''", "recall@5"] < kit.loc["''", "recall@5"]
    assert wrong.loc["''", "MRR"] < kit.loc["''", "MRR"]
    assert compare_query_prefixes(nodes, questions, [""]).equals(kit)
    assert core.search(vectors, query, 5) == cosine_top_k(vectors, query, 5)


# --- the self-checks ----------------------------------------------------------------------------------------------


def verdict_of(capsys: pytest.CaptureFixture[str], check: Callable[..., bool], *args: object) -> tuple[bool, str]:
    """What a check returned and printed."""
    result = check(*args)
    return result, capsys.readouterr().out


def test_check_top_k_says_right_on_the_notebooks_solution(
    capsys: pytest.CaptureFixture[str], notebook_top_k: TopK, vectors: np.ndarray, embedder: Embedder,
    questions: list[Question],
) -> None:  # fmt: skip
    queries = embedder.embed_queries([q.question for q in questions[:5]])
    ok, out = verdict_of(capsys, check_top_k, notebook_top_k, vectors, queries)
    assert ok and out.startswith("✓ Right: ") and "5 queries against the course vectors" in out


def stub(matrix: np.ndarray, query: np.ndarray, k: int) -> list[tuple[int, float]]:
    raise NotImplementedError


def unstable(matrix: np.ndarray, query: np.ndarray, k: int) -> list[tuple[int, float]]:
    """Right scores, but equal ones in reverse row order."""
    pairs = cosine_top_k(matrix, query, len(matrix))
    return sorted(pairs, key=lambda pair: (-round(pair[1], 6), -pair[0]))[: max(k, 0)]


def divides_by_zero(matrix: np.ndarray, query: np.ndarray, k: int) -> list[tuple[int, float]]:
    """Cosines without a guard for a row of zeros."""
    if k <= 0 or len(matrix) == 0:
        return []
    with np.errstate(invalid="ignore", divide="ignore"):
        scores = (matrix / np.linalg.norm(matrix, axis=1, keepdims=True)) @ (query / np.linalg.norm(query))
    return [(int(i), float(scores[i])) for i in np.argsort(-scores, kind="stable")[:k]]


SLIPS: list[tuple[object, str]] = [
    (None, "still None"),
    (stub, "NotImplementedError"),
    (lambda m, q, k: np.argsort(-(m @ q))[:k], "list of (row, score) pairs"),
    (plain_search, "dot product"),
    (worst_first, "worst first"),
    (lambda m, q, k: cosine_top_k(m, q, k + 1), "more than k"),
    (lambda m, q, k: cosine_top_k(m, q, min(k, 3)), "return every row"),
    (lambda m, q, k: [(r, s * 2) for r, s in cosine_top_k(m, q, k)], "not their cosines"),
    (unstable, "stable sort"),
    (divides_by_zero, "nan"),
]


@pytest.mark.parametrize(("function", "hint"), SLIPS, ids=[f"slip{i}" for i in range(len(SLIPS))])
def test_check_top_k_names_the_slip_without_showing_the_ranking(
    capsys: pytest.CaptureFixture[str], function: object, hint: str
) -> None:
    ok, out = verdict_of(capsys, check_top_k, function)
    assert not ok and out.startswith("✗ Not yet: ") and hint in out, out
    for _, matrix, query, k in top_k_cases():
        assert not any(f"{score:.3f}" in out for _, score in cosine_top_k(matrix, query, k) if abs(score) > 0.01)


def test_check_precision_drift(
    capsys: pytest.CaptureFixture[str], nodes: list[TextNode], questions: list[Question]
) -> None:
    settings = get_settings()
    texts = [node.get_content(metadata_mode=MetadataMode.EMBED) for node in nodes]
    asked = [q.question for q in questions]
    mean_cosine, changed, slips = precision_drift(texts, asked, settings)
    assert 0.9 < mean_cosine < 1.0 and 0 <= changed <= len(asked)
    assert verdict_of(capsys, check_precision_drift, mean_cosine, changed, texts, asked, settings)[0]
    wrong = [
        ((None, changed), "still None"),
        ((mean_cosine, "3"), "whole number"),
        ((1.2, changed), "at most 1"),
        ((mean_cosine - 0.01, changed), "not the mean"),
        ((mean_cosine, changed + len(asked) + 1), "is off"),
    ]
    if slips["the same"] != changed:
        wrong.append(((mean_cosine, int(slips["the same"])), "stayed the same"))
    for (cosine, count), hint in wrong:
        ok, out = verdict_of(capsys, check_precision_drift, cosine, count, texts, asked, settings)
        assert not ok and hint in out, out


def test_check_lowest_evidence(
    capsys: pytest.CaptureFixture[str], nodes: list[TextNode], questions: list[Question], embedder: Embedder
) -> None:
    ranks = evidence_ranks(questions, nodes, embedder)
    lowest, first = max(ranks, key=ranks.get), min(ranks, key=ranks.get)  # type: ignore[arg-type]
    assert ranks[first] == 1 < ranks[lowest]
    assert verdict_of(capsys, check_lowest_evidence, lowest, questions, nodes, embedder)[0]
    for answer, hint in [(None, "still None"), (questions[0], "whole Question"), (7, "question id"),
                         ("no-such-id", "no question"), (first, "ranks first")]:  # fmt: skip
        ok, out = verdict_of(capsys, check_lowest_evidence, answer, questions, nodes, embedder)
        assert not ok and hint in out, out
