"""Regenerate the shipped course vectors: `python -m bench.shipped_vectors`.

What it does: embeds the course corpus under the default model and chunking with the `Embedder` (its cache
serves what it already has) and writes the file `helpers/embedding/shipped.py` reads: one for the default
embedder (ONNX int8) and one for torch float32 (`embed_backend = "local"`, the fallback where ONNX Runtime is
missing). A maintainer's tool, so it lives beside the benchmarks, outside the package students import.
What it leaves out: checking a seed (`ShippedVectors.load` does that) and other corpora.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from helpers.config import Settings, load_settings
from helpers.embedding.cache import EmbeddingCache
from helpers.embedding.embedder import Embedder
from helpers.embedding.shipped import FORMAT, SHIPPED_DIR, shipped_path

SEEDED = ({}, {"embed_backend": "local", "embed_precision": "fp32"})  # the default, and torch float32


def write_shipped(model_id: str, keys: Sequence[str], vectors: np.ndarray, folder: Path = SHIPPED_DIR) -> Path:
    """Write a seed file: keys as 32 raw bytes each, vectors as float16."""
    folder.mkdir(parents=True, exist_ok=True)
    path = shipped_path(model_id, folder)
    raw_keys = np.frombuffer(b"".join(bytes.fromhex(key) for key in keys), dtype=np.uint8).reshape(len(keys), 32)
    np.savez_compressed(
        path, format=FORMAT, model_id=model_id, keys=raw_keys, vectors=np.asarray(vectors, dtype=np.float16)
    )
    return path


def course_embed_texts(settings: Settings) -> list[str]:
    """What the embedder sees for every chunk of the course corpus under the settings' chunking."""
    from helpers.chunking import chunk_for_settings
    from helpers.parsing import parse_folder

    documents = parse_folder(settings.paths.corpus_dir, progress=False, cache_dir=settings.paths.cache_dir).documents
    return [node.get_content(metadata_mode="embed") for node in chunk_for_settings(documents, settings.chunking)]


def build_shipped(settings: Settings, folder: Path = SHIPPED_DIR, **embedder: str) -> tuple[Path, int]:
    """Embed the course corpus under the default model and chunking (the cache serves what it has); write the seed."""
    defaults = Settings()  # the seed is for what a fresh machine builds: the default chunking and model
    settings = settings.replace(
        embed_backend=embedder.get("embed_backend", defaults.embedding.embed_backend),
        embed_precision=embedder.get("embed_precision", defaults.embedding.embed_precision),
        embed_model=defaults.embedding.embed_model,
        chunking=defaults.chunking,
    )
    embedder = Embedder(settings, shipped_dir=None)  # never seed the seed from itself
    texts = list(dict.fromkeys(course_embed_texts(settings)))
    vectors = embedder.embed_texts(texts, progress=True)
    keys = [EmbeddingCache.key(embedder.model_id, text) for text in texts]
    return write_shipped(embedder.model_id, keys, vectors, folder), len(texts)


def main(settings: Settings) -> int:
    """`python -m bench.shipped_vectors`: regenerate the shipped course vectors."""
    for embedder in SEEDED:
        start = time.perf_counter()
        path, count = build_shipped(settings, **embedder)
        size_mb = path.stat().st_size / 1e6
        print(f"wrote {path} ({count} vectors, {size_mb:.2f} MB) in {time.perf_counter() - start:.0f} s; commit it")
    return 0


if __name__ == "__main__":
    sys.exit(main(load_settings()))  # the command line is where the settings are read: paths, cache, endpoint
