"""Cross-encoder reranking: a small transformer reads "query [SEP] passage" and outputs one relevance score.

Every query word attends to every passage word (sharper than the embedder's cosine, a forward pass per pair). Any
sentence-transformers `CrossEncoder` works: a local folder, or a hub name already in your cache (never downloaded).
What it leaves out: training (finetune.py) and score calibration — scores only order passages of one query.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from helpers.rerank.base import order_by_scores, passage_text
from helpers.types import Hit


def load_cross_encoder(model: str | Path, max_length: int = 256) -> Any:
    """A sentence-transformers CrossEncoder from a folder or a cached hub name, with a clear error if absent."""
    from sentence_transformers import CrossEncoder

    try:
        return CrossEncoder(str(model), max_length=max_length, device="cpu")
    except OSError as err:
        raise RuntimeError(
            f"cross-encoder {str(model)!r} is neither a local folder nor in the Hugging Face cache, and the kit "
            f"never downloads at run time ({type(err).__name__}). Build one: python -m helpers train-reranker"
        ) from None


class CrossEncoderReranker:
    """Rerank with any sentence-transformers cross-encoder (one forward pass per candidate)."""

    def __init__(self, model: str | Path | Any, name: str = "cross-encoder", batch_size: int = 16) -> None:
        self.model = load_cross_encoder(model) if isinstance(model, str | Path) else model
        self.name = name
        self.batch_size = batch_size

    def score(self, query: str, hits: Sequence[Hit]) -> list[float]:
        """One relevance score per hit (higher = more relevant)."""
        if not hits:
            return []
        pairs = [(query, passage_text(hit)) for hit in hits]
        return [float(s) for s in self.model.predict(pairs, batch_size=self.batch_size, show_progress_bar=False)]

    def rerank(self, query: str, hits: Sequence[Hit], top_n: int) -> list[Hit]:
        """The top_n hits by cross-encoder score."""
        return order_by_scores(hits, self.score(query, hits), top_n)
