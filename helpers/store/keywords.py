"""BM25 inside Qdrant: each chunk's keywords as a sparse vector, so the store itself ranks by BM25.

Entries sit at crc32(token) (no vocabulary to keep in step), weighted tf / (tf + k1 * (1 - b + b * length /
avgdl)); Qdrant's `Modifier.IDF` supplies Lucene's idf, so query · document is the score bm25s gives. avgdl is
recorded with the collection; once the running mean drifts more than `AVGDL_DRIFT` from it, every vector is
written again. `KeywordVectors` (`KitStore.bm25`) adds missing vectors in place (never adding a point).
What it leaves out: the tokenizers, the queries (`helpers.retrieval.store_hybrid`) and idf (Qdrant's).
"""

from __future__ import annotations

import zlib
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from llama_index.core.schema import MetadataMode
from llama_index.core.vector_stores.utils import metadata_dict_to_node
from qdrant_client import QdrantClient, models

from helpers.store.client import scroll_all
from helpers.store.shared import StoreError

SPARSE_VECTOR = "bm25"  # the sparse vector's name in the collection, beside the unnamed dense one
RECORD = "kit_bm25"  # the collection metadata key holding the tokenizer, k1, b, avgdl and the running totals
AVGDL_DRIFT = 0.25  # rewrite every vector once the mean length is this share away from the recorded one
SPARSE_PARAMS = models.SparseVectorParams(modifier=models.Modifier.IDF)  # Qdrant computes idf at query time
WRITE_BATCH = 256  # vectors per update: an interrupted upgrade redoes at most one batch
LACKING = models.Filter(must_not=[models.HasVectorCondition(has_vector=SPARSE_VECTOR)])  # points without one


@dataclass(frozen=True)
class Keywords:
    """How chunks become BM25 vectors: the tokenizer (by name, as `settings.retrieval.bm25_tokenizer`), k1 and b."""

    tokenizer: str
    tokenize: Callable[[str], list[str]]
    k1: float = 1.5  # bm25s's defaults, as the kit's BM25Retriever uses them
    b: float = 0.75

    def params(self) -> dict[str, Any]:
        """What the collection records, so every writer and every query uses the same recipe."""
        return {"tokenizer": self.tokenizer, "k1": self.k1, "b": self.b}


def token_index(token: str) -> int:
    """A token's index in the sparse vector: its crc32 (a 32-bit number, as Qdrant's sparse indices are)."""
    return zlib.crc32(token.encode("utf-8"))


def query_vector(tokens: Sequence[str]) -> models.SparseVector:
    """A query's sparse vector: each token's count (a repeated word counts again, as in bm25s)."""
    counts = Counter(token_index(token) for token in tokens)
    return models.SparseVector(indices=list(counts), values=[float(n) for n in counts.values()])


def document_vector(tokens: Sequence[str], avgdl: float, k1: float, b: float) -> models.SparseVector:
    """A chunk's sparse vector: each distinct token's saturated, length-normalised term frequency."""
    counts = Counter(token_index(token) for token in tokens)
    discount = k1 * (1 - b + b * len(tokens) / avgdl)  # a longer chunk needs more repeats for the same weight
    return models.SparseVector(indices=list(counts), values=[tf / (tf + discount) for tf in counts.values()])


def drifted(record: dict[str, Any]) -> bool:
    """Whether the collection's mean length has moved too far from the one its vectors were weighted with."""
    chunks, tokens, avgdl = record.get("chunks", 0), record.get("tokens", 0), record.get("avgdl")
    return bool(avgdl and chunks and abs(tokens / chunks / avgdl - 1) > AVGDL_DRIFT)


def embedded_text(payload: Mapping[str, Any]) -> str:
    """A stored point's text as the embedder (and BM25) saw it: the embedded metadata fields, then the text."""
    return metadata_dict_to_node(dict(payload)).get_content(metadata_mode=MetadataMode.EMBED)


