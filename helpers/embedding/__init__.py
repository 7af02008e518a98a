"""Embeddings: the packaged all-MiniLM-L6-v2 by default, OpenAI embeddings when configured.

    >>> embedder = Embedder(settings)
    >>> vectors = embedder.embed_texts(["The application fee is $90."])   # (1, 384), rows of length 1
    >>> scores = vectors @ embedder.embed_query("How much is the fee?")    # cosine = dot product

What it leaves out: fine-tuning, and any model that would download at run time.
"""

from helpers.embedding.cache import EmbeddingCache
from helpers.embedding.embedder import Embedder, normalise
from helpers.embedding.llama import KitEmbedding

__all__ = ["Embedder", "EmbeddingCache", "KitEmbedding", "normalise"]
