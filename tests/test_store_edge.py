"""The qdrant-edge backend keeps the store's semantics: idempotent upserts by id, stale chunks replaced, payload
filters (keyword, any-of, all-words text), exact top-k, persistence, the dimension check, and two processes
sharing one folder (the lease)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("qdrant_edge")

from qdrant_client import models
from test_store import DIM, assert_same_top_k_as_numpy, corpus, make_nodes

from helpers.config import load_settings
from helpers.store import FolderBusy, KitStore, StoreError, connect, open_edge_folder

REPO = Path(__file__).resolve().parents[1]
HOLD = """
import sys, time
sys.path.insert(0, {repo!r})
from pathlib import Path
from helpers.store import KitStore, open_edge_folder
store = KitStore(open_edge_folder(Path({folder!r})), "c", {dim})
store.count()  # the folder is now this process's, kept between calls
if {busy}:
    with store.client._client._locked():
        print("holding", flush=True)
        time.sleep(3)
else:
    print("holding", flush=True)
    input()
print(store.count(), flush=True)
"""


def edge_store(folder: Path, name: str = "c", dim: int = DIM) -> KitStore:
    return KitStore(open_edge_folder(folder), name, dim)


def test_settings_choose_the_edge_folder(tmp_path: Path) -> None:
    settings = load_settings(environ={"KIT_DATA_DIR": str(tmp_path), "KIT_STORE_BACKEND": "edge"})
    client = connect(settings)
    try:
        assert type(client._client).__name__ == "EdgeLocal" and (tmp_path / "qdrant-edge").is_dir()
    finally:
        client.close()


def test_upserts_by_id_are_idempotent_and_replace_stale_chunks(tmp_path: Path) -> None:
    store = edge_store(tmp_path / "q")
    assert store.upsert_nodes(corpus()) == {"written": 12, "unchanged": 0, "removed_stale": 0}
    assert store.upsert_nodes(corpus()) == {"written": 0, "unchanged": 12, "removed_stale": 0}
    store.vector_store.add(corpus()[:4])  # written again by the same ids: still 12 points
    assert store.count() == 12
    store.upsert_nodes(make_nodes({"fees.md": ["fee is $80", "deadline May 1"]}))
    counts = store.upsert_nodes(make_nodes({"fees.md": ["fee is $90", "deadline May 1"]}))
    assert counts == {"written": 1, "unchanged": 1, "removed_stale": 1}
    assert {"fee is $90", "deadline May 1"} <= {n.get_content() for n in store.nodes()} and store.count() == 14


def test_an_ingest_reads_only_the_points_of_its_own_sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Outside local mode an upsert asks Qdrant for its sources' points, not every point of the collection."""
    store = edge_store(tmp_path)
    store.upsert_nodes(corpus())  # doc0.md, doc1.md, doc2.md
    read: list[str] = []
    scroll = store._scroll
    monkeypatch.setattr(
        store, "_scroll", lambda **options: (read.append(str(options.get("scroll_filter"))), scroll(**options))[1]
    )
    changed = make_nodes({"doc1.md": ["doc 1 chunk 0", "doc 1 new chunk"]})
    assert store.upsert_nodes(changed) == {"written": 1, "unchanged": 1, "removed_stale": 3}
    assert len(read) == 1 and "doc1.md" in read[0] and "doc0.md" not in read[0]
    assert store.count() == 10 and store.ids_of_source("doc0.md") == {n.node_id for n in corpus()[:4]}


