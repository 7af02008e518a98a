"""A fitted BM25 index saved beside a local-mode collection, so a kernel starts BM25 without reading every chunk.

`SavedBM25` keeps the bm25s index and each row's point id and filterable payload per `points_version`; a kernel
loads it while the collection keeps that version and point count, and reads from Qdrant only the hits' chunks.
What it leaves out: servers and qdrant-edge (BM25 ranks in Qdrant there), `:memory:`, other tokenizers.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import warnings
from collections import OrderedDict
from collections.abc import Callable, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

import bm25s
import numpy as np

from helpers.retrieval.base import Filters, stored_chunks
from helpers.retrieval.bm25 import TOKENIZERS, BM25Retriever, tokenize
from helpers.retrieval.metadata_match import matches
from helpers.store import KitStore, StoreError, is_local
from helpers.store.payload_filters import filterable
from helpers.types import Hit

FOLDER = "kit_bm25"  # beside local mode's own `collection/` folder and `meta.json`
ROWS = "rows.json"  # the point id and filterable payload of each row of the index, in row order
COUNT = "count.json"  # how many rows: what `is_current` compares with the collection without reading the rows


def local_folder(store: KitStore) -> Path | None:
    """The folder a local-mode client keeps its collections in (None: a server, qdrant-edge or `:memory:`)."""
    if not is_local(store.client):
        return None
    location = getattr(store.client._client, "location", None)
    return Path(location) if location and location != ":memory:" else None


class SavedBM25:
    """Where one collection's BM25 index for one tokenizer and (k1, b) is saved, and how it is read back."""

    def __init__(self, store: KitStore, folder: Path, tokenizer_name: str, k1: float, b: float) -> None:
        self.store, self.tokenizer_name, self.k1, self.b = store, tokenizer_name, k1, b
        self.folder = folder / FOLDER / store.collection / f"{tokenizer_name}-k1{k1:g}-b{b:g}"

    @classmethod
    def beside(
        cls, store: KitStore, tokenizer: Callable[[str], list[str]] = tokenize, k1: float = 1.5, b: float = 0.75
    ) -> SavedBM25 | None:
        """The saved index for this store and these parameters; None where none can be kept."""
        folder = local_folder(store)
        name = next((name for name, function in TOKENIZERS.items() if function is tokenizer), None)
        return cls(store, folder, name, k1, b) if folder is not None and name is not None else None

    def save(self, retriever: BM25Retriever) -> None:
        """Write a retriever fitted on every chunk under the collection's current version; older ones are removed."""
        version = self.store.points_version() or self.store.new_points_version()
        target = self.folder / version
        if (target / COUNT).exists():  # another kernel saved this version already
            return
        shutil.rmtree(target, ignore_errors=True)  # a folder of another layout, or left by a crash
        self.folder.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=self.folder, prefix=".saving-"))
        try:
            if retriever.size:
                retriever.index.save(staging, show_progress=False)
            rows = [{"id": chunk.node_id, **filterable(chunk.metadata)} for chunk in retriever.chunks]
            (staging / ROWS).write_text(json.dumps(rows), encoding="utf-8")
            (staging / COUNT).write_text(json.dumps(len(rows)), encoding="utf-8")
            staging.rename(target)  # whole or not at all: a reader never sees a half-written index
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)
            if not target.exists():
                raise
        for old in self.folder.iterdir():
            if old.name != version and not old.name.startswith("."):
                shutil.rmtree(old, ignore_errors=True)

    def current(self) -> Path | None:
        """The saved index's folder if it still describes the collection (same version and point count), else None."""
        version = self.store.points_version()
        target = self.folder / version
        if not version or not (target / COUNT).exists():
            return None
        return target if json.loads((target / COUNT).read_text(encoding="utf-8")) == self.store.count() else None

    def load(self) -> SavedBM25Retriever | None:
        """The saved retriever if it still describes the collection, else None."""
        target = self.current()
        if target is None:
            return None
        rows = json.loads((target / ROWS).read_text(encoding="utf-8"))
        index = bm25s.BM25.load(target, mmap=True, show_progress=False) if rows else None
        return SavedBM25Retriever(self.store, index, rows, TOKENIZERS[self.tokenizer_name], self.k1, self.b)


