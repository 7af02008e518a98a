"""The embedded Qdrant folder shared by several kernels: locked only while one of them writes.

Local mode locks its folder while a client is open; `SharedLocal` holds the lock for one write call only and
reloads what another process wrote before its next call. A write that waits longer than `LOCK_WAIT_S` ends in
`FolderBusy`, naming the holder (`holder.json`).
What it leaves out: transactions across processes (ids come from content, so two kernels write the same
points) and any speed-up of the engine itself.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import portalocker
from qdrant_client.http import models as rest_models
from qdrant_client.local.local_collection import LocalCollection
from qdrant_client.local.qdrant_local import META_INFO_FILENAME, QdrantLocal

LOCK_WAIT_S = 10.0  # a write waits this long for another kernel's write to finish before it gives up
POLL_S = 0.05
HOLDER_FILE = "holder.json"
WRITES = frozenset({
    "upsert", "update_vectors", "delete_vectors", "delete", "set_payload", "overwrite_payload", "delete_payload",
    "clear_payload", "batch_update_points", "update_collection_aliases", "update_collection", "delete_collection",
    "create_collection", "recreate_collection", "upload_points", "upload_collection", "create_payload_index",
    "delete_payload_index", "create_vector_name", "delete_vector_name",
})  # fmt: skip


class StoreError(RuntimeError):
    """The vector store cannot be used as asked; the message says what to do."""


class FolderBusy(StoreError):
    """The folder's lock was held longer than the wait; the message names the holder and what to do."""


def busy_message(folder: Path) -> str:
    """What to do when the embedded folder stays locked: the holder named, the two ways out."""
    return (
        f"The embedded Qdrant folder {folder} is open in another process that does not let go: {holder(folder)}. "
        "Shut down that kernel (Kernel > Shut Down Kernel) or close its client, and run this cell again; "
        "or set QDRANT_URL to a Qdrant server, which many processes can share."
    )


def process_name() -> str:
    """How this process is named to others: the notebook (Jupyter sets JPY_SESSION_NAME), else the command."""
    session = os.environ.get("JPY_SESSION_NAME")
    if session:
        return f"notebook {Path(session).name}"
    argv = " ".join(Path(sys.argv[0]).name.split() + sys.argv[1:2]) if sys.argv and sys.argv[0] else "python"
    return f"process {argv!r}"


def write_holder(folder: Path) -> None:
    """Name this process as the folder's holder (what `holder` reads)."""
    record = {"pid": os.getpid(), "name": process_name(), "since": time.strftime("%H:%M:%S")}
    (folder / HOLDER_FILE).write_text(json.dumps(record), encoding="utf-8")