def test_filters_restrict_results_as_in_local_mode(tmp_path: Path) -> None:
    store = edge_store(tmp_path / "q")
    store.upsert_nodes(make_nodes({"a.eml": ["exam moved"]}, doc_type="email", sender="Dana Whitcombe <d.w@x.edu>"))
    store.upsert_nodes(make_nodes({"b.eml": ["room change"]}, doc_type="email", sender="Raj Patel <raj@x.edu>"))
    store.upsert_nodes(make_nodes({"c.md": ["fee table", "tuition"]}, doc_type="markdown"))
    query = np.ones(DIM) / np.sqrt(DIM)
    assert len(store.search(query, k=10)) == 4
    assert {h.source for h in store.search(query, 10, {"doc_type": "email"})} == {"a.eml", "b.eml"}
    assert {h.source for h in store.search(query, 10, {"sender": "whitcombe"})} == {"a.eml"}
    assert {h.source for h in store.search(query, 10, {"sender": "WHITCOMBE dana"})} == {"a.eml"}
    assert {h.source for h in store.search(query, 10, {"doc_type": ["markdown"], "source": "c.md"})} == {"c.md"}
    assert store.search(query, 10, {"doc_type": "email", "sender": "nobody"}) == []
    where = models.Filter(must=[models.FieldCondition(key="doc_type", match=models.MatchValue(value="email"))])
    assert store.client.count("c", count_filter=where).count == 2


def test_exact_top_k_equals_numpy(tmp_path: Path) -> None:
    assert_same_top_k_as_numpy(edge_store(tmp_path / "q"))


def test_points_persist_and_the_dimension_is_checked_after_reopening(tmp_path: Path) -> None:
    store = edge_store(tmp_path / "q")
    store.upsert_nodes(corpus())
    before, sources = {n.node_id: n.embedding for n in store.nodes()}, store.ids_by_source()
    store.client.close()
    again = edge_store(tmp_path / "q")
    assert again.count() == 12 and again.ids_by_source() == sources
    assert all(np.allclose(before[n.node_id], n.embedding, atol=1e-6) for n in again.nodes())
    with pytest.raises(StoreError, match=r"16-d vectors but the embedder makes 32-d"):
        KitStore(again.client, "c", 32)


def test_a_payload_only_collection_works(tmp_path: Path) -> None:
    client = open_edge_folder(tmp_path / "q")
    client.create_collection("profiles", vectors_config={})
    point_id = "e9408f2b-b917-4af1-ab75-d97ac6b2c047"
    client.upsert("profiles", [models.PointStruct(id=point_id, vector={}, payload={"name": "Ada"})])
    client.upsert("profiles", [models.PointStruct(id=point_id, vector={}, payload={"name": "Ada L."})])
    assert client.count("profiles").count == 1
    assert client.retrieve("profiles", [point_id])[0].payload == {"name": "Ada L."}


def _holder(folder: Path, busy: bool) -> subprocess.Popen:
    code = HOLD.format(repo=str(REPO), folder=str(folder), dim=DIM, busy=busy)
    process = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None and process.stdout.readline().strip() == "holding"
    return process


def test_another_process_holding_the_folder_lets_go_between_its_calls(tmp_path: Path) -> None:
    edge_store(tmp_path / "q").upsert_nodes(corpus())  # this process's client stays open, as a kernel's would
    holder = _holder(tmp_path / "q", busy=False)  # a second kernel with the store open, idle
    try:
        other = edge_store(tmp_path / "q")  # this one asks; the idle holder lets go
        other.upsert_nodes(make_nodes({"new.md": ["a new chunk"]}))
        assert other.count() == 13
    finally:
        out, _ = holder.communicate("\n", timeout=60)  # the holder's next call takes the folder back
    assert out.strip().splitlines()[-1] == "13"  # and sees the other process's write


def test_a_write_that_cannot_wait_names_the_holder(tmp_path: Path) -> None:
    edge_store(tmp_path / "q").client.close()
    holder = _holder(tmp_path / "q", busy=True)  # in the middle of a 3 s call
    try:
        client = open_edge_folder(tmp_path / "q", lock_wait_s=0.5)
        with pytest.raises(FolderBusy, match=r"open in another process.*\(pid \d+.*Shut down that kernel"):
            client.count("c")
    finally:
        holder.communicate("", timeout=60)
    assert client.count("c").count == 0  # free again: the same call goes through


def test_two_clients_in_one_kernel_take_turns(tmp_path: Path) -> None:
    first, second = edge_store(tmp_path / "q"), edge_store(tmp_path / "q")  # e.g. the pipeline's and a cell's own
    first.upsert_nodes(corpus())
    second.upsert_nodes(make_nodes({"new.md": ["a new chunk"]}))  # first lets go between its calls
    assert first.count() == 13 and second.count() == 13