class SavedBM25Retriever(BM25Retriever):
    """BM25 from a saved index and payloads, the hits read from Qdrant by id (every chunk only if asked for)."""

    def __init__(
        self, store: KitStore, index: bm25s.BM25 | None, rows: Sequence[dict[str, Any]],
        tokenizer: Callable[[str], list[str]], k1: float, b: float,
    ) -> None:  # fmt: skip
        self.store, self.index, self.saved_rows = store, index, list(rows)
        self.tokenizer, self.k1, self.b = tokenizer, k1, b
        self._remembered: OrderedDict[tuple[Callable[..., Any], tuple[str, ...]], np.ndarray] = OrderedDict()

    @property
    def size(self) -> int:
        return len(self.saved_rows)

    @property
    def chunks(self) -> list[Hit]:  # type: ignore[override]
        """Every chunk, in index order (read from the store on first use)."""
        return self._stored[0]

    @property
    def documents(self) -> list[list[str]]:  # type: ignore[override]
        """Every chunk's tokens, in index order (what a student's bm25 function scores; read on first use)."""
        return self._stored[1]

    @cached_property
    def _stored(self) -> tuple[list[Hit], list[list[str]]]:
        """Every chunk and its tokens, in index order, read from the store."""
        chunks, texts = stored_chunks(self.store)
        row_of = {chunk.node_id: i for i, chunk in enumerate(chunks)}
        if any(row["id"] not in row_of for row in self.saved_rows):
            raise StoreError(
                f"the collection {self.store.collection!r} changed since this kernel loaded its BM25 index: build the "
                "retriever again (run the cell that makes it) to read the new chunks"
            )
        order = [row_of[row["id"]] for row in self.saved_rows]
        return [chunks[i] for i in order], [self.tokenizer(texts[i]) for i in order]

    def matching(self, filters: Filters) -> list[bool]:
        return [matches(row, filters) for row in self.saved_rows]

    def rows(self, rows: Sequence[int]) -> list[Hit | None]:
        if "_stored" in self.__dict__:  # the chunks were read already
            return [self.chunks[i] for i in rows]
        ids = [self.saved_rows[i]["id"] for i in rows]
        found = {str(hit.node_id): hit for hit in self.store.chunks_by_id(ids)}
        return [found.get(point_id) for point_id in ids]  # None: removed by another kernel since this one loaded


def bm25_for_store(
    store: KitStore, tokenizer: Callable[[str], list[str]] = tokenize, k1: float = 1.5, b: float = 0.75
) -> BM25Retriever:
    """BM25 over every chunk of the store: the saved index while current, else bm25s fitted (and saved)."""
    saved = SavedBM25.beside(store, tokenizer, k1, b)
    loaded = saved.load() if saved else None
    return loaded if loaded is not None else _fit_and_save(store, saved, tokenizer, k1, b)


def save_bm25_beside(store: KitStore, tokenizer: Callable[[str], list[str]] = tokenize) -> bool:
    """After an ingest: fit and save the BM25 index unless a current one is saved (False where none can be kept)."""
    saved = SavedBM25.beside(store, tokenizer)
    if saved is None:
        return False
    if saved.current() is None:  # a re-run that wrote nothing keeps the saved index, unread
        _fit_and_save(store, saved, tokenizer)
    return True


def _fit_and_save(
    store: KitStore, saved: SavedBM25 | None, tokenizer: Callable[[str], list[str]], k1: float = 1.5, b: float = 0.75
) -> BM25Retriever:
    """bm25s fitted on every chunk read from the store, then saved (a failed save: one warning, the fit is kept)."""
    retriever = BM25Retriever.from_store(store, tokenizer=tokenizer, k1=k1, b=b)
    if saved:
        try:
            saved.save(retriever)
        except (OSError, StoreError) as error:  # a read-only folder, or another process writing: next time
            warnings.warn(f"the BM25 index was not saved beside the collection ({error}); it is fitted again "
                          "at the next start", stacklevel=3)  # fmt: skip
    return retriever
