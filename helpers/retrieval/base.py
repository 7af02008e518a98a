"""What every retriever shares: the `Retriever` protocol, `Memoized`, `stored_chunks` and `copy_hit`.

A retriever returns `Hit`s, best first, each with one score per stage that saw it ("dense", "sparse", "fused" …).
What it leaves out: the retrievers themselves (one file each) and any answer generation.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from llama_index.core.schema import MetadataMode
from llama_index.core.vector_stores.utils import metadata_dict_to_node

from helpers.store import KitStore
from helpers.types import Hit

Filters = dict[str, object]  # {"doc_type": "email"} or {"doc_type": ["pdf", "html"]}: every key must match


@runtime_checkable
class Retriever(Protocol):
    """Anything that ranks chunks for a query."""

    def retrieve(self, query: str, k: int, filters: Filters | None = None) -> list[Hit]:
        """The top-k hits for `query`, best first, only chunks whose metadata match `filters`."""
        ...


def stored_chunks(store: KitStore) -> tuple[list[Hit], list[str]]:
    """Every chunk in the Qdrant collection (as hits without scores) and the text the embedder saw of each."""
    chunks: list[Hit] = []
    embedded: list[str] = []
    offset = None
    while True:
        points, offset = store.client.scroll(store.collection, limit=1000, offset=offset, with_payload=True)
        for point in points:
            node = metadata_dict_to_node(point.payload or {})
            chunks.append(Hit(node.node_id, node.get_content(), dict(node.metadata)))
            embedded.append(node.get_content(metadata_mode=MetadataMode.EMBED))  # title etc. + text
        if offset is None:
            return chunks, embedded


def copy_hit(hit: Hit, **scores: float) -> Hit:
    """A copy of `hit` with extra stage scores (hits are shared between calls; never mutate them)."""
    return Hit(hit.node_id, hit.text, hit.metadata, {**hit.scores, **scores})


class Memoized:
    """A retriever that remembers its answers (for sweeps that ask the same question many times)."""

    def __init__(self, retriever: Retriever) -> None:
        self.retriever = retriever
        self.cache: dict[tuple, list[Hit]] = {}

    def __repr__(self) -> str:
        return f"Memoized({self.retriever!r})"

    def retrieve(self, query: str, k: int, filters: Filters | None = None) -> list[Hit]:
        """The inner retriever's answer, computed once per (query, k, filters)."""
        key = (query, k, repr(sorted((filters or {}).items())))
        if key not in self.cache:
            self.cache[key] = self.retriever.retrieve(query, k, filters)
        return self.cache[key]
