"""Late interaction (ColBERT's MaxSim) over the packaged MiniLM's token vectors: a reranker with no training.

maxsim(q, p) = mean over query tokens of the best cosine with any passage token, so details the embedder's average
blurs ("ADS 530" vs "ADS 503") count; `first_stage_weight > 0` fuses its rank with the first stage's (RRF).
What it leaves out: ColBERT's training, an index of all token vectors, compression, and a disk cache.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from helpers.config import RetrievalSettings
from helpers.rerank.base import order_by_scores, passage_text
from helpers.types import Hit

RRF_K = RetrievalSettings().rrf_k  # the usual constant of reciprocal rank fusion (Cormack et al., 2009)
# what make_reranker("maxsim") uses: the best of 28 (depth, weight, k) settings on the course and real-document
# dev sets (notebook 06); k = 10 rewards the top few ranks of each list more than k = 60 does
DEFAULT_FIRST_STAGE_WEIGHT = 1.0
DEFAULT_FUSION_K = 10
MAX_CACHED_PASSAGES = 20_000  # passages whose token vectors stay in memory (float16, one row per word piece)
# shared by every reranker of the kernel, keyed by model path: a notebook that compares MaxSim alone with MaxSim
# fused, then sweeps the depth, loads MiniLM once and encodes each passage once
_LOADED: dict[str, tuple[Any, Any]] = {}  # model path → (tokenizer, transformer)
_PASSAGES: dict[str, dict[str, np.ndarray]] = {}  # model path → text hash → token vectors (float16)


def maxsim(query_vectors: np.ndarray, passage_vectors: np.ndarray) -> float:
    """Mean over query tokens of the best cosine with any passage token (rows L2-normalised)."""
    if len(query_vectors) == 0 or len(passage_vectors) == 0:
        return 0.0
    return float((query_vectors @ passage_vectors.T).max(axis=1).mean())


def rank_fusion(first_stage_weight: float, n: int, late_scores: Sequence[float], k: int = RRF_K) -> list[float]:
    """weight/(k + first-stage rank) + 1/(k + late-interaction rank), for hits given in first-stage order."""
    late_rank = {i: r for r, i in enumerate(sorted(range(n), key=lambda i: -late_scores[i]), start=1)}
    return [first_stage_weight / (k + i + 1) + 1.0 / (k + late_rank[i]) for i in range(n)]


class MaxSimReranker:
    """Rerank by late interaction (MaxSim) over MiniLM token vectors, optionally fused with the first-stage rank."""

    def __init__(
        self,
        model_path: str | Path | None = None,
        first_stage_weight: float = 0.0,
        fusion_k: int = RRF_K,
        batch_size: int = 16,
    ) -> None:
        if first_stage_weight < 0:
            raise ValueError(f"first_stage_weight must be 0 or more, got {first_stage_weight}")
        self.model_path = model_path
        self.first_stage_weight = first_stage_weight
        self.fusion_k = fusion_k
        self.batch_size = batch_size
        fused = f"maxsim + first-stage rank (weight {first_stage_weight:g}, k {fusion_k})"
        self.name = "maxsim" if first_stage_weight == 0 else fused

    def _path(self) -> str:
        from helpers.models import embedder_path

        return str(self.model_path or embedder_path())

    def load(self) -> tuple[Any, Any]:
        """The MiniLM tokenizer and transformer (the embedder's own weights), loaded once per kernel."""
        path = self._path()
        if path not in _LOADED:
            from transformers import AutoModel, AutoTokenizer

            _LOADED[path] = (AutoTokenizer.from_pretrained(path), AutoModel.from_pretrained(path).eval())
        return _LOADED[path]

    def token_vectors(self, texts: Sequence[str], drop_punctuation: bool = False) -> list[np.ndarray]:
        """Each text's L2-normalised token vectors, without [CLS], [SEP], padding (and punctuation if asked)."""
        import torch

        tokenizer, model = self.load()
        out: list[np.ndarray] = []
        for start in range(0, len(texts), self.batch_size):
            batch = tokenizer(
                list(texts[start : start + self.batch_size]),
                padding=True,
                truncation=True,
                max_length=256,
                return_tensors="pt",
                return_special_tokens_mask=True,
            )
            special = batch.pop("special_tokens_mask").bool()
            with torch.inference_mode():
                hidden = model(**batch).last_hidden_state
            hidden = torch.nn.functional.normalize(hidden, dim=-1)
            keep = batch["attention_mask"].bool() & ~special
            for row, ids in enumerate(batch["input_ids"]):
                mask = keep[row]
                if drop_punctuation:
                    tokens = tokenizer.convert_ids_to_tokens(ids.tolist())
                    mask = mask & torch.tensor([any(c.isalnum() for c in t) for t in tokens])
                out.append(hidden[row][mask].numpy())
        return out

    def passage_vectors(self, passages: Sequence[str]) -> list[np.ndarray]:
        """Token vectors of each passage, computed once per distinct text and model, and kept in memory."""
        cached = _PASSAGES.setdefault(self._path(), {})
        keys = [hashlib.sha1(p.encode("utf-8")).hexdigest() for p in passages]
        missing = list(dict.fromkeys(k for k in keys if k not in cached))
        if missing:
            texts = {k: p for k, p in zip(keys, passages, strict=True)}
            for key, vectors in zip(missing, self.token_vectors([texts[k] for k in missing]), strict=True):
                if len(cached) >= MAX_CACHED_PASSAGES:
                    cached.pop(next(iter(cached)))  # the oldest entry goes first
                cached[key] = vectors.astype(np.float16)
        return [cached[k].astype(np.float32) for k in keys]

    def score(self, query: str, hits: Sequence[Hit]) -> list[float]:
        """MaxSim of the query against every hit (higher = more relevant)."""
        if not hits:
            return []
        query_vectors = self.token_vectors([query], drop_punctuation=True)[0]
        return [maxsim(query_vectors, p) for p in self.passage_vectors([passage_text(h) for h in hits])]

    def rerank(self, query: str, hits: Sequence[Hit], top_n: int) -> list[Hit]:
        """The top_n hits by MaxSim (or by MaxSim rank fused with the first-stage rank); each keeps `maxsim`."""
        late = self.score(query, hits)
        fused = self.first_stage_weight > 0
        final = rank_fusion(self.first_stage_weight, len(hits), late, self.fusion_k) if fused else late
        ranked = order_by_scores(hits, final, top_n)
        by_id = {h.node_id: s for h, s in zip(hits, late, strict=True)}
        for hit in ranked:
            hit.scores["maxsim"] = by_id[hit.node_id]
        return ranked
