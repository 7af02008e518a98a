"""`KitStore`: one Qdrant collection of embedded chunks, written idempotently, searched with filters.

Point ids come from content, so `upsert_nodes` writes only new chunks (or those whose filterable payload changed),
then removes the chunks of the same documents that are gone: a re-run writes nothing, an interrupted run resumes.
What it leaves out: the queries that use the sparse vectors and fusion (see `helpers.retrieval`).
"""

from __future__ import annotations

import uuid
import warnings
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from llama_index.core import VectorStoreIndex
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.schema import BaseNode, MetadataMode
from llama_index.core.vector_stores.types import MetadataFilters, VectorStoreQuery
from llama_index.vector_stores.qdrant import QdrantVectorStore
from qdrant_client import QdrantClient, models

from helpers.store.client import StoreError, enable_fast_local_writes, is_local, scroll_all
from helpers.store.keywords import SPARSE_PARAMS, SPARSE_VECTOR, Keywords, KeywordVectors, drifted
from helpers.store.payload_filters import FILTER_FIELDS, create_payload_indexes, filterable, filters_from
from helpers.types import Hit

FACET_LIMIT = 10_000  # distinct values asked of Qdrant for a filter dropdown
EMBEDDER = "kit_embedder"  # the collection metadata key naming the model its dense vectors came from
VERSION = "kit_points_version"  # the collection metadata key the kit changes whenever it writes or removes points

SOURCES_PER_FILTER = 1000  # source files named in one filter when reading their points
WRITE_BATCH = 256  # points per write: an interruption loses at most one batch, and the re-run redoes it


