"""Tests of the parser comparison (helpers.lab.parsing, views) and of answer-based relevance, on tiny fixtures."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from test_parsing import PAGE_HTML, make_two_column_pdf  # the fixtures of the parsing tests, built by code

from helpers.corpus import Evidence, Question
from helpers.lab.parsing import answers_found, coverage, format_of, pdf_plain, pdf_sorted, quote_found
from helpers.lab.parsing_views import metadata_frame, noise_table, pdf_page_orders
from helpers.metrics import answer_labels, answer_relevant, contains_answer, evaluate_answer_retrieval
from helpers.types import Hit


def question(answer: str, docs: tuple[str, ...] = ("tables/schedule.csv",), variants: tuple[str, ...] = ()) -> Question:
    """A gold question with one evidence quote per document."""
    evidence = tuple(Evidence(doc, "some quote") for doc in docs)
    return Question("q1", "Where?", answer, "table_lookup", "dev", evidence, answer_variants=variants)


# ---------------------------------------------------------------------------------------------- coverage


def test_format_and_quote_folding() -> None:
    assert format_of("web/faq.html") == "html" and format_of("handbook/h.pdf") == "pdf"
    assert format_of("tables/class_schedule.html") == "table" and format_of("notes/x.txt") == "other"
    assert quote_found("The fee is\n  $90 per\nterm.", "fee is $90 PER term")
    assert not quote_found("The fee is $95 per term.", "fee is $90 per term")


def test_coverage_on_a_tiny_fixture() -> None:
    texts = {"a.md": "Alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu.", "b.md": "Nothing here."}
    quotes = [
        Evidence("a.md", "beta gamma\ndelta"),  # whole, across a line break
        Evidence("a.md", "epsilon zeta eta theta iota kappa lambda mu nu xi omicron"),  # more than half, one piece
        Evidence("b.md", "beta gamma delta"),  # the right words in the wrong document
        Evidence("c.md", "anything"),  # a document the parser did not produce
    ]
    whole, half = coverage(texts, quotes)
    assert whole == pytest.approx(1 / 4) and half == pytest.approx(2 / 4)
    assert all(math.isnan(share) for share in coverage(texts, []))  # no quotes: nothing to measure


def test_answers_found_uses_evidence_documents_only() -> None:
    texts = {"tables/schedule.csv": "ADS 633 | QEB B12 | Winter", "web/x.html": "Room MDC 110."}
    assert answers_found(texts, [question("QEB B12")]) == 1.0
    assert answers_found(texts, [question("MDC 110")]) == 0.0  # in the text, but of another document
    assert answers_found(texts, [question("QEB B12"), question("HLV 101", variants=("Hall 1",))]) == 0.5


def test_pdf_sorted_interleaves_columns_and_kit_does_not(tmp_path: Path) -> None:
    path = make_two_column_pdf(tmp_path / "two_columns.pdf", pages=2)
    plain, ordered = pdf_plain(path)[0], pdf_page_orders(path, 1)["kit (reading order)"]
    sorted_text = pdf_sorted(path)[0]
    # Sorting by y then x puts the right column's first paragraph before the left column's second one.
    assert sorted_text.index("RIGHTA") < sorted_text.index("LEFTB")
    assert ordered.index("LEFTC") < ordered.index("RIGHTA")
    assert "Program Handbook 2026" in plain and "Program Handbook 2026" not in ordered


def test_noise_table_has_a_weighted_corpus_row(tmp_path: Path) -> None:
    small, big = tmp_path / "small.html", tmp_path / "big.html"
    small.write_text(PAGE_HTML, encoding="utf-8")
    big.write_text(PAGE_HTML.replace("</body>", "<script>" + "x" * 20000 + "</script></body>"), encoding="utf-8")
    table = noise_table([small, big])
    assert list(table.index) == ["small.html", "big.html", "corpus (all pages)"]
    shares = table["kit noise share"]
    assert 0 < shares["small.html"] < shares["corpus (all pages)"] < shares["big.html"] < 1
    assert table.loc["corpus (all pages)", "bytes"] == table["bytes"].iloc[:2].sum()


def test_metadata_frame_fills_missing_keys() -> None:
    from llama_index.core import Document

    docs = [Document(text="a", metadata={"source": "a.md", "title": "A"}), Document(text="b", metadata={"source": "b"})]
    frame = metadata_frame(docs, ["title", "date"])
    assert frame.loc["a.md", "title"] == "A" and frame.loc["b", "title"] == "" and frame.loc["a.md", "date"] == ""


# ---------------------------------------------------------------------------------------------- answer relevance


def test_contains_answer_matches_whole_normalised_words() -> None:
    assert contains_answer("Room: QEB  B12, Winter.", ["qeb b12"])
    assert contains_answer("The fee is $35 per returned payment.", ["$35"])
    assert not contains_answer("Capacity 350 students.", ["35"])  # "35" inside "350" is no answer
    assert not contains_answer("anything", [""])


def test_answer_relevant_needs_the_evidence_document_and_the_answer() -> None:
    q = question("QEB B12", variants=("Quayside B12",))
    assert answer_relevant(Hit("1", "ADS 633 meets in Quayside B12.", {"source": "tables/schedule.csv"}), q)
    assert not answer_relevant(Hit("2", "ADS 633 meets in QEB B12.", {"source": "web/other.html"}), q)
    assert not answer_relevant(Hit("3", "ADS 633 meets in MDC 110.", {"source": "tables/schedule.csv"}), q)


def test_evaluate_answer_retrieval_scores_ranks() -> None:
    q = question("QEB B12")
    hits = [
        Hit("1", "MDC 110", {"source": "tables/schedule.csv"}),
        Hit("2", "QEB B12", {"source": "web/x.html"}),
        Hit("3", "Room QEB B12", {"source": "tables/schedule.csv"}),
    ]
    assert answer_labels(hits, q) == [set(), set(), {0}]
    scores = evaluate_answer_retrieval([q, question("")], lambda _: hits, ks=(1, 3)).per_question
    assert len(scores) == 1  # a question without an answer is not scored
    row = scores.iloc[0]
    assert (row["hit@1"], row["recall@3"], row["mrr"]) == (0.0, 1.0, pytest.approx(1 / 3))
