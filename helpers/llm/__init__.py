"""The language model, at the bottom of the package: every stage that asks an LLM takes it from `make_llm`.

`client.py` (the clients), `cache.py` (the one cache of outputs), `shipped.py` (the answers shipped with the course,
checked live), `server.py` (the kit's GGUF behind llama.cpp's server). What it leaves out: prompts and answers.
"""

from __future__ import annotations

from helpers.config import Settings
from helpers.llm.cache import CachedCompleter, CachedLLM, DiskCache, llm_cache
from helpers.llm.client import LLM, Completion, LLMError, LocalLLM, OpenAICompatibleLLM
from helpers.llm.shipped import shipped_report


def make_llm(settings: Settings, cache: bool = True) -> LLM:
    """The configured LLM (local GGUF by default, an OpenAI-compatible endpoint when set), cached on disk."""
    llm: LLM = OpenAICompatibleLLM(settings) if settings.llm.llm_backend == "openai" else LocalLLM(settings)
    return CachedLLM(llm, settings) if cache else llm


__all__ = [
    "LLM",
    "CachedCompleter",
    "CachedLLM",
    "Completion",
    "DiskCache",
    "LLMError",
    "LocalLLM",
    "OpenAICompatibleLLM",
    "llm_cache",
    "make_llm",
    "shipped_report",
]
