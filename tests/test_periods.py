"""Time-aware retrieval: the academic year of a document and of a question, and the filter that runs in the store.

The rules are checked against the versioned set's own tags (every manifest file, every question); the retriever
against a small collection in qdrant-client's local mode and in qdrant-edge: an explicit question's hits come only
from its year (or from undated chunks), a question without a year gets the newest version first.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from llama_index.core import Document
from qdrant_client import QdrantClient
from test_store import DIM, make_nodes

from helpers.chunking import chunk_documents
from helpers.chunking.periods import (
    PERIOD_KEY,
    TERM_KEY,
    asked_period,
    term_of_path,
    term_year,
    version_family,
    year_of_path,
    year_of_text,
)
from helpers.corpus.pinned import VERSIONED
from helpers.retrieval import DenseRetriever, PeriodAware, make_retriever, matches, older_versions
from helpers.store import KitStore, Not, filters_from, open_edge_folder


def test_a_term_belongs_to_the_academic_year_that_holds_it() -> None:
    assert term_year("Fall", 2023) == term_year("winter", 2024) == term_year("Summer", 2024) == "2023-24"
    assert term_year("autumn", 2026) == "2026-27"


def test_every_versioned_file_gets_its_tagged_year_from_its_path() -> None:
    for item in VERSIONED.files():
        assert year_of_path(item["doc"]) == item["academic_year"], item["doc"]


def plain_term(tag: str) -> str:
    """A manifest's term as the payload writes it: both summer sessions of a year are its summer."""
    return tag.replace(" Session II", "").replace(" Session I", "")


def test_every_versioned_file_gets_its_tagged_term_from_its_path() -> None:
    for item in VERSIONED.files():
        assert term_of_path(item["doc"]) == plain_term(item["term"])
    assert term_of_path("oxy/202402/courses.json") == "Spring 2024" and term_of_path("handbook.pdf") is None


def test_the_versions_of_one_document_share_a_family_and_the_older_ones_are_known() -> None:
    sources = [item["doc"] for item in VERSIONED.files()]
    older = older_versions(sources)
    newest = {"datasets/course-catalog/data/2026-wi.csv", "quacs-oxy-data/semester_data/202409/courses.txt"}
    assert not newest & older and "datasets/course-catalog/data/2019-wi.csv" in older
    assert version_family("a/2023-2024/Winter-2024.txt") == version_family("a/2024-2025/Winter-2025.txt")
    assert older_versions(["handbook.md", "calendar.md"]) == set()  # no year in the path: no versions


def test_the_text_names_the_year_when_the_path_does_not() -> None:
    assert year_of_text("Academic Calendar 2025–2026\nAutumn quarter") == "2025-26"
    assert year_of_text("Registration for Winter 2027 opens, and for Spring 2027") == "2026-27"
    assert year_of_text("Spring 2026 ends; Autumn 2026 begins") is None  # two years: not one year's version
    assert year_of_text("Dates: 2023-09-15 to 2023-12-01") is None  # a date is not an academic year
    assert year_of_path("notes/report-2023-10-05.pdf") is None


def test_every_versioned_question_is_read_as_its_tags_say() -> None:
    for question in VERSIONED.load():
        asked, tags = asked_period(question.question), question.extra
        assert asked.kind == tags["names_year"], question.question
        if asked.kind == "explicit":
            assert asked.years == (tags["academic_year"],), question.question
            assert asked.terms in ((plain_term(tags["term"]),), ()), question.question  # () when it names a year only
    assert asked_period("Who teaches it in 2024?").years == ("2023-24", "2024-25")  # a bare year: either
    assert asked_period("How much will jobs grow from 2023 to 2033?").kind == "none"  # a span, not a version
    assert asked_period("How many more started in Autumn 2026 than in Autumn 2025?").years == ("2025-26", "2026-27")
    assert asked_period("Who taught it in the 2023-24 winter session?").terms == ("Winter 2024",)
    assert asked_period("Who taught it in the fall of 2022?").terms == ("Fall 2022",)
    assert asked_period("What happened in 2023-24?").terms == ()  # a year only


def test_chunks_carry_the_year_as_payload_only() -> None:
    document = Document(text="Who teaches what.\n\nASTR 100, Dunne.", metadata={"source": "data/2024-wi.csv"})
    node = chunk_documents([document], "recursive_chars")[0]
    assert node.metadata[PERIOD_KEY] == "2023-24"
    assert "2023-24" not in node.get_content(metadata_mode="embed") + node.get_content(metadata_mode="llm")
    undated = chunk_documents([Document(text="No year here.", metadata={"source": "notes.md"})])[0]
    assert PERIOD_KEY not in undated.metadata


