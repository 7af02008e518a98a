"""The BM25 index saved beside a local-mode collection (`helpers/retrieval/bm25_file.py`): a kernel that loads it
ranks exactly as one that fits bm25s on every chunk, reads no chunk but its hits, and never uses an index that no
longer describes the collection (points written, removed, or the collection made again)."""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
from llama_index.core.schema import TextNode
from qdrant_client import QdrantClient

from helpers.chunking import chunk_for_settings, node_id
from helpers.config import Settings
from helpers.corpus import load_gold
from helpers.mechanisms import reset, use
from helpers.parsing import parse_folder
from helpers.retrieval import (
    BM25Retriever,
    SavedBM25,
    SavedBM25Retriever,
    bm25_for_store,
    save_bm25_beside,
    stemmed_tokenize,
    stored_chunks,
    tokenize,
)
from helpers.retrieval.bm25 import bm25_scores
from helpers.store import KitStore, StoreError, open_folder

REPO = Path(__file__).resolve().parents[1]
TEXTS = {
    "fees.md": ["The application fee is $90.", "Tuition is $14,850 per quarter.", "The fee is waived for alumni."],
    "ads530.md": ["ADS 530 meets in MDC 120.", "The ADS 530 exam is a take-home project."],
    "mail.eml": ["The registration deadline is September 5.", "Office hours for the capstone are on Fridays."],
}
QUESTIONS = ["application fee", "ADS 530 exam", "registration deadline", "capstone office hours", "tuition quarter"]


def nodes_of(texts: dict[str, list[str]]) -> list[TextNode]:
    """Chunks with content ids, a doc type and a random unit vector each (dense search is not what is tested)."""
    nodes = []
    for source, chunks in texts.items():
        meta = {"source": source, "doc_type": "email" if source.endswith(".eml") else "markdown"}
        for text in chunks:
            vector = np.random.default_rng(zlib.crc32(text.encode())).standard_normal(8)
            node = TextNode(text=text, id_=node_id(source, text), metadata=dict(meta))
            node.embedding = [float(x) for x in vector / np.linalg.norm(vector)]
            nodes.append(node)
    return nodes


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return tmp_path / "qdrant"


@pytest.fixture
def store(folder: Path) -> Iterator[KitStore]:
    client = open_folder(folder)
    store = KitStore(client, "c", 8)
    store.upsert_nodes(nodes_of(TEXTS))
    yield store
    client.close()


def forbid_scroll(monkeypatch: pytest.MonkeyPatch, client: QdrantClient) -> list[int]:
    """From here on a scroll of the collection raises; returns a list that grows by one per read of points by id."""

    def no_scroll(*_: object, **__: object) -> None:
        raise AssertionError("the whole collection was read into the kernel")

    by_id: list[int] = []
    retrieve = client.retrieve
    monkeypatch.setattr(client, "scroll", no_scroll)
    monkeypatch.setattr(client, "retrieve", lambda *args, **kw: by_id.append(1) or retrieve(*args, **kw))
    return by_id


def fitted(store: KitStore, tokenizer: Callable[[str], list[str]] = tokenize) -> BM25Retriever:
    return BM25Retriever(*stored_chunks(store), tokenizer=tokenizer)


