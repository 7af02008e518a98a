"""Chunking: documents into nodes small enough to embed and to quote.

The walking skeleton uses one strategy, token windows with overlap (LlamaIndex's `SentenceSplitter`
counting tiktoken cl100k tokens, offline). Every node gets a deterministic id made from its source and
text, so chunking the same document twice gives the same ids and re-ingestion never duplicates.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from llama_index.core import Document
from llama_index.core.node_parser import SentenceSplitter
from llama_index.core.schema import TextNode

# A fixed namespace: uuid5(namespace, name) is the same on every machine and every run.
KIT_NAMESPACE = uuid.UUID("6f1c2a4e-8d4b-5f3a-9c1e-2b7d4a0e9f11")


def node_id(source: str, text: str) -> str:
    """The deterministic point id of a chunk: a UUID made from its source and its text."""
    return str(uuid.uuid5(KIT_NAMESPACE, f"{source}\x00{text}"))


def chunk_documents(documents: Sequence[Document], chunk_tokens: int = 256, overlap: int = 32) -> list[TextNode]:
    """Split documents into token windows; ids from content, position kept in metadata."""
    splitter = SentenceSplitter(chunk_size=chunk_tokens, chunk_overlap=overlap)
    nodes: list[TextNode] = []
    for document in documents:
        pieces = splitter.split_text(document.text)
        seen: dict[str, int] = {}  # the same text twice in one document gets two ids
        for index, text in enumerate(pieces):
            metadata = dict(document.metadata)
            metadata["chunk"] = index
            source = str(metadata.get("source", document.id_))
            repeat = seen[text] = seen.get(text, -1) + 1
            nodes.append(
                TextNode(
                    id_=node_id(f"{source}#{metadata.get('page', '')}#{repeat}", text),
                    text=text,
                    metadata=metadata,
                    excluded_embed_metadata_keys=list(document.excluded_embed_metadata_keys),
                    excluded_llm_metadata_keys=list(document.excluded_llm_metadata_keys),
                )
            )
    return nodes
