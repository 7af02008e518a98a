"""The self-checks of notebooks 00, 01, 04, 06 and 11: right on the instructor's answer, "not yet" on stubs and slips.

Each check gets the answer the instructor notebook computes (✓), a stub (None, a function that still raises
NotImplementedError), and the typical slips, each of which must say "✗ Not yet" with a hint and without printing
the expected value. Inputs are small and made here (a five-chunk TinyRAG on hand-made vectors, a coverage table,
fake OCR text), except the routing questions and the academic calendar, which are the course's own files.
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from test_checks import assert_not_yet

from helpers import core
from helpers.corpus import DOCS_DIR, Evidence, Question, load_routing
from helpers.exercises import rerank as rerank_checks
from helpers.exercises import sources as sources_checks
from helpers.exercises.base import STRICT_ENV
from helpers.exercises.parsing import check_row_sentence, check_whole_quotes
from helpers.exercises.rerank import check_best_max_terms, scores_by_max_terms
from helpers.exercises.sources import check_list_field, check_lost_words, check_me_only_planner, check_pairs_left
from helpers.exercises.store import check_changed_document
from helpers.exercises.tour import check_first_rank, check_refusal_threshold, check_search_above
from helpers.parsing import row_to_sentence
from helpers.sources import KeywordPlanner
from helpers.sources.planner import ME, MY_DOCS
from helpers.testset.generate import Generated
from helpers.types import Hit


@pytest.fixture(autouse=True)
def lenient(monkeypatch: pytest.MonkeyPatch) -> None:
    """Checks print and return here, as in a student's notebook (notebooks/conftest.py makes nbval strict)."""
    monkeypatch.delenv(STRICT_ENV, raising=False)


def assert_right(capsys: pytest.CaptureFixture[str], check: Callable[..., bool], *args: object, **kw: object) -> str:
    """The check says ✓ and returns True."""
    assert check(*args, **kw) is True, capsys.readouterr().out
    out = capsys.readouterr().out
    assert out.startswith("✓ Right: "), out
    return out




def stub(*args: object) -> object:
    """A student's function before they wrote it."""
    raise NotImplementedError


# --- notebook 00: the visible core -------------------------------------------------------------------------------

FEE, PARKING = "What is the application fee?", "How much is parking?"
CHUNKS = {  # text → its (unit-length after normalising) vector
    "Tuition is due in September.": [1.0, 0.0, 0.0, 0.0],
    "Apply online by January.": [0.9, 0.436, 0.0, 0.0],
    "The application fee is $90.": [0.8, 0.6, 0.0, 0.0],
    "Housing is off campus.": [0.0, 0.0, 1.0, 0.0],
    "The campus map.": [0.0, 0.0, 0.0, 1.0],
}
QUERIES = {FEE: [1.0, 0.05, 0.0, 0.0], PARKING: [0.5, 0.0, 0.5, 0.5]}


def _unit(vector: list[float]) -> np.ndarray:
    array = np.asarray(vector, dtype=np.float32)
    return array / np.linalg.norm(array)


class FakeEmbedder:
    """Hand-made vectors instead of MiniLM."""

    def embed_texts(self, texts: list[str]) -> np.ndarray:
        return np.stack([_unit(CHUNKS[text]) for text in texts])

    def embed_query(self, question: str) -> np.ndarray:
        return _unit(QUERIES[question])


@pytest.fixture(scope="module")
def rag() -> core.TinyRAG:
    """A TinyRAG over five chunks: the fee is the third best for FEE; PARKING's best cosine is far lower."""
    return core.TinyRAG([core.Chunk(text, "x.md") for text in CHUNKS], FakeEmbedder(), llm=None, k=2)