def test_the_first_kernel_fits_and_saves_the_next_loads_and_ranks_the_same(
    store: KitStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = bm25_for_store(store)
    assert type(first) is BM25Retriever  # nothing saved yet: fitted on every chunk, then saved
    second = bm25_for_store(store)
    assert isinstance(second, SavedBM25Retriever)
    by_id = forbid_scroll(monkeypatch, store.client)
    for question in QUESTIONS:
        for filters in (None, {"doc_type": "email"}, {"source": ["fees.md", "ads530.md"]}):
            want, got = first.retrieve(question, 3, filters), second.retrieve(question, 3, filters)
            assert [(h.node_id, h.text, h.metadata, h.scores) for h in got] == [
                (h.node_id, h.text, h.metadata, h.scores) for h in want
            ]
    assert by_id  # only the hits were read, by id


def test_an_ingest_into_local_mode_saves_the_index_so_no_kernel_reads_every_chunk(
    store: KitStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert save_bm25_beside(store)
    forbid_scroll(monkeypatch, store.client)
    retriever = bm25_for_store(store)
    assert isinstance(retriever, SavedBM25Retriever) and retriever.size == store.count()
    assert retriever.retrieve("application fee", 1)[0].text == "The application fee is $90."


def test_a_write_by_the_kit_makes_the_saved_index_stale(store: KitStore) -> None:
    save_bm25_beside(store)
    store.upsert_nodes(nodes_of({**TEXTS, "new.md": ["The capstone showcase is in June."]}))
    retriever = bm25_for_store(store)
    assert type(retriever) is BM25Retriever  # refitted: the version changed
    assert retriever.retrieve("capstone showcase", 1)[0].text == "The capstone showcase is in June."
    assert isinstance(bm25_for_store(store), SavedBM25Retriever)  # and saved again
    changed = {**TEXTS, "fees.md": ["The application fee is $100.", *TEXTS["fees.md"][1:]]}  # same point count
    store.upsert_nodes(nodes_of({**changed, "new.md": ["The capstone showcase is in June."]}))
    hit = bm25_for_store(store).retrieve("application fee", 1)[0]
    assert hit.text == "The application fee is $100."


def test_another_clients_writes_that_change_the_count_make_it_stale(store: KitStore) -> None:
    save_bm25_beside(store)
    store.client.delete("c", points_selector=[nodes_of(TEXTS)[0].node_id])  # not through KitStore
    retriever = bm25_for_store(store)
    assert type(retriever) is BM25Retriever and retriever.size == len(nodes_of(TEXTS)) - 1


def test_a_collection_made_again_with_as_many_points_is_not_read_from_the_old_index(store: KitStore) -> None:
    save_bm25_beside(store)
    store.client.delete_collection("c")
    other = {source: [text.replace("fee", "charge") for text in texts] for source, texts in TEXTS.items()}
    again = KitStore(store.client, "c", 8)
    again.upsert_nodes(nodes_of(other))
    assert again.count() == len(nodes_of(TEXTS))
    retriever = bm25_for_store(again)
    assert type(retriever) is BM25Retriever
    assert retriever.retrieve("application charge", 1)[0].text == "The application charge is $90."


def test_each_tokenizer_has_its_own_saved_index_and_a_students_function_still_scores(store: KitStore) -> None:
    save_bm25_beside(store, stemmed_tokenize)
    saved = bm25_for_store(store, tokenizer=stemmed_tokenize)
    assert isinstance(saved, SavedBM25Retriever)
    assert type(bm25_for_store(store)) is BM25Retriever  # the kit tokenizer's index is not that one
    want = fitted(store, stemmed_tokenize)
    assert saved.documents == want.documents  # read from the store when a student's function needs them
    use("bm25", lambda q, docs, k1=1.5, b=0.75: bm25_scores(q, docs, k1, b) + 0.0, quiet=True)
    try:
        ranked = [h.node_id for h in saved.retrieve("fees alumni", 3)]
        assert ranked and ranked == [h.node_id for h in want.retrieve("fees alumni", 3)]
    finally:
        reset("bm25")


def test_nothing_is_saved_for_a_collection_in_memory_or_an_unnamed_tokenizer(store: KitStore) -> None:
    memory = KitStore(QdrantClient(":memory:"), "c", 8)
    memory.upsert_nodes(nodes_of(TEXTS))
    assert SavedBM25.beside(memory) is None and not save_bm25_beside(memory)
    assert type(bm25_for_store(memory)) is BM25Retriever
    assert SavedBM25.beside(store, tokenizer=str.split) is None


def test_an_empty_collection_saves_and_finds_nothing(folder: Path) -> None:
    client = open_folder(folder)
    store = KitStore(client, "empty", 8)
    assert save_bm25_beside(store)
    retriever = bm25_for_store(store)
    assert isinstance(retriever, SavedBM25Retriever) and retriever.retrieve("fee", 3) == []
    client.close()


def test_on_the_course_articles_the_saved_index_ranks_every_gold_question_as_the_fitted_one(tmp_path: Path) -> None:
    """The course's articles chunked as the defaults do, in a local-mode folder: the top 10 of every gold question,
    ids and scores, from the saved index equal those of bm25s fitted on the chunks read back."""
    parsed = parse_folder(REPO / "course_data" / "docs" / "articles", progress=False, cache_dir=tmp_path / "cache")
    nodes = chunk_for_settings(parsed.documents, Settings().chunking)
    for i, node in enumerate(nodes):
        node.embedding = np.random.default_rng(i).standard_normal(8).tolist()
    client = open_folder(tmp_path / "articles")
    try:
        store = KitStore(client, "articles", 8)
        store.upsert_nodes(nodes)
        assert save_bm25_beside(store)
        loaded, fresh = bm25_for_store(store), fitted(store)
        assert isinstance(loaded, SavedBM25Retriever) and loaded.size == len(nodes) > 300
        for question in load_gold():
            want = [(h.node_id, h.scores["sparse"]) for h in fresh.retrieve(question.question, 10)]
            assert [(h.node_id, h.scores["sparse"]) for h in loaded.retrieve(question.question, 10)] == want
    finally:
        client.close()


def test_with_the_default_settings_a_new_kernel_answers_without_reading_the_collection(
    tmp_settings: Settings, tiny_corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An ingest into the default store (local mode on a folder) saves the BM25 index; a pipeline opened after it
    retrieves with the default hybrid, and the app's search with its hybrid knob, while every scroll raises."""
    from helpers.app.knobs import Knobs
    from helpers.app.search import SearchBuilder
    from helpers.pipeline import RAGPipeline

    writer = RAGPipeline(tmp_settings)
    writer.ingest(tiny_corpus, progress=False)
    writer.close()
    pipeline = RAGPipeline(tmp_settings)
    try:
        forbid_scroll(monkeypatch, pipeline.store.client)
        assert tmp_settings.retrieval.retriever == "hybrid" and tmp_settings.retrieval.bm25_backend == "auto"
        hits = pipeline.retrieve("application fee", k=2)
        assert hits[0].metadata["source"] == "fees.md" and "sparse" in hits[0].scores
        knobs = Knobs(retriever="hybrid", k=2, rerank=False, multi_query=False)
        assert SearchBuilder(pipeline).retrieve("capstone teams", knobs)[0].metadata["source"] == "capstone.md"
    finally:
        pipeline.close()


def test_an_index_that_cannot_be_saved_is_fitted_and_says_so_in_one_line(
    store: KitStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(self: SavedBM25, retriever: BM25Retriever) -> None:  # a stand-in for a read-only folder
        raise OSError("[Errno 30] Read-only file system")

    monkeypatch.setattr(SavedBM25, "save", refuse)
    with pytest.warns(UserWarning, match="not saved beside the collection"):
        retriever = bm25_for_store(store)
    assert type(retriever) is BM25Retriever
    assert retriever.retrieve("application fee", 1)[0].text == "The application fee is $90."


def test_chunks_removed_by_another_kernel_after_the_load_are_skipped_or_named(store: KitStore) -> None:
    save_bm25_beside(store)
    loaded = bm25_for_store(store)
    gone = next(h for h in loaded.retrieve("application fee", 3) if h.text == "The application fee is $90.")
    store.client.delete("c", points_selector=[gone.node_id])  # as another kernel's ingest would
    assert gone.node_id not in [h.node_id for h in loaded.retrieve("application fee", 3)]
    with pytest.raises(StoreError, match="changed since this kernel loaded"):
        loaded.documents  # noqa: B018  (a student's bm25 function would need every chunk of the old index)


def test_a_saved_folder_missing_its_count_is_saved_again(store: KitStore) -> None:
    save_bm25_beside(store)
    saved = SavedBM25.beside(store)
    assert saved is not None and saved.current() is not None
    (saved.current() / "count.json").unlink()  # as a save cut short outside the staging folder would leave it
    assert saved.load() is None
    assert type(bm25_for_store(store)) is BM25Retriever and isinstance(bm25_for_store(store), SavedBM25Retriever)