def _alive(pid: int) -> bool:
    """Whether a process with this id runs on this machine."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def holder(folder: Path) -> str:
    """Who holds the folder, as a phrase: "notebook 04_vector_store.ipynb (pid 123, since 18:20:01)"."""
    try:
        record = json.loads((folder / HOLDER_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        record = {}
    if record.get("pid") == os.getpid():
        return "another client in this same kernel, in the middle of a write"
    if record.get("pid") and _alive(int(record["pid"])):
        return f"{record.get('name', 'another process')} (pid {record['pid']}, since {record.get('since', '?')})"
    return "another process that opened it with QdrantClient(path=…) and keeps it open"


class SharedLocal(QdrantLocal):
    """Local-mode Qdrant on a folder that other processes may read and write between this one's calls."""

    def __init__(self, location: str, lock_wait_s: float | None = None) -> None:
        self._lock_wait_s = LOCK_WAIT_S if lock_wait_s is None else lock_wait_s
        self._version: tuple = ()
        self._depth = 0  # nested calls (upload_points calls upsert) take the lock once
        self._threads = threading.RLock()  # threads of this process take turns (the app answers in threads)
        super().__init__(location)

    # -- the lock: taken per write call, not per client ------------------------------------------------------
    def _load(self) -> None:
        """Load every collection from disk under the lock, then let the lock go at once."""
        with self._locked(load=True):
            pass

    @contextmanager
    def _locked(self, load: bool = False) -> Iterator[None]:
        """Hold the folder's lock (waiting up to lock_wait_s), reloading first if another process wrote."""
        with self._threads, self._folder_locked(load):
            yield

    @contextmanager
    def _folder_locked(self, load: bool) -> Iterator[None]:
        """The folder's lock for this thread (once, however deeply the calls nest)."""
        if self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        folder = Path(self.location)
        folder.mkdir(parents=True, exist_ok=True)
        handle = self._acquire(folder)
        self._depth = 1
        try:
            if load or self._changed():
                self._reload()
            write_holder(folder)
            yield
            self._version = self._disk_version()
        finally:
            self._depth = 0
            (folder / HOLDER_FILE).unlink(missing_ok=True)  # only a holder of the lock is ever named
            portalocker.unlock(handle)
            handle.close()

    def _acquire(self, folder: Path) -> Any:
        """The open, locked `.lock` file; FolderBusy naming the holder after lock_wait_s."""
        lock_path = folder / ".lock"
        if not lock_path.exists():
            lock_path.write_text("tmp lock file")
        handle = open(lock_path, "r+")  # noqa: SIM115  (closed in _locked)
        deadline = time.monotonic() + self._lock_wait_s
        while True:
            try:
                portalocker.lock(handle, portalocker.LockFlags.EXCLUSIVE | portalocker.LockFlags.NON_BLOCKING)
                return handle
            except portalocker.exceptions.LockException:
                if time.monotonic() >= deadline:
                    handle.close()
                    raise FolderBusy(busy_message(folder)) from None
                time.sleep(POLL_S)

    # -- seeing what other processes wrote ---------------------------------------------------------------------
    def _disk_version(self) -> tuple:
        """Size and time of meta.json and of each loaded collection's SQLite files: they change when anyone writes
        (a collection made or dropped elsewhere changes meta.json)."""
        files = [Path(self.location) / META_INFO_FILENAME]
        for name in self.collections:
            folder = Path(self._collection_path(name) or "")
            files += [folder / "storage.sqlite", folder / "storage.sqlite-wal"]  # not -shm: readers touch it
        version = []
        for file in files:
            try:
                stat = file.stat()
            except FileNotFoundError:
                continue
            version.append((str(file), stat.st_size, stat.st_mtime_ns))
        return tuple(version)

    def _changed(self) -> bool:
        """Whether the folder changed since this process last loaded or wrote it."""
        return self._disk_version() != self._version

    def _reload(self) -> None:
        """Drop the in-memory collections and read them again from disk (the caller holds the lock)."""
        for collection in self.collections.values():
            if collection is not None:
                collection.close()
        self.collections, self.aliases = {}, {}
        meta_path = Path(self.location) / META_INFO_FILENAME
        if not meta_path.exists():
            meta_path.write_text(json.dumps({"collections": {}, "aliases": {}}))
        meta = json.loads(meta_path.read_text())
        # as QdrantLocal._load does, minus its folder lock (ours is held)
        for name, config_json in meta["collections"].items():
            config_json.pop("init_from", None)
            config = rest_models.CreateCollection(**config_json)
            path, same_thread = self._collection_path(name), self.force_disable_check_same_thread
            self.collections[name] = LocalCollection(config, path, force_disable_check_same_thread=same_thread)
        self.aliases = meta["aliases"]
        for name, indexes in meta.get("text_indexes", {}).items():
            if name in self.collections:
                self.collections[name].text_indexes = {
                    field: rest_models.TextIndexParams(**params) for field, params in indexes.items()
                }
        self._version = self._disk_version()

    def close(self, **kwargs: Any) -> None:
        """Close the SQLite files (no lock is held between calls)."""
        self._flock_file = None
        super().close(**kwargs)


def _wrap(name: str, write: bool) -> Callable[..., Any]:
    """A method of SharedLocal that reloads (reads) or locks and reloads (writes) before QdrantLocal's."""
    method = getattr(QdrantLocal, name)

    def call(self: SharedLocal, *args: Any, **kwargs: Any) -> Any:
        if write:
            with self._locked():
                return method(self, *args, **kwargs)
        if not self._depth and self._changed():
            with self._locked():  # reload under the lock, so no write is half-read
                pass
        return method(self, *args, **kwargs)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"QdrantLocal.{name}, {'locked for the call' if write else 'on the folder as it is now'}."
    return call


READS = ("query_points", "query_batch_points", "query_points_groups", "scroll", "count", "facet", "retrieve",
         "get_collection", "get_collections", "collection_exists", "get_collection_aliases", "get_aliases",
         "search_matrix_offsets", "search_matrix_pairs")  # fmt: skip
for _name in WRITES | set(READS):
    setattr(SharedLocal, _name, _wrap(_name, _name in WRITES))
