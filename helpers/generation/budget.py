"""Context assembly under a token budget (the UChicago assistant's split: system, context, question, answer, buffer).

The model's window is shared: the answer needs room reserved before the prompt is sent, and the
context gets what the system prompt, examples and question leave, capped by its own share. Chunks go
in rank order (best first, numbered [1], [2] …, so the most relevant passage sits at the top, where
small models look). Every chunk that fits goes in whole; the first one that does not is cut at a word
boundary if a useful piece still fits (marked " …"), and the rest are dropped — so a truncation
always loses the lowest-ranked text. Tokens are counted with tiktoken cl100k_base (the kit's tokenizer);
the buffer absorbs the difference to the model's own tokenizer. What it leaves out: summarising chunks
to fit, reordering for "lost in the middle".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import pandas as pd

from helpers.config import GenerationSettings, LLMSettings, Settings
from helpers.types import Hit

MIN_PIECE_TOKENS = 40  # a truncated chunk shorter than this is noise: drop it instead


@lru_cache(maxsize=1)
def _encoding() -> Any:
    import tiktoken

    return tiktoken.get_encoding("cl100k_base")


def count_tokens(text: str) -> int:
    """Tokens of `text` in cl100k_base."""
    return len(_encoding().encode(text))


def cut_to_tokens(text: str, limit: int) -> str:
    """The start of `text` within `limit` tokens, ending on a whole word, marked with ' …'."""
    tokens = _encoding().encode(text)
    if len(tokens) <= limit:
        return text
    head = _encoding().decode(tokens[: max(limit - 2, 0)])
    return head.rsplit(" ", 1)[0] + " …"


@dataclass(frozen=True)
class TokenBudget:
    """How the model's window is shared (tokens)."""

    total: int = LLMSettings().llm_context_tokens  # the model's context window
    answer: int = LLMSettings().llm_max_answer_tokens  # reserved for the reply
    context: int = GenerationSettings().context_tokens  # the most the retrieved passages may take
    buffer: int = 100  # tokenizer differences and chat-template tokens

    @classmethod
    def from_settings(cls, settings: Settings) -> TokenBudget:
        """The budget the settings give: window and answer room (the llm section), context share (generation)."""
        llm, generation = settings.llm, settings.generation
        return cls(llm.llm_context_tokens, llm.llm_max_answer_tokens, generation.context_tokens)

    def context_room(self, fixed_tokens: int) -> int:
        """Tokens left for passages once the system prompt, examples and question (`fixed_tokens`) are in."""
        return max(0, min(self.context, self.total - self.answer - self.buffer - fixed_tokens))


def fit_context(hits: Sequence[Hit], room: int, min_piece: int = MIN_PIECE_TOKENS) -> list[Hit]:
    """The hits that fit in `room` tokens, in rank order; the first that does not fit is cut, the rest dropped."""
    kept: list[Hit] = []
    used = 0
    for hit in hits:
        # 1. a numbered passage costs its text plus the "[n] " label and the blank line
        cost = count_tokens(hit.text) + 4
        if used + cost <= room:
            kept.append(hit)
            used += cost
            continue
        # 2. the first chunk that does not fit: keep its start if a useful piece remains, then stop
        left = room - used - 4
        if left >= min_piece:
            kept.append(Hit(hit.node_id, cut_to_tokens(hit.text, left), hit.metadata, dict(hit.scores)))
        break
    return kept


def budget_table(messages: list[dict[str, str]], budget: TokenBudget, context_text: str) -> pd.DataFrame:
    """Where the window went for one prompt: system, examples, context, question, answer, buffer, free."""
    system = count_tokens(messages[0]["content"])
    examples = sum(count_tokens(m["content"]) for m in messages[1:-1])
    context = count_tokens(context_text)
    question = count_tokens(messages[-1]["content"]) - context
    rows = {"system prompt": system, "examples": examples, "context": context, "question + instruction": question}
    rows |= {"answer (reserved)": budget.answer, "buffer": budget.buffer}
    rows["free"] = budget.total - sum(rows.values())
    table = pd.DataFrame({"tokens": rows})
    table["share"] = (table["tokens"] / budget.total).round(3)
    return table