def test_refusal_threshold(capsys, rag) -> None:
    low, high = (rag.retrieve(q)[0][1] for q in (PARKING, FEE))
    threshold = (low + high) / 2  # the instructor's solution
    out = assert_right(capsys, check_refusal_threshold, threshold, rag, answered=FEE, refused=PARKING)
    assert PARKING in out
    hidden = [f"{low:.3f}", f"{high:.3f}"]
    args = (rag,)
    kw = {"answered": FEE, "refused": PARKING, "hidden": hidden}
    assert_not_yet(capsys, check_refusal_threshold, None, *args, hint="still None", **kw)
    assert_not_yet(capsys, check_refusal_threshold, "0.8", *args, hint="one number", **kw)
    # below and above the gap the verdict is the same: no direction to binary-search the threshold by
    below = assert_not_yet(capsys, check_refusal_threshold, low - 0.01, *args, hint="choose a threshold between", **kw)
    assert assert_not_yet(capsys, check_refusal_threshold, low, *args, **kw) == below
    assert assert_not_yet(capsys, check_refusal_threshold, min(high + 0.0005, 1.0), *args, **kw) == below
    assert_not_yet(capsys, check_refusal_threshold, 1.5, *args, hint="between -1 and 1", **kw)
    swapped = {"answered": PARKING, "refused": FEE}
    assert_not_yet(capsys, check_refusal_threshold, threshold, rag, **swapped, hint="no threshold separates")


def test_first_rank(capsys, rag) -> None:
    ranking = core.search(rag.matrix, rag.embedder.embed_query(FEE), len(rag.chunks))
    rank = next(r for r, (row, _) in enumerate(ranking, start=1) if "$90" in rag.chunks[row].text)  # the solution
    assert rank == 3
    assert_right(capsys, check_first_rank, rank, rag, FEE, "$90")
    assert_not_yet(capsys, check_first_rank, None, rag, FEE, "$90", hint="still None")
    assert_not_yet(capsys, check_first_rank, "3", rag, FEE, "$90", hint="whole number")
    assert_not_yet(capsys, check_first_rank, 2, rag, FEE, "$90", hint="count from 1", hidden=["3"])
    early = assert_not_yet(capsys, check_first_rank, 1, rag, FEE, "$90", hint="walk the ranking", hidden=["3"])
    assert assert_not_yet(capsys, check_first_rank, 5, rag, FEE, "$90", hidden=["3"]) == early  # no direction
    assert_not_yet(capsys, check_first_rank, 1, rag, FEE, "$1,000", hint="no chunk")


def search_above(matrix: np.ndarray, query: np.ndarray, k: int, min_cosine: float) -> list[tuple[int, float]]:
    """The instructor's solution in notebook 00."""
    scores = matrix @ query
    best = np.argsort(-scores, kind="stable")[:k]
    return [(int(row), float(scores[row])) for row in best if scores[row] >= min_cosine]


def test_search_above(capsys) -> None:
    assert_right(capsys, check_search_above, search_above)
    assert_not_yet(capsys, check_search_above, None, hint="still None")
    assert_not_yet(capsys, check_search_above, stub, hint="NotImplementedError")
    assert_not_yet(capsys, check_search_above, 0.5, hint="should be a function")
    no_floor = lambda m, q, k, c: core.search(m, q, k)  # noqa: E731
    assert_not_yet(capsys, check_search_above, no_floor, hint="leave out the ones whose cosine is below")
    no_limit = lambda m, q, k, c: search_above(m, q, len(m), c)  # noqa: E731
    assert_not_yet(capsys, check_search_above, no_limit, hint="at most k")
    worst_first = lambda m, q, k, c: search_above(m, q, k, c)[::-1]  # noqa: E731
    assert_not_yet(capsys, check_search_above, worst_first, hint="wrong order")
    rows_only = lambda m, q, k, c: [row for row, _ in search_above(m, q, k, c)]  # noqa: E731
    assert_not_yet(capsys, check_search_above, rows_only, hint="(row, cosine) pairs")
    assert_not_yet(capsys, check_search_above, lambda m, q, k, c: [], hint="off for k=")


# --- notebook 01: a table row as a sentence, PDF quotes counted --------------------------------------------------

CALENDAR = DOCS_DIR / "tables" / "academic_calendar.csv"


