"""The vector store: Qdrant through qdrant-client, wrapped by LlamaIndex's `QdrantVectorStore`.

    >>> store = KitStore(connect(settings), "course", dimension=384)
    >>> store.upsert_nodes(nodes)                       # idempotent: ids come from content
    >>> store.search(vector, k=5, filters={"doc_type": "email", "sender": "whitcombe"})

An embedded folder by default (`shared.py`; qdrant-edge with `store_backend = "edge"`, `edge.py`), a server when
`QDRANT_URL` is set. `payload_filters.py` turns a dict into filters, `keywords.py` keeps BM25 sparse vectors.
What it leaves out: the queries and fusion (`helpers.retrieval`), and what notebook 04 measures.
"""

from helpers.store.client import (
    StoreError,
    class_collection,
    connect,
    drop_collection,
    enable_fast_local_writes,
    is_local,
    open_edge_folder,
    open_folder,
)
from helpers.store.collection import KitStore
from helpers.store.payload_filters import FILTER_FIELDS, Not, filters_from
from helpers.store.shared import FolderBusy

__all__ = [
    "FILTER_FIELDS",
    "FolderBusy",
    "KitStore",
    "Not",
    "StoreError",
    "class_collection",
    "connect",
    "drop_collection",
    "enable_fast_local_writes",
    "filters_from",
    "is_local",
    "open_edge_folder",
    "open_folder",
]
