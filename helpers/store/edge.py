"""The embedded store on qdrant-edge (Qdrant's Rust engine in-process), behind the same `QdrantClient` API.

`EdgeLocal` stands where local mode stands inside a `QdrantClient` (as `SharedLocal` does): one `EdgeShard`
per collection in a subfolder, models converted both ways, exact search in Rust. An open shard locks its
write-ahead log, so the folder is leased: a process keeps it between calls until another writes `wanted`, then
its watcher lets it go between two calls once it has held it for `LEASE_MIN_S`; after `lock_wait_s` a waiter
gets `FolderBusy`. Sparse vectors (BM25, `keywords.py`) sit beside the unnamed dense one; prefetch + fusion
(RRF, DBSF) and query batches run in edge; collection metadata is kept in `kit_collection.json`.
What it leaves out: named dense vectors, recommend/discover/formula queries, HNSW, snapshots.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import portalocker
import qdrant_edge as qe
from qdrant_client.http import models

from helpers.store.shared import (
    HOLDER_FILE,
    LOCK_WAIT_S,
    POLL_S,
    FolderBusy,
    StoreError,
    _alive,
    busy_message,
    write_holder,
)

LEASE_POLL_S = 0.02  # how often a holder looks whether another process wants the folder
LEASE_MIN_S = 0.25  # a holder keeps the folder at least this long: a burst of calls costs one reopen, not many
WANTED_FILE, META_FILE = "wanted", "kit_collection.json"
NO_VECTOR = "_kit_none"  # a payload-only collection (vectors_config={}) still needs one vector slot in edge
DEFAULT_RRF_K = 2  # the k of a plain `FusionQuery(RRF)`, as Qdrant's server and local mode use
DISTANCES = {distance: getattr(qe.Distance, distance.name.title()) for distance in models.Distance}  # COSINE: Cosine
INDEXED = ("keyword", "text", "integer", "float", "bool", "uuid")  # the payload index kinds edge takes
SCHEMAS = {name: getattr(qe.PayloadSchemaType, name.title()) for name in INDEXED}


# -- qdrant-client models -> qdrant-edge types --------------------------------------------------------------------
def edge_id(point_id: Any) -> Any:
    """An id as edge takes it: ints stay, UUID strings become UUIDs."""
    return point_id if isinstance(point_id, int) else uuid.UUID(str(point_id))


def client_id(point_id: Any) -> int | str:
    """An id as qdrant-client's local mode returns it."""
    return point_id if isinstance(point_id, int) else str(point_id)


MATCHES = {  # qdrant-client's match model -> how edge's is made from it
    models.MatchValue: lambda m: qe.MatchValue(value=m.value),
    models.MatchAny: lambda m: qe.MatchAny(any=list(m.any)),
    models.MatchExcept: lambda m: qe.MatchExcept(except_=list(m.except_)),
    models.MatchText: lambda m: qe.MatchText(text=m.text),
    models.MatchPhrase: lambda m: qe.MatchPhrase(phrase=m.phrase),
}


def edge_match(match: Any) -> Any:
    """A `Match*` model as edge's match."""
    for model, make in MATCHES.items():
        if isinstance(match, model):
            return make(match)
    raise StoreError(f"the edge store cannot filter with {type(match).__name__}")


def edge_condition(condition: Any) -> Any:
    """One condition of a filter (field, id, vector, empty, null, or a nested filter)."""
    if isinstance(condition, models.Filter):
        return edge_filter(condition)
    if isinstance(condition, models.HasVectorCondition):
        return qe.HasVectorCondition(vector=condition.has_vector)
    if isinstance(condition, models.HasIdCondition):
        return qe.HasIdCondition(point_ids={edge_id(i) for i in condition.has_id})
    if isinstance(condition, models.IsEmptyCondition):
        return qe.IsEmptyCondition(key=condition.is_empty.key)
    if isinstance(condition, models.IsNullCondition):
        return qe.IsNullCondition(key=condition.is_null.key)
    if isinstance(condition, models.FieldCondition):
        if condition.range is not None:
            r = condition.range
            return qe.FieldCondition(key=condition.key, range=qe.RangeFloat(gte=r.gte, gt=r.gt, lte=r.lte, lt=r.lt))
        return qe.FieldCondition(key=condition.key, match=edge_match(condition.match))
    raise StoreError(f"the edge store cannot filter with {type(condition).__name__}")


