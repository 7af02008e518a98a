"""The vector store: deterministic ids, idempotent and resumable ingestion, filters, and exact search."""

from __future__ import annotations

import sqlite3
import zlib
from pathlib import Path

import numpy as np
import pytest
from llama_index.core import Document
from llama_index.core.schema import TextNode
from qdrant_client import QdrantClient

from helpers.chunking import chunk_documents, node_id
from helpers.lab.store import numpy_top_k
from helpers.store import KitStore, StoreError, filters_from

DIM = 16


def make_nodes(texts_by_source: dict[str, list[str]], seed: int = 0, **metadata: str) -> list[TextNode]:
    """Nodes with content ids and random unit vectors (the same text always gets the same vector)."""
    nodes = []
    for source, texts in texts_by_source.items():
        for text in texts:
            rng = np.random.default_rng(zlib.crc32(f"{seed}:{text}".encode()))
            vector = rng.standard_normal(DIM)
            node = TextNode(text=text, id_=node_id(source, text), metadata={"source": source, **metadata})
            node.embedding = (vector / np.linalg.norm(vector)).tolist()
            nodes.append(node)
    return nodes


def corpus(n: int = 12) -> list[TextNode]:
    """Three documents of n/3 chunks each."""
    return make_nodes({f"doc{d}.md": [f"doc {d} chunk {i}" for i in range(n // 3)] for d in range(3)})


def test_chunk_ids_are_deterministic_and_stored_as_given() -> None:
    document = Document(text="Alpha beta gamma. " * 300, metadata={"source": "a.md"})
    first = chunk_documents([document], "fixed_tokens", size=64, overlap=8)
    second = chunk_documents([document], "fixed_tokens", size=64, overlap=8)
    assert [n.node_id for n in first] == [n.node_id for n in second]
    for node in first:
        node.embedding = [1.0] + [0.0] * (DIM - 1)
    store = KitStore(QdrantClient(":memory:"), "c", DIM)
    store.upsert_nodes(first)
    assert store.ids_of_source("a.md") == {n.node_id for n in first}


def test_reingest_writes_nothing_and_never_duplicates() -> None:
    store = KitStore(QdrantClient(":memory:"), "c", DIM)
    first = store.upsert_nodes(corpus())
    second = store.upsert_nodes(corpus())
    assert first == {"written": 12, "unchanged": 0, "removed_stale": 0}
    assert second == {"written": 0, "unchanged": 12, "removed_stale": 0} and store.count() == 12


def test_interrupted_ingest_resumes_to_exactly_a_clean_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nodes = corpus(24)
    crashed = KitStore(QdrantClient(path=str(tmp_path / "crashed")), "c", DIM)
    real_upload, batches = crashed.client.upload_points, []

    def upload_then_crash(*args: object, **kwargs: object) -> None:
        batches.append(args)
        if len(batches) == 3:
            raise KeyboardInterrupt  # the kernel dies during the third batch
        real_upload(*args, **kwargs)

    monkeypatch.setattr(crashed.client, "upload_points", upload_then_crash)
    with pytest.raises(KeyboardInterrupt):
        crashed.upsert_nodes(nodes, batch_size=5)
    crashed.client.close()
    # a new process opens the folder and runs the same ingestion again
    resumed = KitStore(QdrantClient(path=str(tmp_path / "crashed")), "c", DIM)
    assert resumed.count() == 10
    assert resumed.upsert_nodes(nodes, batch_size=5) == {"written": 14, "unchanged": 10, "removed_stale": 0}
    clean = KitStore(QdrantClient(":memory:"), "c", DIM)
    clean.upsert_nodes(nodes)
    assert resumed.ids_by_source() == clean.ids_by_source()
    vectors = {n.node_id: n.embedding for n in resumed.nodes()}
    assert all(np.allclose(vectors[n.node_id], n.embedding, atol=1e-6) for n in clean.nodes())


def test_a_changed_document_replaces_its_old_chunks() -> None:
    store = KitStore(QdrantClient(":memory:"), "c", DIM)
    store.upsert_nodes(make_nodes({"fees.md": ["fee is $80", "deadline May 1"], "other.md": ["unrelated"]}))
    counts = store.upsert_nodes(make_nodes({"fees.md": ["fee is $90", "deadline May 1"]}))
    assert counts == {"written": 1, "unchanged": 1, "removed_stale": 1}
    texts = {n.get_content() for n in store.nodes()}
    assert texts == {"fee is $90", "deadline May 1", "unrelated"}


def test_filters_on_doc_type_and_sender_restrict_results() -> None:
    store = KitStore(QdrantClient(":memory:"), "c", DIM)
    store.upsert_nodes(make_nodes({"a.eml": ["exam moved"]}, doc_type="email", sender="Dana Whitcombe <d.w@x.edu>"))
    store.upsert_nodes(make_nodes({"b.eml": ["room change"]}, doc_type="email", sender="Raj Patel <raj@x.edu>"))
    store.upsert_nodes(make_nodes({"c.md": ["fee table", "tuition"]}, doc_type="markdown"))
    query = np.ones(DIM) / np.sqrt(DIM)
    assert len(store.search(query, k=10)) == 4
    assert {h.source for h in store.search(query, 10, filters_from({"doc_type": "email"}))} == {"a.eml", "b.eml"}
    assert {h.source for h in store.search(query, 10, {"sender": "whitcombe"})} == {"a.eml"}
    assert {h.source for h in store.search(query, 10, {"doc_type": ["markdown"], "source": "c.md"})} == {"c.md"}
    assert store.search(query, 10, {"doc_type": "email", "sender": "nobody"}) == []
    with pytest.raises(ValueError, match="filterable fields"):
        filters_from({"doctype": "email"})


def test_a_list_payload_filters_on_any_value_and_a_changed_payload_is_written_again() -> None:
    store = KitStore(QdrantClient(":memory:"), "c", DIM)
    before = make_nodes({"cal.csv": ["Oct 1", "Jan 4"]})  # stored before the term payload was filled
    store.upsert_nodes(before)
    after = make_nodes({"cal.csv": ["Oct 1", "Jan 4"]})
    after[0].metadata["term"], after[1].metadata["term"] = ["Autumn 2026"], ["Autumn 2026", "Winter 2027"]
    assert store.upsert_nodes(after) == {"written": 2, "unchanged": 0, "removed_stale": 0}  # same ids, new payload
    assert store.upsert_nodes(after) == {"written": 0, "unchanged": 2, "removed_stale": 0} and store.count() == 2
    query = np.ones(DIM) / np.sqrt(DIM)
    assert {h.text for h in store.search(query, 10, {"term": "Winter 2027"})} == {"Jan 4"}
    assert {h.text for h in store.search(query, 10, {"term": "Autumn 2026"})} == {"Oct 1", "Jan 4"}
    assert store.search(query, 10, {"term": "Spring 2027"}) == []


def test_dimension_mismatch_names_both_sizes_and_the_fix(tmp_path: Path) -> None:
    client = QdrantClient(path=str(tmp_path / "q"))
    KitStore(client, "course", 384)
    with pytest.raises(StoreError, match=r"384-d vectors but the embedder makes 768-d.*KIT_COLLECTION"):
        KitStore(client, "course", 768)


def test_another_embedders_vectors_are_refused_at_search_and_written_again_at_ingest() -> None:
    """Same dimension, other model: a search says so and how to fix it; the next ingest starts the collection again
    and writes every chunk with the configured embedder (same ids: without the record it would skip them all)."""
    client = QdrantClient(":memory:")
    KitStore(client, "c", DIM, embedder="model-a").upsert_nodes(corpus())
    other = KitStore(client, "c", DIM, embedder="model-b")
    query = corpus()[0].embedding
    with pytest.raises(StoreError, match=r"embedder 'model-a', but the configured one is 'model-b'.*ingest"):
        other.search(query, 3)
    with pytest.warns(UserWarning, match=r"held vectors of the embedder 'model-a'; every chunk is written again"):
        report = other.upsert_nodes(make_nodes({f"doc{d}.md": [f"doc {d} chunk {i}" for i in range(4)]
                                                for d in range(3)}, seed=1))  # fmt: skip
    assert report["written"] == 12 and other.count() == 12 and len(other.search(query, 3)) == 3
    assert KitStore(client, "c", DIM, embedder="model-b").vectors_from == ""


def test_a_collection_without_an_embedder_record_gets_one_at_the_next_ingest() -> None:
    client = QdrantClient(":memory:")
    KitStore(client, "c", DIM).upsert_nodes(corpus())  # made before embedders were recorded
    assert KitStore(client, "c", DIM, embedder="model-a").vectors_from == ""  # nothing to compare with: trusted
    KitStore(client, "c", DIM, embedder="model-a").upsert_nodes(corpus())
    assert KitStore(client, "c", DIM, embedder="model-b").vectors_from == "model-a"


def assert_same_top_k_as_numpy(store: KitStore) -> None:
    """25 random queries over 300 points: the store's top 5 (ids and best score) are exact numpy's."""
    nodes = make_nodes({"s.md": [f"chunk {i}" for i in range(300)]})
    store.upsert_nodes(nodes)
    matrix = np.array([n.embedding for n in nodes], dtype=np.float32)
    rng = np.random.default_rng(1)
    for _ in range(25):
        query = rng.standard_normal(DIM).astype(np.float32)
        query /= np.linalg.norm(query)
        top = numpy_top_k(matrix, query, 5)
        hits = store.search(query, 5)
        assert [h.node_id for h in hits] == [nodes[i].node_id for i in top]
        assert hits[0].scores["dense"] == pytest.approx(float(matrix[top[0]] @ query), 1e-5)


def test_numpy_brute_force_and_qdrant_return_the_same_top_k() -> None:
    assert_same_top_k_as_numpy(KitStore(QdrantClient(":memory:"), "c", DIM))


def test_embedded_store_writes_in_wal_mode(tmp_path: Path) -> None:
    store = KitStore(QdrantClient(path=str(tmp_path / "q")), "c", DIM)
    store.upsert_nodes(corpus())
    store.client.close()
    files = list((tmp_path / "q").rglob("storage.sqlite"))
    assert files and sqlite3.connect(files[0]).execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_students_side_collections_on_a_shared_server_carry_their_name() -> None:
    from helpers.config import Settings
    from helpers.store import class_collection

    alice = Settings(qdrant_url="http://qdrant.example.edu:6333", collection="alice")
    assert class_collection("notes", alice.store) == "alice__notes"
    assert class_collection("alice", alice.store) == "alice"  # the student's own course collection
    assert class_collection("alice__notes", alice.store) == "alice__notes"  # never prefixed twice
    assert class_collection("x", alice.replace(collection="alice__notes").store) == "alice__x"
    assert class_collection("notes", Settings(collection="alice").store) == "notes"  # embedded: a folder of one's own
    assert class_collection("notes", alice.replace(collection="course").store) == "notes"  # one user on a server


def test_dropping_on_a_shared_server_deletes_only_the_students_own_copy() -> None:
    from qdrant_client import models

    from helpers.config import Settings
    from helpers.store import drop_collection

    client = QdrantClient(location=":memory:")  # stands in for the server: the name is what is under test
    for name in ("notes", "alice__notes"):
        client.create_collection(name, vectors_config=models.VectorParams(size=4, distance=models.Distance.COSINE))
    alice = Settings(qdrant_url="http://qdrant.example.edu:6333", collection="alice")
    drop_collection("notes", alice, client=client)
    assert [c.name for c in client.get_collections().collections] == ["notes"]


def test_a_folder_and_a_tuning_run_get_the_students_prefix_on_a_shared_server(tmp_path: Path) -> None:
    from helpers.byod import collection_name, folder_settings
    from helpers.config import Settings
    from helpers.evaluation.two_corpora import Corpus, tuning_settings

    alice = Settings(qdrant_url="http://qdrant.example.edu:6333", collection="alice")
    (tmp_path / "My Notes").mkdir()
    (tmp_path / "alice").mkdir()
    notes = collection_name(tmp_path / "My Notes")  # "my_notes_" and a short hash of the folder's path
    assert notes.startswith("my_notes_")
    assert folder_settings(tmp_path / "My Notes", alice).store.collection == f"alice__{notes}"
    own = collection_name(tmp_path / "alice")
    assert folder_settings(tmp_path / "alice", alice).store.collection == f"alice__{own}"
    assert folder_settings(tmp_path / "My Notes", Settings()).store.collection == notes
    student = alice.replace(collection=f"alice__{notes}")  # a student whose KIT_COLLECTION is the folder's collection
    assert folder_settings(tmp_path / "My Notes", student).store.collection == f"alice__{notes}_folder"
    tuned = tuning_settings(Corpus("real", tmp_path, ()), alice)
    assert tuned.store.collection.startswith("alice__tune_real_")