def test_not_keeps_chunks_without_the_field() -> None:
    years = Not(["2022-23", "2024-25"])
    assert matches({"academic_year": "2023-24"}, {"academic_year": years})
    assert matches({}, {"academic_year": years})
    assert not matches({"academic_year": "2022-23"}, {"academic_year": years})
    assert filters_from({"academic_year": years}) is not None


def versioned_store(client: QdrantClient) -> KitStore:
    """Three versions of one schedule, a calendar of another year, and a page without a year."""
    store = KitStore(client, "c", DIM)
    for source, year, term in (("s/2023-wi.csv", "2022-23", "Winter 2023"),
                               ("s/2024-wi.csv", "2023-24", "Winter 2024"), ("s/2025-wi.csv", "2024-25", "Winter 2025"),
                               ("cal/Fall-2023.txt", "2023-24", "Fall 2023"), ("about.md", None, None)):  # fmt: skip
        nodes = make_nodes({source: [f"ASTR 100 row {source} {i}" for i in range(3)]})
        for node in nodes:
            if year:
                node.metadata[PERIOD_KEY], node.metadata[TERM_KEY] = year, term
        store.upsert_nodes(nodes)
    return store


class OneVector:
    """An embedder whose every query is the same unit vector (the filter, not the ranking, is under test)."""

    dimension = DIM

    def embed_query(self, query: str) -> list[float]:
        return (np.ones(DIM) / np.sqrt(DIM)).tolist()


def check_period_aware(store: KitStore) -> None:
    retriever = PeriodAware(DenseRetriever(store, OneVector()), store)  # type: ignore[arg-type]
    hits = retriever.retrieve("Who taught ASTR 100 in Winter 2024?", k=15)
    assert {h.source for h in hits} == {"s/2024-wi.csv", "about.md"}  # that term only, and the undated page
    assert len(hits) == 6  # the filter ran in the store: k asked, every match returned
    by_year = PeriodAware(DenseRetriever(store, OneVector()), store, by_term=False)  # type: ignore[arg-type]
    hits = by_year.retrieve("Who taught ASTR 100 in Winter 2024?", k=15)
    assert {h.metadata.get(PERIOD_KEY) for h in hits} == {"2023-24", None} and len(hits) == 9  # the year's fall too
    assert len(retriever.retrieve("Who taught ASTR 100 in 2023-24?", k=15)) == 9  # a year only: no term filter
    newest = retriever.retrieve("Who teaches ASTR 100 this winter?", k=4)
    assert not {h.source for h in newest} & {"s/2023-wi.csv", "s/2024-wi.csv"}  # older versions behind the rest
    assert len(retriever.retrieve("Who taught ASTR 100 in Winter 2031?", k=15)) == 15  # a year not held: no filter
    assert retriever.retrieve("in Winter 2024", k=15, filters={PERIOD_KEY: "2022-23"})[0].source == "s/2023-wi.csv"


def test_period_aware_filters_inside_local_qdrant() -> None:
    check_period_aware(versioned_store(QdrantClient(":memory:")))


def test_period_aware_filters_inside_qdrant_edge(tmp_path: Path) -> None:
    pytest.importorskip("qdrant_edge")
    check_period_aware(versioned_store(open_edge_folder(tmp_path / "q")))


def test_the_setting_puts_it_behind_the_base_retriever() -> None:
    from helpers.config import RetrievalSettings

    store = versioned_store(QdrantClient(":memory:"))
    settings = RetrievalSettings(retriever="dense", period_aware=True, query_expansion=False, near_duplicate=0.0)
    embedder = OneVector()
    assert repr(make_retriever(None, store, embedder, settings)) == "PeriodAware(Dense)"  # type: ignore[arg-type]
    plain = make_retriever(None, store, embedder, RetrievalSettings(retriever="dense", period_aware=False))  # type: ignore[arg-type]
    assert "PeriodAware" not in repr(plain)


def test_the_committed_results_give_the_notebooks_table() -> None:
    from helpers.config import REPO_ROOT
    from helpers.evaluation.two_corpora import period_table

    table = period_table(REPO_ROOT / "bench" / "results", split="test")
    assert {"defaults", "period aware"} <= set(table.columns)
    assert ("versioned", "names a year") in table.index and ("course", "all") in table.index