def edge_filter(flt: models.Filter | None) -> Any:
    """A qdrant-client `Filter` (must / should / must_not, nested) as edge's."""
    if flt is None:
        return None

    def part(conditions: Any) -> list[Any] | None:
        if conditions is None:
            return None
        return [edge_condition(c) for c in (conditions if isinstance(conditions, list) else [conditions])]

    return qe.Filter(must=part(flt.must), should=part(flt.should), must_not=part(flt.must_not))


def edge_with_payload(with_payload: Any) -> Any:
    if isinstance(with_payload, models.PayloadSelectorInclude):
        return list(with_payload.include)
    return with_payload


def client_vector(vector: Any) -> Any:
    if isinstance(vector, dict):
        named = {k: client_sparse(v) for k, v in vector.items() if k != NO_VECTOR}
        return named or None
    return vector


def client_sparse(vector: Any) -> Any:
    """Edge's sparse vector as qdrant-client's (a dense one stays a list)."""
    if isinstance(vector, qe.SparseVector):
        return models.SparseVector(indices=list(vector.indices), values=list(vector.values))
    return vector


def edge_vector(vector: Any) -> Any:
    """One named vector as edge takes it: a sparse vector, or a dense list of floats."""
    if isinstance(vector, models.SparseVector):
        return qe.SparseVector(list(vector.indices), list(map(float, vector.values)))
    return list(map(float, vector))


def edge_sparse_params(params: models.SparseVectorParams | models.SparseVectorConfig) -> Any:
    idf = params.modifier == models.Modifier.IDF
    return qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf if idf else None)


def edge_query(query: Any, using: str | None) -> Any:
    """A nearest-vector query (dense, sparse) or a fusion of prefetches, as edge's."""
    if isinstance(query, models.NearestQuery):
        query = query.nearest
    if query is None:
        return None
    if isinstance(query, models.FusionQuery):
        if query.fusion == models.Fusion.DBSF:
            return qe.Fusion.Dbsf()
        return qe.Fusion.Rrf(k=DEFAULT_RRF_K)
    if isinstance(query, models.RrfQuery):
        return qe.Fusion.Rrf(k=query.rrf.k or DEFAULT_RRF_K, weights=query.rrf.weights)
    if hasattr(query, "tolist"):
        query = query.tolist()
    if not isinstance(query, list | models.SparseVector):
        raise StoreError("the edge store answers nearest-vector and fusion queries only")
    return qe.Query.Nearest(edge_vector(query), using=using or None)


def edge_prefetch(prefetch: models.Prefetch) -> Any:
    """A `Prefetch` (nested ones too) as edge's."""
    inner = prefetch.prefetch if isinstance(prefetch.prefetch, list) else [prefetch.prefetch] * bool(prefetch.prefetch)
    return qe.Prefetch(
        limit=prefetch.limit or 10,
        query=edge_query(prefetch.query, prefetch.using),
        prefetches=[edge_prefetch(p) for p in inner] or None,
        filter=edge_filter(prefetch.filter),
        score_threshold=prefetch.score_threshold,
    )


def record(point: Any) -> models.Record:
    return models.Record(id=client_id(point.id), payload=point.payload, vector=client_vector(point.vector))


def scored(point: Any) -> models.ScoredPoint:
    return models.ScoredPoint(
        id=client_id(point.id),
        version=point.version,
        score=point.score,
        payload=point.payload,
        vector=client_vector(point.vector),
    )


def updated() -> models.UpdateResult:
    return models.UpdateResult(operation_id=0, status=models.UpdateStatus.COMPLETED)