def test_row_sentence(capsys) -> None:
    with open(CALENDAR, encoding="utf-8", newline="") as handle:
        header, first, second_row = list(csv.reader(handle))[:3]
    words = [name.replace("_", " ") for name in header]
    sentence = row_to_sentence("Academic calendar", words, first)  # the instructor's solution
    assert_right(capsys, check_row_sentence, sentence, CALENDAR)
    assert_right(capsys, check_row_sentence, sentence.replace(", ", ",  "), CALENDAR)  # white space is folded
    hidden = [sentence]
    assert_not_yet(capsys, check_row_sentence, None, CALENDAR, hint="still None")
    assert_not_yet(capsys, check_row_sentence, first, CALENDAR, hint="a str")
    assert_not_yet(capsys, check_row_sentence, " | ".join(first), CALENDAR, hint="raw row", hidden=hidden)
    from_header = row_to_sentence("Academic calendar", words, header)
    assert_not_yet(capsys, check_row_sentence, from_header, CALENDAR, hint="header row", hidden=hidden)
    snake = row_to_sentence("Academic calendar", header, first)
    assert_not_yet(capsys, check_row_sentence, snake, CALENDAR, hint="underscores", hidden=hidden)
    captioned = row_to_sentence("Calendar", words, first)
    assert_not_yet(capsys, check_row_sentence, captioned, CALENDAR, hint="another caption", hidden=hidden)
    other = row_to_sentence("Academic calendar", words, second_row)
    assert_not_yet(capsys, check_row_sentence, other, CALENDAR, hint="'column value' pairs", hidden=hidden)


@pytest.fixture()
def coverage() -> pd.DataFrame:
    """Coverage rows like coverage_table's: three PDF parsers over 35 quotes, and an HTML row to ignore."""
    rows = [
        ("pdf", "PyMuPDF get_text()", 35, 1.0, 1.0),
        ("pdf", "PyMuPDF get_text(sort=True)", 35, 0.686, 0.886),
        ("pdf", "kit (reading order)", 35, 1.0, 1.0),
        ("html", "trafilatura", 20, 0.5, 0.6),
    ]
    return pd.DataFrame(rows, columns=["format", "parser", "quotes", "quotes found", "≥ half found"])


def test_whole_quotes(capsys, coverage) -> None:
    pdf = coverage[coverage["format"] == "pdf"].set_index("parser")
    answer = (pdf["quotes found"] * pdf["quotes"]).round().astype(int).to_dict()  # the instructor's solution
    assert answer["PyMuPDF get_text(sort=True)"] == 24
    assert_right(capsys, check_whole_quotes, answer, coverage)
    assert_right(capsys, check_whole_quotes, (pdf["quotes found"] * pdf["quotes"]).round(), coverage)  # a Series
    hidden = ["24"]
    assert_not_yet(capsys, check_whole_quotes, None, coverage, hint="still None")
    assert_not_yet(capsys, check_whole_quotes, [35, 24, 35], coverage, hint="a dict", hidden=hidden)
    shares = pdf["quotes found"].to_dict()
    assert_not_yet(capsys, check_whole_quotes, shares, coverage, hint="shares", hidden=hidden)
    half = (pdf["≥ half found"] * pdf["quotes"]).round().astype(int).to_dict()
    assert_not_yet(capsys, check_whole_quotes, half, coverage, hint="at least half", hidden=hidden)
    missing = {name: count for name, count in answer.items() if name != "kit (reading order)"}
    assert_not_yet(capsys, check_whole_quotes, missing, coverage, hint="name every PDF parser", hidden=hidden)
    off = answer | {"PyMuPDF get_text(sort=True)": 26}
    high = assert_not_yet(capsys, check_whole_quotes, off, coverage, hint="is off", hidden=hidden)
    low = answer | {"PyMuPDF get_text(sort=True)": 0}
    assert assert_not_yet(capsys, check_whole_quotes, low, coverage, hidden=hidden) == high  # no direction
    halves = answer | {"kit (reading order)": 34.5}
    assert_not_yet(capsys, check_whole_quotes, halves, coverage, hint="whole number")


# --- notebook 04: ids from content after an edit -----------------------------------------------------------------


def _nodes(*ids: str) -> list[SimpleNamespace]:
    return [SimpleNamespace(node_id=node_id) for node_id in ids]


