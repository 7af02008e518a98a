"""Connecting to Qdrant: the embedded folder by default, a server when `QDRANT_URL` is set.

`connect()` returns a `QdrantClient` either way (the folder through `shared.SharedLocal`, locked only while writing,
or as qdrant-edge shards), and turns a server that does not answer or a locked folder into what to do about it.
What it leaves out: collections and points (see `collection.py`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from qdrant_client import QdrantClient, models
from qdrant_client.local.qdrant_local import QdrantLocal

from helpers.config import Settings, StoreSettings
from helpers.store.shared import SharedLocal, StoreError

CONNECT_TIMEOUT_S = 10  # a Qdrant server that does not answer within this is reported, not waited on
COURSE_COLLECTION = StoreSettings().collection  # the default name: one user, nothing to keep apart
OWNER_SEPARATOR = "__"


def class_collection(name: str, store: StoreSettings) -> str:
    """`name` as this student's own on a shared server ("alice__notes" for KIT_COLLECTION=alice), else `name`."""
    owner = store.collection.split(OWNER_SEPARATOR)[0]
    shared = bool(store.qdrant_url) and owner != COURSE_COLLECTION
    if not shared or name == owner or name.startswith(owner + OWNER_SEPARATOR):
        return name
    return f"{owner}{OWNER_SEPARATOR}{name}"


def connect(settings: Settings) -> QdrantClient:
    """A qdrant-client: the server at `QDRANT_URL`, else the embedded folder under `data_dir`."""
    if settings.store.qdrant_url:
        client = QdrantClient(
            url=settings.store.qdrant_url, api_key=settings.store.qdrant_api_key or None, timeout=CONNECT_TIMEOUT_S
        )
        try:
            client.get_collections()
        except Exception as err:  # any transport error means the same to a student
            raise StoreError(
                f"Qdrant at {settings.store.qdrant_url} does not answer ({_what_failed(err)}, waited at most "
                f"{CONNECT_TIMEOUT_S} s). Start the server, "
                "fix QDRANT_URL, or unset it to use the embedded store."
            ) from None
        return client
    if settings.store.store_backend == "edge":
        return open_edge_folder(settings.paths.data_dir / "qdrant-edge")
    return open_folder(settings.paths.data_dir / "qdrant")


def open_folder(path: Path, lock_wait_s: float | None = None) -> QdrantClient:
    """A client on the embedded folder that other kernels can use too (the lock is held only while writing)."""
    path.mkdir(parents=True, exist_ok=True)
    client = QdrantClient(location=":memory:")  # the same client class, with the shared folder engine under it
    client._client = SharedLocal(str(path), lock_wait_s=lock_wait_s)  # FolderBusy (a StoreError) names the holder
    return client


def open_edge_folder(path: Path, lock_wait_s: float | None = None) -> QdrantClient:
    """A client on a folder of qdrant-edge shards (Qdrant's Rust engine in this process), shared by lease."""
    from helpers.store.edge import EdgeLocal  # imported only when chosen: qdrant-edge is a compiled extension

    client = QdrantClient(location=":memory:")
    client._client = EdgeLocal(str(path), lock_wait_s=lock_wait_s)
    return client


def _what_failed(error: Exception) -> str:
    """A transport error in words (never its type name)."""
    text = str(error).lower()
    if "timed out" in text or "timeout" in text:
        return "no reply in time"
    if "refused" in text:
        return "connection refused"
    return "no connection"


def is_local(client: QdrantClient) -> bool:
    """Whether the client is qdrant-client's local mode (Python engine, a folder or `:memory:`: no payload indexes)."""
    return isinstance(getattr(client, "_client", None), QdrantLocal)


def bm25_in_store(backend: str, client: QdrantClient) -> bool:
    """Whether BM25 ranks inside Qdrant: "store" always, "kernel" never, "auto" unless the client is local mode
    (where the points are in this process already)."""
    return backend == "store" or (backend == "auto" and not is_local(client))


def enable_fast_local_writes(client: QdrantClient, collection: str) -> bool:
    """Switch an embedded collection's SQLite file to WAL mode (one cheap commit per point); False if none."""
    local = getattr(client, "_client", None)
    storage = getattr(getattr(getattr(local, "collections", {}).get(collection), "storage", None), "storage", None)
    if not isinstance(storage, sqlite3.Connection):
        return False  # a server, or `:memory:` (nothing written to disk)
    storage.execute("PRAGMA journal_mode=WAL")  # stored in the file: stays on when reopened
    storage.execute("PRAGMA synchronous=NORMAL")  # per connection: set again on every open
    return True


def scroll_all(client: QdrantClient, collection: str, page: int, **options: Any) -> Iterator[models.Record]:
    """Every point of a collection (that `options` select: scroll_filter, with_payload …), `page` points a call."""
    offset = None
    while True:
        points, offset = client.scroll(collection, limit=page, offset=offset, **options)
        yield from points
        if offset is None:
            return


def drop_collection(name: str, settings: Settings, client: QdrantClient | None = None) -> None:
    """Delete a collection (to rebuild it from scratch); pass `client` if this process has one open."""
    client = client or connect(settings)
    name = class_collection(name, settings.store)
    if client.collection_exists(name):
        client.delete_collection(name)
