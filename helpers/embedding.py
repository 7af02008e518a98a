"""Text embeddings: the packaged all-MiniLM-L6-v2 by default, OpenAI embeddings when configured.

What it does: L2-normalised vectors (so cosine similarity is a dot product), computed in batches,
with an on-disk cache keyed by model name + content hash, so a re-run embeds nothing twice.
`KitEmbedding` adapts the same embedder to LlamaIndex's `BaseEmbedding` for the production path.
What it leaves out: fine-tuning, and models that would have to download at run time.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding
from pydantic import PrivateAttr

from helpers.config import Settings, get_settings
from helpers.models import embedder_path


class EmbeddingCache:
    """Vectors on disk in SQLite, keyed by sha256(model name + text)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False, timeout=30)
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB)")
        self._lock = threading.Lock()

    @staticmethod
    def key(model: str, text: str) -> str:
        """The cache key of one text under one model."""
        return hashlib.sha256(f"{model}\x00{text}".encode()).hexdigest()

    def get_many(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        """The cached vectors among `keys`."""
        found: dict[str, np.ndarray] = {}
        with self._lock:
            for start in range(0, len(keys), 500):
                batch = list(keys[start : start + 500])
                marks = ",".join("?" * len(batch))
                for key, blob in self._db.execute(f"SELECT key, vector FROM vectors WHERE key IN ({marks})", batch):
                    found[key] = np.frombuffer(blob, dtype=np.float32)
        return found

    def put_many(self, items: dict[str, np.ndarray]) -> None:
        """Store vectors (one transaction)."""
        with self._lock, self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO vectors VALUES (?, ?)",
                [(k, v.astype(np.float32).tobytes()) for k, v in items.items()],
            )

    def close(self) -> None:
        """Close the database."""
        self._db.close()


class Embedder:
    """Turns texts into L2-normalised float32 vectors, batched and cached."""

    def __init__(self, settings: Settings | None = None, use_cache: bool = True) -> None:
        self.settings = settings or get_settings()
        self.backend = self.settings.embed_backend
        self.model_name = self.settings.embed_model
        self._model: Any = None
        self.cache = EmbeddingCache(self.settings.cache_dir / "embeddings.sqlite") if use_cache else None
        self.stats = {"computed": 0, "cached": 0}

    @property
    def dimension(self) -> int:
        """Length of one vector."""
        return int(self.embed_texts(["dimension probe"]).shape[1])

    def _load(self) -> Any:
        """Load the model on first use (about 0.2 s for MiniLM, plus importing torch)."""
        if self._model is None:
            if self.backend == "openai":
                from openai import OpenAI

                self._model = OpenAI(
                    base_url=self.settings.openai_base_url or None,
                    api_key=self.settings.openai_api_key or None,
                    timeout=self.settings.request_timeout_s,
                )
            else:
                from sentence_transformers import SentenceTransformer

                path = embedder_path() if self.model_name == "all-MiniLM-L6-v2" else Path(self.model_name)
                self._model = SentenceTransformer(str(path), device="cpu")
        return self._model

    def _compute(self, texts: list[str]) -> np.ndarray:
        """Embed texts with the model, no cache."""
        model = self._load()
        if self.backend == "openai":
            vectors = []
            for start in range(0, len(texts), self.settings.embed_batch_size):
                batch = texts[start : start + self.settings.embed_batch_size]
                response = model.embeddings.create(model=self.model_name, input=batch)
                vectors.extend(item.embedding for item in response.data)
            matrix = np.asarray(vectors, dtype=np.float32)
        else:
            matrix = model.encode(texts, batch_size=self.settings.embed_batch_size, convert_to_numpy=True)
            matrix = matrix.astype(np.float32)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return matrix / np.clip(norms, 1e-12, None)

    def embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors for many texts, one row each, computing only what the cache lacks."""
        texts = list(texts)
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        if self.cache is None:
            self.stats["computed"] += len(texts)
            return self._compute(texts)
        keys = [EmbeddingCache.key(self.model_name, t) for t in texts]
        found = self.cache.get_many(keys)
        unique_missing: dict[str, str] = {}
        for key, text in zip(keys, texts, strict=True):
            if key not in found:
                unique_missing.setdefault(key, text)
        if unique_missing:
            vectors = self._compute(list(unique_missing.values()))
            new = dict(zip(unique_missing.keys(), vectors, strict=True))
            self.cache.put_many(new)
            found.update(new)
        self.stats["computed"] += len(unique_missing)
        self.stats["cached"] += len(texts) - len(unique_missing)
        return np.stack([found[k] for k in keys])

    def embed_query(self, query: str) -> np.ndarray:
        """The vector of one query (MiniLM needs no instruction prefix)."""
        return self.embed_texts([query])[0]


class KitEmbedding(BaseEmbedding):
    """The kit's `Embedder` seen through LlamaIndex's embedding interface."""

    _embedder: Embedder = PrivateAttr()

    def __init__(self, embedder: Embedder, **kwargs: Any) -> None:
        super().__init__(model_name=embedder.model_name, embed_batch_size=embedder.settings.embed_batch_size, **kwargs)
        self._embedder = embedder

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._embedder.embed_query(query).tolist()

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._embedder.embed_texts([text])[0].tolist()

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return self._embedder.embed_texts(texts).tolist()