def test_changed_document(capsys) -> None:
    old, new = _nodes("a", "b", "c", "d"), _nodes("a", "b", "x", "d")
    second = {"written": 1, "unchanged": 3, "removed_stale": 1}  # what the second upsert_nodes returns
    assert_right(capsys, check_changed_document, second, old, new)
    assert_right(capsys, check_changed_document, {"written": 1, "removed_stale": 1}, old, new)
    assert_not_yet(capsys, check_changed_document, None, old, new, hint="still None")
    assert_not_yet(capsys, check_changed_document, {"written": 1}, old, new, hint="'removed_stale'")
    assert_not_yet(capsys, check_changed_document, {"written": 1.5, "removed_stale": 1}, old, new, hint="whole")
    first = {"written": 4, "unchanged": 0, "removed_stale": 0}
    assert_not_yet(capsys, check_changed_document, first, old, new, hint="first ingestion")
    high = assert_not_yet(capsys, check_changed_document, {"written": 2, "removed_stale": 1}, old, new, hint="is off")
    low = {"written": 0, "removed_stale": 1}
    assert assert_not_yet(capsys, check_changed_document, low, old, new) == high  # no direction
    assert_not_yet(capsys, check_changed_document, second, old, old, hint="very same chunks")


# --- notebook 06: the best keyword budget for follow-ups ---------------------------------------------------------

SCORES = {2: {"recall@5": 0.45, "mrr": 0.34}, 4: {"recall@5": 0.55, "mrr": 0.36}, 8: {"recall@5": 0.64, "mrr": 0.34}}


def test_best_max_terms(capsys, monkeypatch) -> None:
    monkeypatch.setattr(rerank_checks, "scores_by_max_terms", lambda retriever, questions, choices: SCORES)
    args = (None, [])
    assert_right(capsys, check_best_max_terms, 8, *args, recall=0.64)
    assert_right(capsys, check_best_max_terms, np.int64(8), *args, recall=0.6404)
    assert_not_yet(capsys, check_best_max_terms, None, *args, hint="still None")
    assert_not_yet(capsys, check_best_max_terms, "8", *args, hint="whole number")
    assert_not_yet(capsys, check_best_max_terms, 6, *args, hint="choices the exercise names", hidden=["8 "])
    assert_not_yet(capsys, check_best_max_terms, 4, *args, recall=0.55, hint="best MRR", hidden=["8"])
    out = assert_not_yet(capsys, check_best_max_terms, 2, *args, recall=0.45, hint="measure all three", hidden=["8"])
    assert not any(word in out for word in ("lowest", "higher", "more", "raise", "lower"))
    tied = SCORES | {4: {"recall@5": 0.64, "mrr": 0.3}}
    monkeypatch.setattr(rerank_checks, "scores_by_max_terms", lambda retriever, questions, choices: tied)
    assert "tied" in assert_right(capsys, check_best_max_terms, 4, *args, recall=0.64)


def test_best_max_terms_guessed_without_its_recall_fails(capsys, monkeypatch) -> None:
    """The right choice guessed (it passed alone before) is not yet right without the recall@5 measured for it."""
    monkeypatch.setattr(rerank_checks, "scores_by_max_terms", lambda retriever, questions, choices: SCORES)
    args = (None, [])
    assert_not_yet(capsys, check_best_max_terms, 8, *args, hint="best_terms_recall", hidden=["0.64"])
    assert_not_yet(capsys, check_best_max_terms, 8, *args, recall=0.5, hint="not what your choice measures")
    assert_not_yet(capsys, check_best_max_terms, 8, *args, recall=0.55, hidden=["0.64"])  # another row's recall
    assert_not_yet(capsys, check_best_max_terms, 8, *args, recall="0.64", hint="one number")


