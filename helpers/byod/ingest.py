"""Index any folder of documents with the kit's own pipeline, in a collection of its own.

What it does: `ingest_folder(path)` builds a copy of the settings whose Qdrant collection is named after
the folder (and, for the embedded store, whose Qdrant folder sits apart from the course index, so notebook
09's app can stay open), then runs exactly `RAGPipeline.ingest` on it: the same parsers, chunker, embedder
and idempotent upsert. Point ids come from source + chunk text, so running it again writes nothing.
Past 20,000 chunks in the embedded local-mode store it warns, naming the in-process engine and the server.
What it leaves out: deleting the points of files removed from the folder (drop the collection to start
afresh: `helpers.store.drop_collection(name, settings)`), and watching the folder for changes.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from helpers.config import Settings, get_settings
from helpers.corpus.questions import ByodError
from helpers.pipeline import IngestReport, RAGPipeline
from helpers.store import class_collection
from helpers.store.client import COURSE_COLLECTION  # the default name, kept for the course corpus

LOCAL_MODE_LIMIT = 10_000  # points past which qdrant-edge starts, searches and holds a folder better (decisions)


def store_advice(points: int, settings: Settings) -> str:
    """What to switch to when a folder outgrows the embedded local-mode store ("" while it does not)."""
    if points <= LOCAL_MODE_LIMIT or settings.qdrant_url or settings.store_backend != "local":
        return ""
    return (
        f"{points:,} chunks in the embedded local-mode store: it searches by brute force in Python and holds every "
        "point in this process, so at this size it starts, searches and fits in memory several times worse than "
        "Qdrant's own engine (docs/decisions.md). Keep it in-process with that engine (KIT_STORE_BACKEND=edge) or "
        "use a server (QDRANT_URL), then ingest again."
    )


def collection_name(folder: str | Path) -> str:
    """A Qdrant-safe collection name from the folder's name: "My Notes (2026)" -> "my_notes_2026"."""
    name = re.sub(r"[^a-z0-9]+", "_", Path(folder).resolve().name.lower()).strip("_") or "documents"
    return f"{name}_folder" if name == COURSE_COLLECTION else name[:60]


def folder_settings(folder: str | Path, settings: Settings | None = None) -> Settings:
    """The settings for one folder: its own collection, its own embedded Qdrant folder, no course synonyms."""
    settings = settings or get_settings()
    name = collection_name(folder)
    name = f"{name}_folder" if name == settings.collection else name  # a folder called "alice" beside KIT_COLLECTION
    return settings.replace(
        corpus_dir=Path(folder).resolve(),
        collection=class_collection(name, settings.store),  # "alice__notes" on a class's shared server
        data_dir=settings.data_dir / "byod",  # unused with a Qdrant server (QDRANT_URL): only the name matters
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
        return self.pipeline.settings.collection

    def ask(self, question: str, **options: Any) -> Any:
        """`RAGPipeline.ask` on this folder: a grounded answer with numbered citations."""
        return self.pipeline.ask(question, **options)

    def close(self) -> None:
        """Release the model and the store (the embedded store admits one process at a time)."""
        self.pipeline.close()

    def __str__(self) -> str:
        return f"{self.folder} → collection {self.collection!r}: {self.report}"


def ingest_folder(path: str | Path, settings: Settings | None = None, progress: bool = True) -> FolderIndex:
    """Parse, chunk, embed and store every file under `path` in the folder's own collection.

    Unknown or unreadable files are skipped and listed in `report.skipped`; a re-run writes no duplicates.
    """
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
    """The real-document set's pipeline (its own collection; warm: seconds) or None, and a sentence saying which.

    Indexing it the first time embeds ~6,000 chunks (minutes): done only when `index_if_missing` (the full
    profile); otherwise an empty collection means "skip, and say how to build it".
    """
    from helpers.corpus.realworld import realworld_available, realworld_docs_dir

    folder = realworld_docs_dir(settings)
    if not realworld_available(settings):
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
