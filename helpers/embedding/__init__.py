"""Embeddings: the packaged all-MiniLM-L6-v2 by default, OpenAI embeddings when configured.

    >>> embedder = Embedder()
    >>> vectors = embedder.embed_texts(["The application fee is $90."])   # (1, 384), rows of length 1
    >>> scores = vectors @ embedder.embed_query("How much is the fee?")    # cosine = dot product

`embedder.py` holds the `Embedder` (normalised, batched, cached, query prefix), `cache.py` the on-disk
cache, `onnx_model.py` the same model exported to ONNX Runtime (`embed_backend = "onnx"`, float32 or int8),
`backends.py` the named set-ups and their timing, `llama.py` the LlamaIndex adapter, `report.py` and
`compare.py` what notebook 03 measures and plots.
What it leaves out: fine-tuning, and any model that would download at run time.
"""

from helpers.embedding.cache import EmbeddingCache
from helpers.embedding.embedder import PACKAGED_MODEL, Embedder, normalise
from helpers.embedding.llama import KitEmbedding

__all__ = ["PACKAGED_MODEL", "Embedder", "EmbeddingCache", "KitEmbedding", "normalise"]