def test_scores_by_max_terms_searches_with_the_rewrite(capsys) -> None:
    """Only a rewrite that keeps the oldest salient term (alpha) finds the evidence: max_terms 8 is best."""
    history = ({"role": "user", "content": "alpha bravo charlie delta echo foxtrot golf hotel"},)
    question = Question("q1", "When is it due?", "week 3", "conversational", "dev",
                        evidence=(Evidence("doc.md", "the proposal is due in week 3"),), history=history)  # fmt: skip
    evidence = Hit("e", "the proposal is due in week 3", {"source": "doc.md"}, {"dense": 1.0})
    other = Hit("o", "something else entirely", {"source": "other.md"}, {"dense": 0.5})
    retriever = SimpleNamespace(retrieve=lambda query, k: [evidence] if "alpha" in query.split() else [other])
    scores = scores_by_max_terms(retriever, [question])
    assert {m: row["recall@5"] for m, row in scores.items()} == {2: 0.0, 4: 0.0, 8: 1.0}
    assert_right(capsys, check_best_max_terms, 8, retriever, [question], recall=1.0)
    assert_not_yet(capsys, check_best_max_terms, 2, retriever, [question], recall=0.0)


# --- notebook 11: a planner rule, OCR's lost words, a stricter filter, the list field ------------------------------


@pytest.fixture(scope="module")
def routing() -> list[dict]:
    return load_routing()


class MeFirstPlanner(KeywordPlanner):
    """The instructor's solution in notebook 11."""

    program_words = ("program", "course", "track", "scholarship", "prerequisite", "refresher", "internship")

    def about_me_only(self, question: str) -> bool:
        lowered = question.lower()
        return bool(ME.search(question) and MY_DOCS.search(question)) and not any(
            w in lowered for w in self.program_words
        )

    def plan(self, question: str) -> frozenset[str]:
        actions = set(super().plan(question))
        if self.about_me_only(question):
            actions -= {"search_kb", "use_profile"}
        return frozenset(actions)


class ProfileInstead(MeFirstPlanner):
    """Drops the knowledge base for the same questions but adds the profile: no plan becomes right."""

    def plan(self, question: str) -> frozenset[str]:
        actions = set(super().plan(question))
        return frozenset(actions | {"use_profile"}) if self.about_me_only(question) else frozenset(actions)


class NoKnowledgeBaseForMe(KeywordPlanner):
    """Drops the knowledge base for every question that says "my": breaks the program questions about me."""

    def plan(self, question: str) -> frozenset[str]:
        actions = super().plan(question)
        return actions - {"search_kb"} if ME.search(question) else actions


def test_me_only_planner(capsys, routing) -> None:
    out = assert_right(capsys, check_me_only_planner, MeFirstPlanner(), routing)
    assert "held-out test" in out
    assert_not_yet(capsys, check_me_only_planner, None, routing, hint="still None")
    assert_not_yet(capsys, check_me_only_planner, MeFirstPlanner, routing, hint="instance")
    assert_not_yet(capsys, check_me_only_planner, "keyword", routing, hint="plan(question) method")
    assert_not_yet(capsys, check_me_only_planner, KeywordPlanner(), routing, hint="still searches the knowledge base")
    assert_not_yet(capsys, check_me_only_planner, NoKnowledgeBaseForMe(), routing, hint="narrow the rule")
    assert_not_yet(capsys, check_me_only_planner, ProfileInstead(), routing, hint="none equals its label")
    as_list = SimpleNamespace(plan=lambda question: sorted(MeFirstPlanner().plan(question)))
    assert_not_yet(capsys, check_me_only_planner, as_list, routing, hint="set of actions")
    assert_not_yet(capsys, check_me_only_planner, SimpleNamespace(plan=stub), routing, hint="NotImplementedError")


SOURCE = "Bring a form and a photo. Pay the fee."
READ = "Bring o form and o photo, Pay the fee."


@pytest.fixture()
def fake_ocr(monkeypatch: pytest.MonkeyPatch) -> None:
    """OCR that reads the fake page as READ at any resolution."""
    monkeypatch.setattr(sources_checks.ocr, "ocr_available", lambda: True)
    monkeypatch.setattr(sources_checks.ocr, "ocr_page_text", lambda path, page, dpi=300: READ)