class KitStore:
    """One Qdrant collection of course chunks."""

    def __init__(
        self, client: QdrantClient, collection: str, dimension: int, keywords: Keywords | None = None,
        embedder: str = "",
    ) -> None:  # fmt: skip
        self.client = client
        self.collection = collection
        self.dimension = dimension
        self.embedder = embedder  # the embedder's model id ("" : not checked), recorded with the collection
        self.vectors_from = ""  # the embedder the collection records, when it is another one (see `check_vectors`)
        self.keywords = keywords  # None: dense vectors only (a collection that keeps BM25 vectors is read as usual)
        self.bm25 = KeywordVectors(client, collection, keywords)
        self._ensure_collection()
        self._open_vector_store()

    def _open_vector_store(self) -> None:
        """LlamaIndex's store over the collection; in hybrid mode with the kit's BM25 encoder when it keeps them."""
        hybrid: dict[str, Any] = {}
        if self.keywords is not None and self.keeps_keywords:
            hybrid = {
                "enable_hybrid": True,
                "sparse_vector_name": SPARSE_VECTOR,
                "sparse_doc_fn": self.bm25.document_vectors,
                "sparse_query_fn": self.bm25.query_vectors,  # given, so LlamaIndex never loads fastembed
            }
        self.vector_store = QdrantVectorStore(
            collection_name=self.collection, client=self.client, batch_size=WRITE_BATCH, **hybrid
        )

    @property
    def is_local(self) -> bool:
        """Whether Qdrant runs embedded in this process (no payload indexes there)."""
        return is_local(self.client)

    def _ensure_collection(self) -> None:
        """Create the collection (cosine, model dimension), or check that an existing one matches."""
        if self.client.collection_exists(self.collection):
            config = self.client.get_collection(self.collection).config  # one read: vector size and metadata
            params = config.params.vectors
            size = params.size if isinstance(params, models.VectorParams) else None
            if size is not None and size != self.dimension:
                raise StoreError(
                    f"Collection {self.collection!r} holds {size}-d vectors but the embedder makes "
                    f"{self.dimension}-d ones. Use another collection name (KIT_COLLECTION) or delete it "
                    "with helpers.store.drop_collection()."
                )
            recorded = str((config.metadata or {}).get(EMBEDDER, ""))
            self.vectors_from = recorded if self.embedder and recorded and recorded != self.embedder else ""
        else:
            sparse = {"sparse_vectors_config": {SPARSE_VECTOR: SPARSE_PARAMS}} if self.keywords else {}
            self.client.create_collection(
                self.collection,
                vectors_config=models.VectorParams(size=self.dimension, distance=models.Distance.COSINE),
                **sparse,
            )
            if not self.is_local:
                create_payload_indexes(self.client, self.collection)
            self._record_embedder()
        enable_fast_local_writes(self.client, self.collection)

    def _record_embedder(self) -> None:
        """Write the embedder's model id into the collection's metadata (beside the BM25 record)."""
        if self.embedder:
            self.client.update_collection(self.collection, metadata={EMBEDDER: self.embedder})
            self.vectors_from = ""

    def _recorded(self, key: str) -> str:
        """One value of the collection's metadata ("" when absent)."""
        return str((self.client.get_collection(self.collection).config.metadata or {}).get(key, ""))

    def check_vectors(self) -> None:
        """Raise a clear error when the collection's vectors came from another embedder than the configured one."""
        if self.vectors_from:
            raise StoreError(
                f"Collection {self.collection!r} holds vectors of the embedder {self.vectors_from!r}, but the "
                f"configured one is {self.embedder!r}: the two do not compare. Run pipeline.ingest() to embed every "
                f"chunk again with {self.embedder!r}, or configure {self.vectors_from!r} back."
            )

    def points_version(self) -> str:
        """A token the kit changes whenever it writes or removes points ("": none recorded yet), so what was
        computed from the points (a saved BM25 index) can tell whether it still describes them."""
        return self._recorded(VERSION)

    def new_points_version(self) -> str:
        """Record a fresh `points_version` and return it."""
        version = uuid.uuid4().hex
        self.client.update_collection(self.collection, metadata={VERSION: version})
        return version

    def count(self) -> int:
        """Number of points in the collection."""
        return self.client.count(self.collection, exact=True).count

    def clear(self) -> None:
        """Delete every point (the collection is dropped and created again, empty)."""
        self.client.delete_collection(self.collection)
        self.bm25.avgdl = None  # the mean length is the new collection's, recorded when its first chunks arrive
        self._ensure_collection()

    def _scroll(self, **options: Any) -> Iterator[models.Record]:
        """Every point of the collection, page by page."""
        return scroll_all(self.client, self.collection, 1000, **options)

    def ids_by_source(self) -> dict[str, set[str]]:
        """Point ids grouped by the source file they came from (one pass over the collection)."""
        ids: dict[str, set[str]] = {}
        for point in self._scroll(with_payload=["source"], with_vectors=False):
            ids.setdefault(str((point.payload or {}).get("source")), set()).add(str(point.id))
        return ids

    def filter_payloads(self, sources: Sequence[str] | None = None) -> dict[str, dict[str, Any]]:
        """The filterable payload (source, doc_type, term …) by point id of every point, or of the points of some
        source files only (asked of Qdrant with a filter, `SOURCES_PER_FILTER` files at a time)."""
        if sources is None:
            points = self._scroll(with_payload=list(FILTER_FIELDS), with_vectors=False)
            return {str(point.id): dict(point.payload or {}) for point in points}
        found: dict[str, dict[str, Any]] = {}
        names = sorted(set(sources))
        for start in range(0, len(names), SOURCES_PER_FILTER):
            match = models.MatchAny(any=names[start : start + SOURCES_PER_FILTER])
            where = models.Filter(must=[models.FieldCondition(key="source", match=match)])
            for point in self._scroll(scroll_filter=where, with_payload=list(FILTER_FIELDS), with_vectors=False):
                found[str(point.id)] = dict(point.payload or {})
        return found

    def distinct_values(self, key: str, where: models.Filter | None = None) -> list[str]:
        """The distinct values of one payload field (over the points `where` matches), sorted, each element of a
        list field apart: from Qdrant's facet API, else one pass over that field alone."""
        try:
            hits = self.client.facet(self.collection, key=key, facet_filter=where, limit=FACET_LIMIT).hits
        except Exception:  # a backend without facets (qdrant-edge), or a server field without a keyword index
            hits = None
        if hits is not None and len(hits) < FACET_LIMIT:
            found = {str(hit.value) for hit in hits}
        else:  # no facets, or maybe more values than one facet call returns
            found = set()
            for point in self._scroll(scroll_filter=where, with_payload=[key], with_vectors=False):
                value = (point.payload or {}).get(key)
                found.update(str(v) for v in (value if isinstance(value, list | tuple) else [value]))
        return sorted(found - {"", "None"})

    def chunks_of_source(self, source: str) -> list[Hit]:
        """Every chunk of one source file, asked of Qdrant with a filter (nothing else read into this process)."""
        match = models.Filter(must=[models.FieldCondition(key="source", match=models.MatchValue(value=source))])
        points = list(self._scroll(scroll_filter=match, with_payload=True, with_vectors=False))
        nodes = self.vector_store.parse_to_query_result(points).nodes or []
        return [Hit(node.node_id, node.get_content(), dict(node.metadata)) for node in nodes]

    def chunks_by_id(self, ids: Sequence[str]) -> list[Hit]:
        """The chunks with these point ids (those that exist), asked of Qdrant by id."""
        points = self.client.retrieve(self.collection, ids=list(ids), with_payload=True, with_vectors=False)
        nodes = self.vector_store.parse_to_query_result(points).nodes or []
        return [Hit(node.node_id, node.get_content(), dict(node.metadata)) for node in nodes]

    def ids_of_source(self, source: str) -> set[str]:
        """Ids of the points that came from one source file (asked of Qdrant with a filter)."""
        return set(self.filter_payloads([source]))

    def upsert_nodes(self, nodes: Sequence[BaseNode], batch_size: int = WRITE_BATCH) -> dict[str, int]:
        """Write embedded nodes not stored yet, in batches; then drop stale chunks of the same sources."""
        if any(node.embedding is None for node in nodes):
            raise StoreError("every node needs its embedding before it is stored (node.embedding is None)")
        if self.vectors_from:  # another embedder's vectors: start the collection again, then write every chunk
            warnings.warn(
                f"Collection {self.collection!r} held vectors of the embedder {self.vectors_from!r}; every chunk "
                f"is written again with {self.embedder!r}.",
                stacklevel=2,
            )
            self.clear()
        elif self.embedder and not self._recorded(EMBEDDER):
            self._record_embedder()  # a collection made before embedders were recorded: this ingest's embedder
        # 1. which ids of these sources are stored already, and which stored ones are gone from the new chunks: a
        #    server or qdrant-edge is asked for these sources' points only; local mode's points are in this process,
        #    where one pass over all of them is cheaper than its Python filter
        sources = {node.metadata.get("source") for node in nodes}
        by_source = not self.is_local and all(isinstance(source, str) for source in sources)
        payloads = self.filter_payloads(sorted(sources) if by_source else None)
        stored: dict[str, set[str]] = {}
        for point_id, payload in payloads.items():
            stored.setdefault(str(payload.get("source")), set()).add(point_id)
        new_ids: dict[str, set[str]] = {}
        for node in nodes:
            new_ids.setdefault(str(node.metadata.get("source")), set()).add(node.node_id)
        present = set().union(*(stored.get(source, set()) & ids for source, ids in new_ids.items()))
        stale = [i for source, ids in new_ids.items() for i in stored.get(source, set()) - ids]
        # 2. write the missing ones, and the stored ones whose filterable payload changed, batch by batch
        #    (each batch is on disk before the next starts)
        current = {
            node.node_id
            for node in nodes
            if node.node_id in present and filterable(node.metadata) == payloads[node.node_id]
        }
        to_write = [node for node in nodes if node.node_id not in current]
        if self.keywords is not None:  # every stored chunk gets its BM25 vector first; the new ones join the totals
            new = [node for node in to_write if node.node_id not in present]
            self.bm25.prepare([node.get_content(metadata_mode=MetadataMode.EMBED) for node in new], stale)
            if not self.vector_store.enable_hybrid:  # the collection has just been given its BM25 vectors
                self._open_vector_store()
        for start in range(0, len(to_write), batch_size):
            self.vector_store.add(list(to_write[start : start + batch_size]))
        # 3. only now remove the old chunks of changed documents
        if stale:
            self.client.delete(self.collection, points_selector=models.PointIdsList(points=stale))
        if to_write or stale:
            self.new_points_version()  # what was computed from the old points no longer describes them
        if self.keywords is not None and drifted(self.bm25.record()):
            self.add_keywords(refresh=True)  # the chunks' mean length moved: weigh every vector with the new one
        return {"written": len(to_write), "unchanged": len(current), "removed_stale": len(stale)}

    def remove_sources(self, sources: Sequence[str], batch_size: int = WRITE_BATCH) -> int:
        """Delete every point of these source files (files gone from their folder), a batch of ids at a time; how
        many were removed (the BM25 totals stop counting them, the points version changes)."""
        ids = sorted(self.filter_payloads(sources)) if sources else []
        if not ids:
            return 0
        if self.keywords is not None:  # the totals no longer count the chunks about to go (as upsert does for stale)
            self.bm25.prepare([], ids)
        for start in range(0, len(ids), batch_size):
            selector = models.PointIdsList(points=list(ids[start : start + batch_size]))
            self.client.delete(self.collection, points_selector=selector)
        self.new_points_version()  # what was computed from the old points no longer describes them
        if self.keywords is not None and drifted(self.bm25.record()):
            self.add_keywords(refresh=True)  # the chunks' mean length moved: weigh every vector with the new one
        return len(ids)

    # -- BM25 vectors (keywords.py) ---------------------------------------------------------------------------
    @property
    def keeps_keywords(self) -> bool:
        """Whether the collection has the sparse BM25 vector (made with `keywords`, or added by `add_keywords`)."""
        return self.bm25.kept()

    def keywords_problem(self, tokenizer: str) -> str | None:
        """Why Qdrant cannot rank this collection by BM25 with `tokenizer` (None: it can, every chunk has a vector)."""
        return self.bm25.problem(tokenizer)

    def add_keywords(self, refresh: bool = False) -> int:
        """Give every stored chunk without a BM25 vector its vector (every chunk, with `refresh`), in place (no point
        is added, duplicated or dropped); how many were written."""
        written = self.bm25.add(refresh)
        self._open_vector_store()  # the collection keeps them now: later writes carry them too
        return written

    def qdrant_filter(self, filters: MetadataFilters | Mapping[str, object] | None) -> models.Filter | None:
        """The kit's filter dict (or `MetadataFilters`) as a qdrant `Filter`, converted as `search` converts it."""
        if filters is not None and not isinstance(filters, MetadataFilters):
            filters = filters_from(filters)
        if not filters:
            return None
        return self.vector_store._build_query_filter(VectorStoreQuery(filters=filters))  # LlamaIndex's conversion

    def hits(self, points: Sequence[models.ScoredPoint], stage: str) -> list[Hit]:
        """Qdrant's scored points as hits, each score kept under `stage` ("dense", "sparse", "fused")."""
        nodes = self.vector_store.parse_to_query_result(list(points)).nodes or []
        return [
            Hit(node.node_id, node.get_content(), dict(node.metadata), {stage: float(point.score)})
            for node, point in zip(nodes, points, strict=True)
        ]

    def search_ranked(
        self, vector: Sequence[float], k: int, deep: int, filters: MetadataFilters | Mapping[str, object] | None = None
    ) -> list[Hit]:
        """`search` ranked `deep`: the top k in full, the rest as id and score only (one query, payloads of k)."""
        self.check_vectors()
        query, flt = list(map(float, vector)), self.qdrant_filter(filters)
        found = self.client.query_points(self.collection, query=query, limit=deep, query_filter=flt, with_payload=False)
        top = found.points[:k]
        payloads = {str(r.id): r.payload for r in self.client.retrieve(self.collection, [p.id for p in top])}
        full = [models.ScoredPoint(id=p.id, version=p.version, score=p.score, payload=payloads[str(p.id)]) for p in top]
        return self.hits(full, "dense") + self.scores_only(found.points[k:], "dense")

    @staticmethod
    def scores_only(points: Sequence[models.ScoredPoint], stage: str) -> list[Hit]:
        """Points fetched without payload as hits holding only an id and a score (what rescoring reads)."""
        return [Hit(str(p.id), "", {}, {stage: float(p.score)}) for p in points]

    def nodes(self, filters: MetadataFilters | Mapping[str, object] | None = None) -> list[BaseNode]:
        """Every stored chunk (passing `filters`) as a LlamaIndex node, with its embedding (for numpy search)."""
        points = list(self._scroll(scroll_filter=self.qdrant_filter(filters), with_payload=True, with_vectors=True))
        return list(self.vector_store.parse_to_query_result(points).nodes)

    def search(
        self, vector: Sequence[float], k: int, filters: MetadataFilters | Mapping[str, object] | None = None
    ) -> list[Hit]:
        """Top-k chunks by cosine similarity, optionally filtered on payload metadata (a dict works too)."""
        self.check_vectors()
        if filters is not None and not isinstance(filters, MetadataFilters):
            filters = filters_from(filters)
        query = VectorStoreQuery(query_embedding=list(map(float, vector)), similarity_top_k=k, filters=filters)
        result = self.vector_store.query(query)
        scored = zip(result.nodes or [], result.similarities or [], strict=False)
        return [Hit(node.node_id, node.get_content(), dict(node.metadata), {"dense": float(s)}) for node, s in scored]

    def index(self, embed_model: BaseEmbedding) -> VectorStoreIndex:
        """The collection as a LlamaIndex `VectorStoreIndex` (for `.as_retriever()` / `.as_query_engine()`)."""
        return VectorStoreIndex.from_vector_store(self.vector_store, embed_model=embed_model)
