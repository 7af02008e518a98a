"""Context assembly under a token budget (the UChicago assistant's split: system, context, question, answer, buffer).

Passages are fitted best first (the slot "budget"): whole while they fit, then the first that does not is cut at a
word (" …") if a useful piece fits. Tokens are tiktoken cl100k_base's; the buffer absorbs the model's own.
What it leaves out: summarising chunks to fit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pandas as pd

from helpers.chunking.base import count_tokens, encoding
from helpers.config import GenerationSettings, LLMSettings, Settings
from helpers.mechanisms import chosen
from helpers.types import Hit

MIN_PIECE_TOKENS = 40  # a truncated chunk shorter than this is noise: drop it instead
LABEL_TOKENS = 4  # what numbering adds to a passage: its "[n] " label and the blank line after it
CUT_MARK = " …"  # the end of a passage cut to fit


def cut_to_tokens(text: str, limit: int) -> str:
    """The start of `text` within `limit` tokens, ending on a whole word, marked with ' …'."""
    tokens = encoding().encode(text, disallowed_special=())
    if len(tokens) <= limit:
        return text
    head = encoding().decode(tokens[: max(limit - 2, 0)])
    return head.rsplit(" ", 1)[0] + CUT_MARK


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


def fit_passages(passages: list[str], room: int, count: Callable[[str], int] = count_tokens) -> list[str]:
    """The kit's "budget" slot: the passages that fit in `room` tokens (counted by `count`), in rank order."""
    kept: list[str] = []
    used = 0
    for text in passages:
        # 1. a numbered passage costs its text plus its label
        cost = count(text) + LABEL_TOKENS
        if used + cost <= room:
            kept.append(text)
            used += cost
            continue
        # 2. the first passage that does not fit: keep its start if a useful piece remains, then stop
        left = room - used - LABEL_TOKENS
        if left >= MIN_PIECE_TOKENS:
            kept.append(cut_to_tokens(text, left))
        break
    return kept


def _source_hit(text: str, hits: Sequence[Hit]) -> Hit | None:
    """The hit a kept text comes from: the one with this text, else the one it is the start of (a cut)."""
    exact = next((hit for hit in hits if hit.text == text), None)
    stem = text.removesuffix(CUT_MARK)
    return exact or next((hit for hit in hits if stem and hit.text.startswith(stem)), None)


def fit_context(hits: Sequence[Hit], room: int) -> list[Hit]:
    """The hits whose texts the "budget" slot keeps in `room` tokens, a cut text in a copy of its hit."""
    texts = chosen("budget", fit_passages)([hit.text for hit in hits], room, count_tokens)
    remaining, kept = list(hits), []
    for text in texts:
        hit = _source_hit(text, remaining)
        if hit is None:
            continue
        remaining.remove(hit)
        kept.append(hit if hit.text == text else Hit(hit.node_id, text, hit.metadata, dict(hit.scores)))
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
