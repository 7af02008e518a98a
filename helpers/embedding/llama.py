"""The kit's `Embedder` seen through LlamaIndex's `BaseEmbedding`, for `VectorStoreIndex` and its retrievers.

What it does: forwards queries to `Embedder.embed_query` (with the query prefix) and texts to
`Embedder.embed_texts` (cached). What it leaves out: true async (the embedder is local and fast).
"""

from __future__ import annotations

from typing import Any

from llama_index.core.base.embeddings.base import BaseEmbedding
from pydantic import PrivateAttr

from helpers.embedding.embedder import Embedder


class KitEmbedding(BaseEmbedding):
    """The kit's `Embedder` seen through LlamaIndex's embedding interface."""

    _embedder: Embedder = PrivateAttr()

    def __init__(self, embedder: Embedder, **kwargs: Any) -> None:
        super().__init__(
            model_name=embedder.model_name, embed_batch_size=embedder.settings.embedding.embed_batch_size, **kwargs
        )
        self._embedder = embedder

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._embedder.embed_query(query).tolist()

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._embedder.embed_texts([text])[0].tolist()

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return self._embedder.embed_texts(texts).tolist()
