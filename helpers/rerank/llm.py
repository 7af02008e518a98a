"""LLM pointwise reranking: score each (question, chunk) by the local generator's probability of "Yes".

One pass through the model gives the next token's logits: the score is p(Yes) / (p(Yes) + p(No)). The question
comes first, so llama.cpp keeps it in its KV cache; scores are cached on disk by model + prompt hash.
What it leaves out: listwise prompts and remote endpoints (an OpenAI-compatible API gives no next-token logits).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from helpers.config import Settings
from helpers.llm.cache import DiskCache, prompt_key
from helpers.rerank.base import order_by_scores, passage_text
from helpers.types import Hit

SYSTEM = "You judge search results. Answer only Yes or No."
# The question first, the passage last: the shared prefix of one question's candidates is served from cache.
TEMPLATE = (
    "Question: {question}\n\nDoes the passage below contain the answer to the question? Answer Yes or No.\n\n"
    "Passage: {passage}"
)
MAX_PASSAGE_CHARS = 1200  # about 300 tokens: bounds the prefill time per pair


def chatml(question: str, passage: str) -> str:
    """The prompt in ChatML (the chat format of Qwen2.5 and SmolLM2), ending where the assistant starts."""
    user = TEMPLATE.format(question=question, passage=passage[:MAX_PASSAGE_CHARS])
    return f"<|im_start|>system\n{SYSTEM}<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n<|im_start|>assistant\n"


class LLMReranker:
    """Rerank by the local LLM's p(Yes) for "does this passage answer the question?"."""

    name = "llm-pointwise"

    def __init__(self, get_llama: Callable[[], Any], model_name: str, cache: DiskCache | None = None) -> None:
        self._get_llama = get_llama  # called on the first cache miss only: cached re-runs never load the model
        self.model_name = model_name
        self.cache = cache
        self.pair_seconds: list[float] = []  # real model time per pair (stored in the cache with each score)

    @classmethod
    def from_llm(cls, llm: Callable[[], Any], settings: Settings) -> LLMReranker:
        """Use a local model (llama-cpp-python; `llm()` builds or returns it) and the kit's LLM cache."""
        from helpers.llm.cache import llm_cache

        if settings.llm.llm_backend != "local":
            raise RuntimeError("the LLM reranker needs next-token logits, which only the local GGUF backend gives")
        return cls(lambda: llm()._llama, settings.llm.name, llm_cache(settings))

    def p_yes(self, question: str, passage: str) -> float:
        """p(Yes) / (p(Yes) + p(No)) for the next token after the prompt."""
        prompt = chatml(question, passage)
        key = prompt_key(self.model_name, {"p_yes": prompt})
        if self.cache is not None and (cached := self.cache.get(key)) is not None:
            if isinstance(cached, dict):  # {"p", "seconds"}; a bare number (older entry) has no timing
                self.pair_seconds.append(cached["seconds"])
                return float(cached["p"])
            return float(cached)
        start = time.perf_counter()
        llama = self._get_llama()
        tokens = llama.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)
        # 1. keep the KV cache for the prefix this prompt shares with the previous one (≥ 1 token to evaluate)
        shared = llama.longest_token_prefix(llama.input_ids[: llama.n_tokens].tolist(), tokens)
        llama.n_tokens = min(shared, len(tokens) - 1)
        # 2. evaluate the rest; the last token's logits are the distribution of the answer's first token
        llama.eval(tokens[llama.n_tokens :])
        logits = np.ctypeslib.as_array(llama._ctx.get_logits(), shape=(llama.n_vocab(),))
        # 3. compare the best-scoring spelling of Yes against the best of No
        yes = max(logits[t] for t in _first_tokens(llama, ("Yes", "yes", " Yes")))
        no = max(logits[t] for t in _first_tokens(llama, ("No", "no", " No")))
        score = float(1.0 / (1.0 + np.exp(no - yes)))
        self.pair_seconds.append(time.perf_counter() - start)
        if self.cache is not None:
            self.cache.put(key, {"p": score, "seconds": self.pair_seconds[-1]})
        return score

    def score(self, query: str, hits: Sequence[Hit]) -> list[float]:
        """p(Yes) of every hit."""
        return [self.p_yes(query, passage_text(hit)) for hit in hits]

    def rerank(self, query: str, hits: Sequence[Hit], top_n: int) -> list[Hit]:
        """The top_n hits by p(Yes)."""
        return order_by_scores(hits, self.score(query, hits), top_n)


def _first_tokens(llama: Any, words: Sequence[str]) -> set[int]:
    """The first token id of each spelling."""
    return {llama.tokenize(word.encode("utf-8"), add_bos=False, special=False)[0] for word in words}
