"""The vector store: Qdrant through qdrant-client, wrapped by LlamaIndex's `QdrantVectorStore`.

    >>> store = KitStore(connect(settings), "course", dimension=384)
    >>> store.upsert_nodes(nodes)                       # idempotent: ids come from content
    >>> store.search(vector, k=5, filters={"doc_type": "email", "sender": "whitcombe"})

Embedded local mode (a folder under the kit's data directory) by default, qdrant-edge (Qdrant's Rust engine
in-process, `store_backend = "edge"`, `edge.py`) for large collections; a Qdrant server or cluster when
`QDRANT_URL` is set, through the very same code. `client.py` connects, `shared.py` lets several
kernels share one embedded folder, `collection.py` holds `KitStore` (its hits are `helpers.types.Hit`),
`payload_filters.py` turns a dict into Qdrant payload filters, `keywords.py` keeps each chunk's BM25 sparse vector
beside its dense one (`KitStore(..., keywords=...)`, so Qdrant can rank by keywords). What it leaves out: the
queries and fusion (`helpers.retrieval`), and what notebook 04 measures (`helpers.lab.store`).
"""

from helpers.store.client import (
    StoreError,
    class_collection,
    connect,
    drop_collection,
    enable_fast_local_writes,
    is_embedded,
    is_local,
    open_edge_folder,
    open_folder,
)
from helpers.store.collection import WRITE_BATCH, KitStore
from helpers.store.keywords import SPARSE_VECTOR, Keywords
from helpers.store.payload_filters import FILTER_FIELDS, Not, filters_from
from helpers.store.shared import FolderBusy, SharedLocal

__all__ = [
    "FILTER_FIELDS",
    "SPARSE_VECTOR",
    "WRITE_BATCH",
    "FolderBusy",
    "Keywords",
    "KitStore",
    "Not",
    "SharedLocal",
    "StoreError",
    "class_collection",
    "connect",
    "drop_collection",
    "enable_fast_local_writes",
    "filters_from",
    "is_embedded",
    "is_local",
    "open_edge_folder",
    "open_folder",
]
