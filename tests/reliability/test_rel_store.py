"""The vector store refuses clearly: a folder another process holds, a server that does not answer, a collection
made with another embedding dimension. In every case the points already stored are left as they were."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from llama_index.core.schema import TextNode
from reliability_kit import Record, closed_port, write

import helpers.store.client as store_client
import helpers.store.shared as shared
from helpers.config import Settings
from helpers.pipeline import RAGPipeline
from helpers.store import KitStore, StoreError, connect

HOLD = "from qdrant_client import QdrantClient; c = QdrantClient(path=%r); print('holding', flush=True); input()"


def seed_points(settings: Settings, dimension: int, n: int = 3) -> int:
    """Store n points of `dimension` in the settings' collection; the count."""
    nodes = [TextNode(text=f"point {i}", id_=f"00000000-0000-0000-0000-00000000000{i}", metadata={"source": "s.md"})
             for i in range(n)]  # fmt: skip
    for i, node in enumerate(nodes):
        node.embedding = [1.0 if j == i else 0.0 for j in range(dimension)]
    store = KitStore(connect(settings), settings.store.collection, dimension)
    try:
        store.upsert_nodes(nodes)
        return store.count()
    finally:
        store.client.close()


def count_points(settings: Settings, dimension: int) -> int:
    store = KitStore(connect(settings), settings.store.collection, dimension)
    try:
        return store.count()
    finally:
        store.client.close()


def test_folder_held_by_another_process_says_what_to_do(
    rel_settings: Settings, tmp_path: Path, record: Record, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plain QdrantClient(path=…) keeps the folder locked (the kit's own clients lock only while writing)."""
    monkeypatch.setattr(shared, "LOCK_WAIT_S", 1.0)  # 10 s in use: a write waits that long for another's
    before = seed_points(rel_settings, 384)
    holder = subprocess.Popen(  # a second notebook kernel with the same embedded store open
        [sys.executable, "-c", HOLD % str(rel_settings.paths.data_dir / "qdrant")], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        write(tmp_path / "docs" / "a.md", "# A\n\nSome text.\n")
        pipeline = RAGPipeline(rel_settings)
        with pytest.raises(StoreError) as caught:
            pipeline.ingest(tmp_path / "docs", progress=False)
        message = str(caught.value)
        assert "open in another process" in message and "Shut down that kernel" in message and "QDRANT_URL" in message
        assert "QdrantClient(path=…)" in message  # the holder, as far as it can be known
    finally:
        holder.communicate("\n", timeout=30)  # the other kernel shuts down
    after = count_points(rel_settings, 384)
    assert after == before
    case = "store: embedded Qdrant folder kept locked by a plain QdrantClient(path=…) in another process (wait 1 s)"
    record(case, f"StoreError: “{message}”", before, after)


def test_qdrant_url_that_refuses_connections(rel_settings: Settings, record: Record) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    start = time.perf_counter()
    with pytest.raises(StoreError, match=r"does not answer .*Start the server, fix QDRANT_URL, or unset it"):
        connect(rel_settings.replace(qdrant_url=url))
    seconds = time.perf_counter() - start
    assert seconds < 5
    record("store: QDRANT_URL on a closed port", f"StoreError after {seconds:.1f} s: start, fix or unset QDRANT_URL")


def test_qdrant_url_that_never_answers_times_out(
    rel_settings: Settings, monkeypatch: pytest.MonkeyPatch, record: Record
) -> None:
    monkeypatch.setattr(store_client, "CONNECT_TIMEOUT_S", 1)  # 10 s in use; 1 s keeps the suite short
    with socket.socket() as silent:  # accepts the connection (the kernel's backlog) but never replies
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        start = time.perf_counter()
        with pytest.raises(StoreError, match=r"waited at most 1 s"):
            connect(rel_settings.replace(qdrant_url=f"http://127.0.0.1:{silent.getsockname()[1]}"))
        seconds = time.perf_counter() - start
    assert seconds < 1 + 3
    record("store: QDRANT_URL that accepts but never answers", f"StoreError after {seconds:.1f} s (timeout 1 s in the "
           "test, CONNECT_TIMEOUT_S = 10 s in use)")  # fmt: skip


def test_collection_of_another_dimension_is_refused_not_mixed(
    rel_settings: Settings, tmp_path: Path, record: Record
) -> None:
    before = seed_points(rel_settings, 16)
    write(tmp_path / "docs" / "a.md", "# A\n\nSome text about the capstone.\n")
    pipeline = RAGPipeline(rel_settings)
    try:
        with pytest.raises(StoreError, match=r"holds 16-d vectors but the embedder makes 384-d .*KIT_COLLECTION"):
            pipeline.ingest(tmp_path / "docs", progress=False)
    finally:
        pipeline.close()
    after = count_points(rel_settings, 16)
    assert after == before  # nothing of the 384-d run was written into the 16-d collection
    happened = "StoreError naming both sizes and the fix (KIT_COLLECTION or drop_collection); nothing written"
    record("store: a collection made with another dimension (16-d vs 384-d)", happened, before, after)