# -- the engine ---------------------------------------------------------------------------------------------------
class EdgeLocal:
    """qdrant-edge shards in one folder, one per collection, leased between the processes that use it."""

    def __init__(self, location: str, lock_wait_s: float | None = None) -> None:
        self.location = Path(location)
        self.location.mkdir(parents=True, exist_ok=True)
        self._lock_wait_s = LOCK_WAIT_S if lock_wait_s is None else lock_wait_s
        self._threads = threading.RLock()
        self._depth, self._handle, self._closed, self._since = 0, None, False, 0.0
        self._token = f"{os.getpid()}:{id(self)}"  # who asks: two clients in one kernel take turns like two kernels
        self._shards: dict[str, Any] = {}
        self._watcher = threading.Thread(target=self._watch, name="kit-edge-lease", daemon=True)
        self._watcher.start()
        atexit.register(self.close)

    # -- the lease ---------------------------------------------------------------------------------------------
    @contextmanager
    def _locked(self) -> Iterator[None]:
        """Hold the folder (and its open shards) for the length of a call, taking it first if another has it."""
        with self._threads:
            if self._closed:
                raise StoreError("this edge store was closed; connect() again")
            if self._handle is None:
                self._acquire()
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
                if not self._depth and self._should_yield():
                    self._release()

    def _acquire(self) -> None:
        """Take the folder's lock, asking the holder (if any) to let go; FolderBusy after lock_wait_s."""
        lock_path, wanted = self.location / ".lock", self.location / WANTED_FILE
        handle = open(lock_path, "a+")  # noqa: SIM115  (closed in _release)
        deadline, asked = time.monotonic() + self._lock_wait_s, False
        polite_until = time.monotonic() + min(1.0, self._lock_wait_s / 2)
        try:
            while True:
                if not asked and self._wanted() and time.monotonic() < polite_until:
                    time.sleep(POLL_S / 5)  # another process asked first: let it have the folder first
                    continue
                try:
                    portalocker.lock(handle, portalocker.LockFlags.EXCLUSIVE | portalocker.LockFlags.NON_BLOCKING)
                    break
                except portalocker.exceptions.LockException:
                    if time.monotonic() >= deadline:
                        handle.close()
                        raise FolderBusy(busy_message(self.location)) from None
                    if not asked:
                        wanted.write_text(self._token, encoding="utf-8")
                        asked = True
                    time.sleep(POLL_S / 5)
        finally:
            if asked and wanted.exists() and wanted.read_text(encoding="utf-8") == self._token:
                wanted.unlink(missing_ok=True)
        self._handle, self._since = handle, time.monotonic()
        write_holder(self.location)

    def _wanted(self) -> bool:
        """Whether another live client (another process, or another client of this one) waits for the folder."""
        try:
            token = (self.location / WANTED_FILE).read_text(encoding="utf-8")
            pid = int(token.split(":")[0])
        except (OSError, ValueError):
            return False
        return token != self._token and _alive(pid)

    def _should_yield(self) -> bool:
        """Whether to let the folder go now: another process waits and this one had it for LEASE_MIN_S."""
        return time.monotonic() - self._since >= LEASE_MIN_S and self._wanted()

    def _release(self) -> None:
        """Flush and close every shard, then let the folder's lock go (the caller holds `_threads`)."""
        for shard in self._shards.values():
            shard.flush()
            shard.close()
        self._shards = {}
        if self._handle is not None:
            (self.location / HOLDER_FILE).unlink(missing_ok=True)
            portalocker.unlock(self._handle)
            self._handle.close()
            self._handle = None

    def _watch(self) -> None:
        """Between this process's calls, give the folder up to a process that asks for it."""
        while not self._closed:
            time.sleep(LEASE_POLL_S)
            if self._handle is not None and self._should_yield() and self._threads.acquire(blocking=False):
                try:
                    if not self._depth and self._handle is not None:
                        self._release()
                finally:
                    self._threads.release()

    def close(self, **kwargs: Any) -> None:
        with self._threads:
            if not self._closed:
                self._release()
                self._closed = True

    @property
    def closed(self) -> bool:
        return self._closed

    # -- collections ---------------------------------------------------------------------------------------------
    def _path(self, name: str) -> Path:
        if not name or "/" in name or name.startswith("."):
            raise StoreError(f"{name!r} is not a collection name the edge store accepts")
        return self.location / name

    def _meta(self, name: str) -> dict[str, Any]:
        return json.loads((self._path(name) / META_FILE).read_text(encoding="utf-8"))

    def _write_meta(self, name: str, meta: dict[str, Any]) -> None:
        """Replace the collection's meta file whole (a new file renamed over the old: never half-written)."""
        path = self._path(name) / META_FILE
        path.with_suffix(".tmp").write_text(json.dumps(meta), encoding="utf-8")
        path.with_suffix(".tmp").replace(path)

    def _shard(self, name: str) -> Any:
        """The open shard of a collection (the caller holds the folder)."""
        if name not in self._shards:
            if not (self._path(name) / META_FILE).exists():
                raise ValueError(f"Collection {name} not found")
            self._shards[name] = qe.EdgeShard.load(str(self._path(name)))
        return self._shards[name]

    def collection_exists(self, collection_name: str, **kwargs: Any) -> bool:
        return (self._path(collection_name) / META_FILE).exists()

    def get_collections(self, **kwargs: Any) -> models.CollectionsResponse:
        names = sorted(p.name for p in self.location.iterdir() if (p / META_FILE).exists())
        return models.CollectionsResponse(collections=[models.CollectionDescription(name=n) for n in names])

    def create_collection(self, collection_name: str, vectors_config: Any = None, sparse_vectors_config: Any = None,
                          metadata: Any = None, **kwargs: Any) -> bool:  # fmt: skip
        sparse = dict(sparse_vectors_config or {})
        with self._locked():
            if self.collection_exists(collection_name):
                raise ValueError(f"Collection {collection_name} already exists")
            if isinstance(vectors_config, models.VectorParams):
                meta = {"vectors": {"size": vectors_config.size, "distance": vectors_config.distance.value}}
                vectors: Any = qe.EdgeVectorParams(
                    size=vectors_config.size, distance=DISTANCES[vectors_config.distance]
                )
            elif not vectors_config:
                meta, vectors = {"vectors": {}}, {NO_VECTOR: qe.EdgeVectorParams(size=1, distance=qe.Distance.Dot)}
            else:
                raise StoreError("the edge store keeps one unnamed dense vector per point (VectorParams)")
            meta["sparse"] = {name: getattr(params.modifier, "value", None) for name, params in sparse.items()}
            meta["metadata"] = metadata or {}
            sparse_vectors = {name: edge_sparse_params(params) for name, params in sparse.items()} or None
            path = self._path(collection_name)
            shutil.rmtree(path, ignore_errors=True)  # a half-made collection of an interrupted call
            config = qe.EdgeConfig(vectors=vectors, sparse_vectors=sparse_vectors)
            self._shards[collection_name] = qe.EdgeShard.create(str(path), config)
            self._write_meta(collection_name, meta)  # last: the collection now exists
        return True

    def delete_collection(self, collection_name: str, **kwargs: Any) -> bool:
        with self._locked():
            shard = self._shards.pop(collection_name, None)
            if shard is not None:
                shard.close()
            if not self.collection_exists(collection_name):
                return False
            (self._path(collection_name) / META_FILE).unlink()  # first: a half-deleted folder is no collection
            shutil.rmtree(self._path(collection_name))
        return True

    def get_collection(self, collection_name: str, **kwargs: Any) -> models.CollectionInfo:
        with self._locked():
            meta, info = self._meta(collection_name), self._shard(collection_name).info()
        vectors = models.VectorParams(**meta["vectors"]) if meta["vectors"] else {}
        sparse = {
            name: models.SparseVectorParams(modifier=models.Modifier(modifier) if modifier else None)
            for name, modifier in meta.get("sparse", {}).items()
        }
        return models.CollectionInfo(
            status=models.CollectionStatus.GREEN,
            optimizer_status=models.OptimizersStatusOneOf.OK,
            indexed_vectors_count=info.indexed_vectors_count,
            points_count=info.points_count,
            segments_count=info.segments_count,
            payload_schema={},
            config=models.CollectionConfig(
                params=models.CollectionParams(vectors=vectors, sparse_vectors=sparse or None),
                hnsw_config=models.HnswConfig(m=16, ef_construct=100, full_scan_threshold=10000),
                optimizer_config=models.OptimizersConfig(
                    deleted_threshold=0.2, vacuum_min_vector_number=1000, default_segment_number=0, flush_interval_sec=5
                ),
                wal_config=models.WalConfig(wal_capacity_mb=32, wal_segments_ahead=0),
                metadata=meta.get("metadata") or None,
            ),
        )

    def update_collection(self, collection_name: str, metadata: Any = None, **kwargs: Any) -> bool:
        """Merge `metadata` into the collection's (the only change the edge store takes)."""
        if kwargs.get("sparse_vectors_config") or kwargs.get("vectors_config"):
            raise StoreError("the edge store cannot change a vector's parameters; add one with create_vector_name")
        with self._locked():
            meta = self._meta(collection_name)
            meta["metadata"] = {**meta.get("metadata", {}), **(metadata or {})}
            self._write_meta(collection_name, meta)
        return metadata is not None

    def create_vector_name(
        self, collection_name: str, vector_name: str, vector_name_config: Any, **kwargs: Any
    ) -> models.UpdateResult:
        """Add a sparse vector to an existing collection (its points have none until written)."""
        if not isinstance(vector_name_config, models.SparseVectorNameConfig):
            raise StoreError("the edge store adds sparse vectors only (it keeps one unnamed dense vector)")
        config = vector_name_config.sparse
        with self._locked():
            meta = self._meta(collection_name)
            if vector_name not in meta.get("sparse", {}):
                modifier = edge_sparse_params(config).modifier
                operation = qe.UpdateOperation.create_sparse_vector(vector_name, modifier=modifier)
                self._shard(collection_name).update(operation)
                meta["sparse"] = {**meta.get("sparse", {}), vector_name: getattr(config.modifier, "value", None)}
                self._write_meta(collection_name, meta)
        return updated()

    def create_payload_index(
        self, collection_name: str, field_name: str, field_schema: Any = None, **kwargs: Any
    ) -> models.UpdateResult:
        kind = getattr(field_schema, "value", field_schema) or "keyword"
        with self._locked():
            self._shard(collection_name).update(qe.UpdateOperation.create_field_index(field_name, SCHEMAS[kind]))
        return updated()

    # -- points ----------------------------------------------------------------------------------------------------
    def _edge_point(self, point: models.PointStruct, payload_only: bool) -> Any:
        vector = point.vector
        if payload_only or vector in ({}, None):
            return qe.Point(edge_id(point.id), {}, point.payload or {})
        if isinstance(vector, dict):  # the unnamed dense vector and sparse ones, by name
            if any(name and not isinstance(v, models.SparseVector) for name, v in vector.items()):
                raise StoreError("the edge store keeps one unnamed dense vector per point, and sparse ones")
            return qe.Point(edge_id(point.id), {k: edge_vector(v) for k, v in vector.items()}, point.payload or {})
        return qe.Point(edge_id(point.id), edge_vector(vector), point.payload or {})

    def upsert(self, collection_name: str, points: Any, **kwargs: Any) -> models.UpdateResult:
        if isinstance(points, models.Batch):
            payloads = points.payloads or [None] * len(points.ids)
            points = [
                models.PointStruct(id=i, vector=v, payload=p)
                for i, v, p in zip(points.ids, points.vectors, payloads, strict=True)
            ]
        with self._locked():
            payload_only = not self._meta(collection_name)["vectors"]
            batch = [self._edge_point(p, payload_only) for p in points]
            self._shard(collection_name).update(qe.UpdateOperation.upsert_points(batch))
        return updated()

    def upload_points(self, collection_name: str, points: Any, **kwargs: Any) -> None:
        self.upsert(collection_name, list(points))

    def update_vectors(self, collection_name: str, points: Any, **kwargs: Any) -> models.UpdateResult:
        """Replace some named vectors of existing points (the others and the payload stay)."""
        batch = [qe.PointVectors(edge_id(p.id), {k: edge_vector(v) for k, v in p.vector.items()}) for p in points]
        with self._locked():
            self._shard(collection_name).update(qe.UpdateOperation.update_vectors(batch))
        return updated()

    def delete(self, collection_name: str, points_selector: Any, **kwargs: Any) -> models.UpdateResult:
        if isinstance(points_selector, models.FilterSelector):
            points_selector = points_selector.filter
        if isinstance(points_selector, models.Filter):
            operation = qe.UpdateOperation.delete_points_by_filter(edge_filter(points_selector))
        else:
            ids = points_selector.points if isinstance(points_selector, models.PointIdsList) else points_selector
            operation = qe.UpdateOperation.delete_points([edge_id(i) for i in ids])
        with self._locked():
            self._shard(collection_name).update(operation)
        return updated()

    def retrieve(
        self, collection_name: str, ids: Any, with_payload: Any = True, with_vectors: Any = False, **kwargs: Any
    ) -> list[models.Record]:
        with self._locked():
            found = self._shard(collection_name).retrieve(
                [edge_id(i) for i in ids], with_payload=edge_with_payload(with_payload), with_vector=with_vectors
            )
        return [record(p) for p in found]

    def count(
        self, collection_name: str, count_filter: Any = None, exact: bool = True, **kwargs: Any
    ) -> models.CountResult:
        with self._locked():
            n = self._shard(collection_name).count(qe.CountRequest(exact=True, filter=edge_filter(count_filter)))
        return models.CountResult(count=n)

    def scroll(self, collection_name: str, scroll_filter: Any = None, limit: int = 10, offset: Any = None,
               with_payload: Any = True, with_vectors: Any = False, **kwargs: Any
               ) -> tuple[list[models.Record], Any]:  # fmt: skip
        request = qe.ScrollRequest(
            offset=None if offset is None else edge_id(offset),
            limit=limit,
            filter=edge_filter(scroll_filter),
            with_payload=edge_with_payload(with_payload),
            with_vector=with_vectors,
        )
        with self._locked():
            points, next_offset = self._shard(collection_name).scroll(request)
        return [record(p) for p in points], None if next_offset is None else client_id(next_offset)

    def _request(self, query: Any = None, using: str | None = None, prefetch: Any = None, query_filter: Any = None,
                 limit: int = 10, offset: int | None = None, with_payload: Any = True, with_vectors: Any = False,
                 score_threshold: float | None = None, **ignored: Any) -> Any:  # fmt: skip
        """One query as edge's `QueryRequest` (a nearest vector, or a fusion of prefetches); timeouts … ignored."""
        prefetches = prefetch if isinstance(prefetch, list) else [prefetch] * bool(prefetch)
        return qe.QueryRequest(
            limit=limit,
            offset=offset,
            query=edge_query(query, using),
            prefetches=[edge_prefetch(p) for p in prefetches] or None,
            filter=edge_filter(query_filter),
            with_payload=edge_with_payload(with_payload),
            with_vector=with_vectors,
            score_threshold=score_threshold,
        )

    def query_points(self, collection_name: str, query: Any = None, **options: Any) -> models.QueryResponse:
        """qdrant-client's `query_points` on edge (the options `_request` takes)."""
        request = self._request(query, **options)
        with self._locked():
            found = self._shard(collection_name).query(request)
        return models.QueryResponse(points=[scored(p) for p in found])

    def query_batch_points(
        self, collection_name: str, requests: list[models.QueryRequest], **kwargs: Any
    ) -> list[models.QueryResponse]:
        """Several queries as one planned batch (edge scores queries that share a pass together)."""
        batch = [
            self._request(
                r.query, r.using, r.prefetch, r.filter, r.limit or 10, r.offset, r.with_payload,
                r.with_vector or False, r.score_threshold,
            )
            for r in requests
        ]  # fmt: skip
        with self._locked():
            found = self._shard(collection_name).query_batch(qe.QueryBatchRequest(batch))
        return [models.QueryResponse(points=[scored(p) for p in points]) for points in found]
