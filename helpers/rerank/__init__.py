"""Reranking: re-score the first stage's top N candidates with a slower, sharper model, keep the best few.

    >>> reranker = make_reranker("finetuned", settings)      # or pipeline.make_reranker("finetuned")
    >>> hits = reranker.rerank("When is the ADS 530 exam?", retriever.retrieve(question, 20), top_n=5)

One file per variant; `helpers.lab.rerank` measures them (notebook 06).
What it leaves out: query rewriting (helpers.query) and answer generation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from helpers.rerank.base import Reranked, Reranker, order_by_scores
from helpers.rerank.cross_encoder import CrossEncoderReranker
from helpers.rerank.finetune import TRAIN_COMMAND, finetuned_path, training_info
from helpers.rerank.llm import LLMReranker
from helpers.rerank.maxsim import DEFAULT_FIRST_STAGE_WEIGHT, DEFAULT_FUSION_K, MaxSimReranker

if TYPE_CHECKING:
    from helpers.config import Settings

NAMES = ("none", "finetuned", "llm", "cross-encoder", "maxsim")  # = helpers.config.RERANKERS


def make_reranker(name: str | None, settings: Settings, llm: Callable[[], Any] | None = None) -> Reranker | None:
    """A reranker by name (None for "none", unset: `settings.rerank.reranker`); "llm" needs `llm`, which returns
    the local model (called on the first cache miss only)."""
    name = name or settings.rerank.reranker
    if name == "none":
        return None
    if name == "llm":
        if llm is None:
            raise ValueError("the llm reranker needs the local model: make_reranker('llm', settings, llm=lambda: …)")
        return LLMReranker.from_llm(llm, settings)
    if name == "finetuned":
        path = finetuned_path(settings)
        if path is None:
            raise RuntimeError(
                f"no fine-tuned reranker under {settings.paths.cache_dir}; build it with: {TRAIN_COMMAND}"
            )
        return CrossEncoderReranker(path, name="minilm-finetuned")
    if name == "maxsim":
        return MaxSimReranker(first_stage_weight=DEFAULT_FIRST_STAGE_WEIGHT, fusion_k=DEFAULT_FUSION_K)
    if name == "cross-encoder":
        if not settings.rerank.rerank_model:
            raise RuntimeError("set rerank_model in kit.toml to a cross-encoder folder or a cached hub name")
        return CrossEncoderReranker(settings.rerank.rerank_model, name=settings.rerank.rerank_model)
    raise ValueError(f"unknown reranker {name!r}; choose one of: {', '.join(NAMES)}")


def load_finetuned(settings: Settings) -> tuple[CrossEncoderReranker | None, str]:
    """The kit's fine-tuned reranker if it was trained, else None; and a sentence saying which (and why)."""
    path = finetuned_path(settings)
    if path is None:
        reason = f"no fine-tuned reranker yet; build it (minutes on CPU) with: {TRAIN_COMMAND}"
        if settings.profile == "ci":
            reason += " (the ci profile never trains: its rows are skipped)"
        return None, reason
    info = training_info(path)
    note = f"loaded {path.name}: {info['pairs']} training pairs, trained in {info['seconds']} s, {info['size_mb']} MB"
    if "train_loss" in info:  # a loss no lower than a constant guess's means the model learnt nothing
        note += f"; training loss {info['train_loss']} (a constant guess: {info['constant_guess_loss']})"
    return CrossEncoderReranker(path, name="minilm-finetuned"), note


__all__ = [
    "NAMES",
    "TRAIN_COMMAND",
    "CrossEncoderReranker",
    "LLMReranker",
    "MaxSimReranker",
    "Reranked",
    "Reranker",
    "finetuned_path",
    "load_finetuned",
    "make_reranker",
    "order_by_scores",
]
