"""The vector store: Qdrant through qdrant-client, wrapped by LlamaIndex's `QdrantVectorStore`.

Embedded local mode (a folder under the kit's data directory) by default; a Qdrant server or cluster
when `QDRANT_URL` is set, through the very same code. Point ids are deterministic (see
`helpers.chunking.node_id`), and `upsert_nodes` replaces a source's old chunks, so re-ingestion never
duplicates or keeps stale points.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from llama_index.core.schema import BaseNode
from llama_index.core.vector_stores.types import MetadataFilters, VectorStoreQuery
from llama_index.vector_stores.qdrant import QdrantVectorStore
from qdrant_client import QdrantClient, models

from helpers.config import Settings, get_settings


class StoreError(RuntimeError):
    """The vector store cannot be used as asked; the message says what to do."""


@dataclass
class Hit:
    """One retrieved chunk, with its score from every stage that saw it."""

    node_id: str
    text: str
    metadata: dict[str, Any]
    scores: dict[str, float] = field(default_factory=dict)

    @property
    def score(self) -> float:
        """The score of the last stage (rerank > fused > dense/sparse)."""
        for stage in ("rerank", "fused", "dense", "sparse"):
            if stage in self.scores:
                return self.scores[stage]
        return 0.0

    @property
    def source(self) -> str:
        """The course file this chunk comes from."""
        return str(self.metadata.get("source", "?"))


def connect(settings: Settings | None = None) -> QdrantClient:
    """A qdrant-client: the server at `QDRANT_URL`, else the embedded folder."""
    settings = settings or get_settings()
    if settings.qdrant_url:
        client = QdrantClient(url=settings.qdrant_url, api_key=settings.qdrant_api_key or None, timeout=10)
        try:
            client.get_collections()
        except Exception as err:  # any transport error means the same to a student
            raise StoreError(
                f"Qdrant at {settings.qdrant_url} does not answer ({type(err).__name__}). Start the server, "
                "fix QDRANT_URL, or unset it to use the embedded store."
            ) from None
        return client
    path = settings.data_dir / "qdrant"
    path.mkdir(parents=True, exist_ok=True)
    try:
        return QdrantClient(path=str(path))
    except RuntimeError as err:
        if "already accessed" in str(err):
            raise StoreError(
                f"The embedded Qdrant folder {path} is open in another process (another notebook or the app). "
                "Shut down that kernel (Kernel > Shut Down Kernel) and run this cell again, or set QDRANT_URL "
                "to a Qdrant server, which many processes can share."
            ) from None
        raise


def _speed_up_local_writes(client: QdrantClient, collection: str) -> None:
    """Embedded mode commits one SQLite transaction per point; WAL mode makes each commit cheap."""
    local = getattr(client, "_client", None)
    storage = getattr(getattr(getattr(local, "collections", {}).get(collection), "storage", None), "storage", None)
    if isinstance(storage, sqlite3.Connection):
        storage.execute("PRAGMA journal_mode=WAL")
        storage.execute("PRAGMA synchronous=NORMAL")


class KitStore:
    """One Qdrant collection of course chunks."""

    def __init__(self, client: QdrantClient, collection: str, dimension: int) -> None:
        self.client = client
        self.collection = collection
        self.dimension = dimension
        self._ensure_collection()
        self.vector_store = QdrantVectorStore(collection_name=collection, client=client, batch_size=256)

    def _ensure_collection(self) -> None:
        """Create the collection (cosine, model dimension), or check that an existing one matches."""
        if self.client.collection_exists(self.collection):
            params = self.client.get_collection(self.collection).config.params.vectors
            size = params.size if isinstance(params, models.VectorParams) else None
            if size is not None and size != self.dimension:
                raise StoreError(
                    f"Collection {self.collection!r} holds {size}-d vectors but the embedder makes "
                    f"{self.dimension}-d ones. Use another collection name (KIT_COLLECTION) or delete it "
                    "with helpers.store.drop_collection()."
                )
        else:
            self.client.create_collection(
                self.collection,
                vectors_config=models.VectorParams(size=self.dimension, distance=models.Distance.COSINE),
            )
            if type(getattr(self.client, "_client", None)).__name__ != "QdrantLocal":  # indexes: server only
                for key in ("source", "doc_type"):
                    self.client.create_payload_index(self.collection, key, models.PayloadSchemaType.KEYWORD)
        _speed_up_local_writes(self.client, self.collection)

    def count(self) -> int:
        """Number of points in the collection."""
        return self.client.count(self.collection, exact=True).count

    def ids_of_source(self, source: str) -> set[str]:
        """Ids of the points that came from one source file."""
        ids: set[str] = set()
        offset = None
        condition = models.FieldCondition(key="source", match=models.MatchValue(value=source))
        while True:
            points, offset = self.client.scroll(
                self.collection,
                scroll_filter=models.Filter(must=[condition]),
                limit=1000,
                offset=offset,
                with_payload=False,
            )
            ids.update(str(p.id) for p in points)
            if offset is None:
                return ids

    def upsert_nodes(self, nodes: Sequence[BaseNode]) -> dict[str, int]:
        """Write embedded nodes not stored yet; drop stale chunks of the same sources. Returns counts."""
        new_ids_by_source: dict[str, set[str]] = {}
        for node in nodes:
            new_ids_by_source.setdefault(str(node.metadata.get("source")), set()).add(node.node_id)
        present: set[str] = set()
        stale: list[str] = []
        for source, new_ids in new_ids_by_source.items():
            existing = self.ids_of_source(source)
            present |= existing & new_ids
            stale.extend(existing - new_ids)
        to_write = [node for node in nodes if node.node_id not in present]
        if stale:
            self.client.delete(self.collection, points_selector=models.PointIdsList(points=stale))
        if to_write:
            self.vector_store.add(to_write)
        return {"written": len(to_write), "unchanged": len(present), "removed_stale": len(stale)}

    def search(self, vector: Sequence[float], k: int, filters: MetadataFilters | None = None) -> list[Hit]:
        """Top-k chunks by cosine similarity, optionally filtered on payload metadata."""
        query = VectorStoreQuery(query_embedding=list(map(float, vector)), similarity_top_k=k, filters=filters)
        result = self.vector_store.query(query)
        hits = []
        for node, score in zip(result.nodes or [], result.similarities or [], strict=False):
            hits.append(Hit(node.node_id, node.get_content(), dict(node.metadata), {"dense": float(score)}))
        return hits


def drop_collection(name: str, settings: Settings | None = None) -> None:
    """Delete a collection (to rebuild it from scratch)."""
    client = connect(settings)
    if client.collection_exists(name):
        client.delete_collection(name)