def test_lost_words(capsys, fake_ocr) -> None:
    read = set(READ.split())
    lost = [word for word in SOURCE.split() if word not in read]  # the instructor's solution
    assert lost == ["a", "a", "photo."]
    args = ("handbook.pdf", 50, SOURCE)
    assert_right(capsys, check_lost_words, lost, *args)
    assert_right(capsys, check_lost_words, ["photo.", "a", "a"], *args)  # any order
    assert_not_yet(capsys, check_lost_words, None, *args, hint="still None")
    assert_not_yet(capsys, check_lost_words, 3, *args, hint="a number")
    assert_not_yet(capsys, check_lost_words, "a a photo.", *args, hint="a list of words")
    assert_not_yet(capsys, check_lost_words, ["o", "o", "photo,"], *args, hint="the OCR wrote")
    assert_not_yet(capsys, check_lost_words, ["a", "photo."], *args, hint="repeats count")
    assert_not_yet(capsys, check_lost_words, ["a", "a"], *args, hint="case and punctuation")
    assert_not_yet(capsys, check_lost_words, [], *args, hint="nothing lost")
    assert_not_yet(capsys, check_lost_words, ["a", "a", "photo.", "fee."], *args, hint="read fine", hidden=["photo."])


def test_lost_words_without_ocr(capsys, monkeypatch) -> None:
    monkeypatch.setattr(sources_checks.ocr, "ocr_available", lambda: False)
    monkeypatch.setenv(STRICT_ENV, "1")  # no OCR is the machine's lack, not the student's: never raises
    assert check_lost_words(["a"], "handbook.pdf", 50, SOURCE) is False
    assert "not available" in capsys.readouterr().out


def _pair(words: int, kept: bool = True) -> Generated:
    """A generated pair whose question has `words` words; rejected ones carry a reason."""
    question = " ".join(["Which"] + ["word"] * (words - 2) + ["units?"])
    return Generated(question, "4 units", "c", "doc.md", "text", reasons=[] if kept else ["copied sentence"])


def test_pairs_left(capsys) -> None:
    pairs = [_pair(9), _pair(6), _pair(5), _pair(4), _pair(3), _pair(9, kept=False), _pair(10, kept=False)]
    assert [len(p.question.split()) for p in pairs] == [9, 6, 5, 4, 3, 9, 10]
    answer = sum(p.kept and len(p.question.split()) >= 6 for p in pairs)  # the instructor's solution
    assert answer == 2
    assert_right(capsys, check_pairs_left, answer, pairs)
    assert_right(capsys, check_pairs_left, [p for p in pairs if p.kept and len(p.question.split()) >= 6], pairs)
    hidden = [" 2 "]
    assert_not_yet(capsys, check_pairs_left, None, pairs, hint="still None")
    assert_not_yet(capsys, check_pairs_left, "2", pairs, hint="a count of pairs")
    assert_not_yet(capsys, check_pairs_left, 4, pairs, hint="already rejected", hidden=hidden)
    assert_not_yet(capsys, check_pairs_left, 1, pairs, hint="*shorter*", hidden=hidden)
    assert_not_yet(capsys, check_pairs_left, 3, pairs, hint="the new rule removes", hidden=hidden)
    many = assert_not_yet(capsys, check_pairs_left, 5, pairs, hint="not the count", hidden=hidden)
    assert assert_not_yet(capsys, check_pairs_left, 0, pairs, hidden=hidden) == many  # no direction


def test_list_field(capsys, routing) -> None:
    labels = {r["question"]: r["list"]["field"] for r in routing if r.get("list")}
    out = assert_right(capsys, check_list_field, labels.get, routing)  # a perfect picker
    assert "dev 4/4" in out and "regular expression" in out
    assert_right(capsys, check_list_field, lambda q: labels[q].capitalize(), routing)  # case does not matter
    assert_not_yet(capsys, check_list_field, None, routing, hint="still None")
    assert_not_yet(capsys, check_list_field, stub, routing, hint="NotImplementedError")
    assert_not_yet(capsys, check_list_field, lambda q: "course", routing, hint="for every question")
    assert_not_yet(capsys, check_list_field, lambda q: "teacher", routing, hint="not a field of the class schedule")
    assert_not_yet(capsys, check_list_field, lambda q: None, routing, hint="a str")
