"""Index any folder of documents with the kit's own pipeline, in a collection of its own, named from the folder's
name and a hash of its path (`collection_name`); a re-run writes nothing and drops the chunks of removed files.
What it leaves out: watching the folder for changes (ingest it again), and following a moved or renamed folder.
"""

from __future__ import annotations

import hashlib
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from helpers.config import REPO_ROOT, Settings, get_settings
from helpers.corpus.questions import ByodError
from helpers.pipeline import IngestReport, RAGPipeline
from helpers.store import class_collection
from helpers.store.client import COURSE_COLLECTION  # the default name, kept for the course corpus

LOCAL_MODE_LIMIT = 10_000  # points past which qdrant-edge starts, searches and holds a folder better (decisions)
HASH_CHARS = 8  # hex digits of the path's hash in a folder's collection name: 4 billion values, never typed
NAME_CHARS = 46  # characters of the folder's own name kept in it


def store_advice(points: int, settings: Settings) -> str:
    """What to switch to when a folder outgrows the embedded local-mode store ("" while it does not)."""
    if points <= LOCAL_MODE_LIMIT or settings.store.qdrant_url or settings.store.store_backend != "local":
        return ""
    return (
        f"{points:,} chunks in the embedded local-mode store: it searches by brute force in Python and holds every "
        "point in this process, so at this size it starts, searches and fits in memory several times worse than "
        "Qdrant's own engine (docs/decisions.md). Keep it in-process with that engine (KIT_STORE_BACKEND=edge) or "
        "use a server (QDRANT_URL), then ingest again."
    )


def folder_key(folder: str | Path) -> str:
    """What a folder's collection name is hashed from: its path within the repository when inside it, else absolute."""
    path = Path(folder).expanduser().resolve()
    try:
        return path.relative_to(REPO_ROOT).as_posix()
    except ValueError:
        return path.as_posix()


def collection_name(folder: str | Path) -> str:
    """A Qdrant-safe collection name from the folder's name and a short hash of its whole path:
    "/home/me/My Notes (2026)" -> "my_notes_2026_" + 8 hex digits."""
    name = re.sub(r"[^a-z0-9]+", "_", Path(folder).expanduser().resolve().name.lower()).strip("_") or "documents"
    digest = hashlib.sha256(folder_key(folder).encode("utf-8")).hexdigest()[:HASH_CHARS]
    name = f"{name[:NAME_CHARS].rstrip('_')}_{digest}"  # at most 55 characters: room for "_folder" below 63
    return f"{name}_folder" if name == COURSE_COLLECTION else name  # never the course collection's name


def folder_settings(folder: str | Path, settings: Settings | None = None) -> Settings:
    """The settings for one folder: its own collection, its own embedded Qdrant folder, no course synonyms."""
    settings = settings or get_settings()
    name = collection_name(folder)
    collection = class_collection(name, settings.store)  # "alice__notes_…" on a class's shared server
    if collection == settings.store.collection:  # KIT_COLLECTION happens to be this folder's name: never write into it
        collection = class_collection(f"{name}_folder", settings.store)
    return settings.replace(
        corpus_dir=Path(folder).resolve(),
        collection=collection,
        data_dir=settings.paths.data_dir / "byod",  # unused with a Qdrant server (QDRANT_URL): only the name matters
        query_expansion=False,  # course_data/synonyms.csv knows course words, not yours
    )


@dataclass
class FolderIndex:
    """A folder indexed in its own collection: the pipeline over it and what the ingestion did."""

    folder: Path
    pipeline: RAGPipeline
    report: IngestReport

    @property
    def collection(self) -> str:
        """The Qdrant collection holding this folder's chunks."""
        return self.pipeline.settings.store.collection

    def ask(self, question: str, **options: Any) -> Any:
        """`RAGPipeline.ask` on this folder: a grounded answer with numbered citations."""
        return self.pipeline.ask(question, **options)

    def close(self) -> None:
        """Release the model and the store (the embedded store admits one process at a time)."""
        self.pipeline.close()

    def __str__(self) -> str:
        return f"{self.folder} → collection {self.collection!r}: {self.report}"


def ingest_folder(path: str | Path, settings: Settings | None = None, progress: bool = True) -> FolderIndex:
    """Parse, chunk, embed and store every file under `path` in its own collection (skipped: `report.skipped`)."""
    folder = Path(path).expanduser()
    if not folder.is_dir():
        raise ByodError(f"{folder} is not a folder (or it does not exist); give the folder of your documents")
    pipeline = RAGPipeline(folder_settings(folder, settings))
    try:
        report = pipeline.ingest(folder, progress=progress)
    except BaseException:
        pipeline.close()
        raise
    if report.documents == 0:
        pipeline.close()
        reasons = "; ".join(f"{name}: {why}" for name, why in report.skipped[:5]) or "the folder is empty"
        raise ByodError(f"no readable document under {folder} ({reasons})")
    advice = store_advice(report.points, pipeline.settings)
    if advice:
        warnings.warn(advice, stacklevel=2)
    return FolderIndex(folder.resolve(), pipeline, report)


def open_realworld(settings: Settings, index_if_missing: bool) -> tuple[RAGPipeline | None, str]:
    """The real-document set's pipeline or None, and a sentence why; an empty one is indexed if `index_if_missing`."""
    from helpers.corpus.pinned import REALWORLD

    folder = REALWORLD.docs_dir(settings)
    if not REALWORLD.available(settings):
        return None, f"the real-document set is not rebuilt under {folder} (course_data/realworld/README.md)"
    pipeline = RAGPipeline(folder_settings(folder, settings))
    if pipeline.store.count() == 0 and not index_if_missing:
        pipeline.close()
        return None, f"the real-document set is not indexed yet (minutes): helpers.byod.ingest_folder({str(folder)!r})"
    try:
        report = pipeline.ingest(folder, progress=False)
    except BaseException:
        pipeline.close()
        raise
    return pipeline, str(report)