class KeywordVectors:
    """The BM25 vectors of one collection: what it records, what it lacks, and writing them."""

    def __init__(self, client: QdrantClient, collection: str, keywords: Keywords | None) -> None:
        self.client, self.collection, self.keywords = client, collection, keywords
        self.avgdl: float | None = None  # the recorded mean, as last read or written by this process

    def kept(self) -> bool:
        """Whether the collection has the sparse vector at all."""
        return SPARSE_VECTOR in (self.client.get_collection(self.collection).config.params.sparse_vectors or {})

    def record(self) -> dict[str, Any]:
        """What the collection records: tokenizer, k1, b, avgdl, chunks, tokens, complete ({} if nothing)."""
        metadata = self.client.get_collection(self.collection).config.metadata or {}
        return dict(metadata.get(RECORD) or {})

    def save(self, record: dict[str, Any]) -> None:
        self.client.update_collection(self.collection, metadata={RECORD: record})
        self.avgdl = record.get("avgdl")

    def lacking(self) -> int:
        """How many points have no BM25 vector."""
        return self.client.count(self.collection, count_filter=LACKING, exact=True).count

    def problem(self, tokenizer: str) -> str | None:
        """Why the collection cannot be ranked by BM25 with `tokenizer` (None: every chunk has its vector)."""
        if not self.kept():
            return f"the collection {self.collection!r} has no BM25 vectors"
        made_with = self.record().get("tokenizer")
        if made_with != tokenizer:
            return f"the BM25 vectors of {self.collection!r} come from the {made_with!r} tokenizer, not {tokenizer!r}"
        lacking = self.lacking()
        return f"{lacking} chunks of {self.collection!r} have no BM25 vector yet" if lacking else None

    def _recipe(self) -> Keywords:
        if self.keywords is None:
            raise StoreError("this KitStore was opened without `keywords`, so it cannot make BM25 vectors")
        return self.keywords

    def _vectors(self, texts: Sequence[str], avgdl: float) -> list[models.SparseVector]:
        recipe = self._recipe()
        return [document_vector(recipe.tokenize(text), avgdl, recipe.k1, recipe.b) for text in texts]

    def document_vectors(self, texts: list[str]) -> tuple[list[list[int]], list[list[float]]]:
        """`QdrantVectorStore`'s sparse_doc_fn: each text's BM25 vector, weighted with the recorded mean."""
        if self.avgdl is None:
            self.avgdl = self.record().get("avgdl")
        vectors = self._vectors(texts, self.avgdl or 1.0)
        return [v.indices for v in vectors], [v.values for v in vectors]

    def query_vectors(self, texts: list[str]) -> tuple[list[list[int]], list[list[float]]]:
        """`QdrantVectorStore`'s sparse_query_fn (for LlamaIndex's own hybrid queries): each text's token counts."""
        vectors = [query_vector(self._recipe().tokenize(text)) for text in texts]
        return [v.indices for v in vectors], [v.values for v in vectors]

    def prepare(self, new: Sequence[str], stale: Sequence[str]) -> None:
        """Before a write: every stored chunk has its vector by the recorded recipe, and the totals count the
        chunks of `new` (texts about to be written) and no longer the `stale` ids (the first chunks fix the mean)."""
        recipe, record = self._recipe(), self.record()
        if (
            not self.kept()
            or not record.get("complete")
            or any(record.get(key) != value for key, value in recipe.params().items())
            or self.lacking()
        ):
            self.add()
            record = self.record()
        self.avgdl = record.get("avgdl")
        if not new and not stale:
            return  # a re-run: nothing to count (and nothing written to the collection's metadata)
        gone = self.client.retrieve(self.collection, list(stale), with_payload=True) if stale else []
        lengths = [len(recipe.tokenize(text)) for text in new]
        removed = [len(recipe.tokenize(embedded_text(point.payload or {}))) for point in gone]
        record["chunks"] = record.get("chunks", 0) + len(lengths) - len(removed)
        record["tokens"] = record.get("tokens", 0) + sum(lengths) - sum(removed)
        if not record.get("avgdl") and lengths:  # the first chunks of an empty collection fix the mean
            record["avgdl"] = max(sum(lengths) / len(lengths), 1.0)
        self.save(record)

    def add(self, refresh: bool = False) -> int:
        """Write the vector of every point lacking one (of every point, with `refresh`); how many were written.

        The record is marked complete after the last vector: an interrupted run measures the mean again (the same
        chunks, the same mean) and writes the points still lacking one.
        """
        recipe = self._recipe()
        if not self.kept():
            config = models.SparseVectorNameConfig(sparse=models.SparseVectorConfig(modifier=models.Modifier.IDF))
            self.client.create_vector_name(self.collection, SPARSE_VECTOR, config)
        record = self.record()
        refresh = refresh or any(record.get(key) != value for key, value in recipe.params().items())
        measured = refresh or not record.get("complete") or not record.get("avgdl")
        if measured:  # 1. the mean length over every chunk: each vector below is weighted with this one number
            lengths = [len(recipe.tokenize(embedded_text(p.payload or {}))) for p in self._points(None)]
            avgdl = max(sum(lengths) / len(lengths), 1.0) if lengths else None
            record = {**recipe.params(), "avgdl": avgdl, "chunks": len(lengths), "tokens": sum(lengths)}
            self.save({**record, "complete": False})
        # 2. the vectors, a batch at a time (what a later page holds does not move: pages follow point ids)
        written, page = 0, []
        for point in self._points(None if refresh else LACKING):
            page.append(point)
            if len(page) == WRITE_BATCH:
                written += self._write(page, record, measured)
                page = []
        written += self._write(page, record, measured) if page else 0
        self.save({**record, "complete": True})
        return written

    def _write(self, points: list[models.Record], record: dict[str, Any], measured: bool) -> int:
        """Update the sparse vector of `points`; unless the measurement counted them, add them to the totals."""
        texts = [embedded_text(point.payload or {}) for point in points]
        vectors = self._vectors(texts, record.get("avgdl") or 1.0)
        batch = [models.PointVectors(id=p.id, vector={SPARSE_VECTOR: v}) for p, v in zip(points, vectors, strict=True)]
        self.client.update_vectors(self.collection, points=batch)
        if not measured:
            record["chunks"] = record.get("chunks", 0) + len(points)
            record["tokens"] = record.get("tokens", 0) + sum(len(self._recipe().tokenize(text)) for text in texts)
        return len(batch)

    def _points(self, only: models.Filter | None) -> Iterator[models.Record]:
        """The points (with payload, without vectors) matching `only`, page by page."""
        return scroll_all(self.client, self.collection, WRITE_BATCH, scroll_filter=only, with_payload=True)
