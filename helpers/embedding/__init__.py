"""Embeddings: the packaged all-MiniLM-L6-v2 by default, OpenAI embeddings when configured.

    >>> embedder = Embedder(settings)
    >>> vectors = embedder.embed_texts(["The application fee is $90."])   # (1, 384), rows of length 1
    >>> scores = vectors @ embedder.embed_query("How much is the fee?")    # cosine = dot product

`embedder.py` holds the `Embedder` (normalised, batched, cached, query prefix), `cache.py` the on-disk
cache, `onnx_model.py` the same model exported to ONNX Runtime (`embed_backend = "onnx"`, float32 or int8),
`shipped.py` the course vectors that ship with the repository, `llama.py` the LlamaIndex adapter. What
notebook 03 measures and plots is in `helpers.lab.embedding` and `helpers.lab.embedding_speed`.
What it leaves out: fine-tuning, and any model that would download at run time.
"""

from helpers.embedding.cache import EmbeddingCache
from helpers.embedding.embedder import PACKAGED_MODEL, Embedder, normalise
from helpers.embedding.llama import KitEmbedding

__all__ = ["PACKAGED_MODEL", "Embedder", "EmbeddingCache", "KitEmbedding", "normalise"]
