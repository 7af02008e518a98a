"""The shipped course vectors: a read-only "seed" the embedder consults before it computes anything.

`course_data/index/embeddings-<model>.npz` holds each course chunk's cache key and float16 vector (a file failing its
checks is ignored); rebuild it with `python -m bench.shipped_vectors` when the corpus or the default chunking changes.
What it leaves out: other chunkings and corpora, and float32 precision (vectors are normalised again on load).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from helpers.config import REPO_ROOT

SHIPPED_DIR = REPO_ROOT / "course_data" / "index"
FORMAT = "kit-embedding-seed 1"
NORM_TOLERANCE = 1e-2  # a float16 unit vector has a norm within ~1e-3 of 1; anything further is damaged


def shipped_path(model_id: str, folder: Path = SHIPPED_DIR) -> Path:
    """Where the seed of one embedding model lives (the model id made safe for a file name)."""
    return folder / f"embeddings-{re.sub(r'[^A-Za-z0-9._-]+', '_', model_id)}.npz"


class ShippedVectors:
    """Vectors shipped with the repository, looked up by embedding-cache key; read-only."""

    def __init__(self, model_id: str, keys: Sequence[str], vectors: np.ndarray) -> None:
        self.model_id = model_id
        self.index = {key: row for row, key in enumerate(keys)}
        self.vectors = vectors

    def __len__(self) -> int:
        return len(self.index)

    @classmethod
    def load(cls, model_id: str, folder: Path = SHIPPED_DIR) -> ShippedVectors | None:
        """The seed of `model_id` in `folder`, or None when there is none or it fails its checks."""
        path = shipped_path(model_id, folder)
        if not path.exists():
            return None
        try:
            with np.load(path, allow_pickle=False) as data:
                found_format, found_model = str(data["format"]), str(data["model_id"])
                keys, vectors = data["keys"], data["vectors"]
            problem = _check(found_format, found_model, model_id, keys, vectors)
        except (OSError, ValueError, KeyError) as err:
            problem = f"unreadable ({err})"
        if problem:
            warnings.warn(f"ignoring the shipped vectors {path}: {problem}; they will be computed", stacklevel=2)
            return None
        return cls(model_id, [bytes(key).hex() for key in keys], vectors)

    def get_many(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        """The seeded vectors among `keys`, as float32 rows of length 1."""
        rows = [(key, self.index[key]) for key in keys if key in self.index]
        if not rows:
            return {}
        matrix = self.vectors[[row for _, row in rows]].astype(np.float32)
        matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
        return {key: vector for (key, _), vector in zip(rows, matrix, strict=True)}


def _check(found_format: str, found_model: str, model_id: str, keys: np.ndarray, vectors: np.ndarray) -> str:
    """What is wrong with a loaded seed ("" when nothing)."""
    if found_format != FORMAT:
        return f"format {found_format!r}, expected {FORMAT!r}"
    if found_model != model_id:
        return f"made for model {found_model!r}, not {model_id!r}"
    if keys.ndim != 2 or keys.shape[1] != 32 or keys.dtype != np.uint8:
        return f"keys of shape {keys.shape} and type {keys.dtype}, expected (n, 32) uint8"
    if vectors.ndim != 2 or len(vectors) != len(keys) or vectors.dtype != np.float16:
        return f"vectors of shape {vectors.shape} and type {vectors.dtype} for {len(keys)} keys"
    norms = np.linalg.norm(vectors.astype(np.float32), axis=1)
    if not np.all(np.abs(norms - 1) < NORM_TOLERANCE):
        return "vectors that are not of length 1 (damaged?)"
    return ""
