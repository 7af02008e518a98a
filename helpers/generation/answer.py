"""From retrieved hits to an `Answer`: passage guard, refusal fallback, budgeted prompt, LLM, clean-up, citations.

Statuses: "no_context" (best similarity below the threshold: no LLM call), "refused", "answered" (each [n] mapped
back to its chunk), and "rejected" (the input guard, in `RAGPipeline.ask`).
What it leaves out: retrieval, and checking that a cited passage supports the claim (notebook 07 measures it).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from helpers.chunking.base import count_tokens
from helpers.config import GenerationSettings
from helpers.generation.budget import TokenBudget, fit_context
from helpers.generation.guard import PassageFlag, clean_output, echoed_order, screen_hits
from helpers.generation.prompts import (
    DEFAULT_STYLE,
    REFUSAL,
    SHORT_REFUSAL,
    USER_TEMPLATE,
    Example,
    build_messages,
    closed_book_messages,
)
from helpers.llm.client import LLM, Completion
from helpers.metrics.answers import answer_support
from helpers.types import Hit

CONFIGURED = GenerationSettings()  # the configured defaults of the passages' titles and order (helpers.config)
SHORT_MAX_TOKENS = 48  # a short phrase never needs more; a rambling 0.5B model would otherwise take seconds
STATUSES = ("answered", "refused", "no_context", "rejected")
_REFUSAL_PHRASES = ("i don't know", "i do not know", "not contain", "no information", "not mentioned", "unknown")


# What names a hit's part of its document, first found first: headings, a catalog entry, a slide title, a sheet.
SECTION_KEYS = ("section_path", "heading", "entry", "slide_title", "sheet")


TITLE_WORDS = 12  # a title longer than this is cut: it names the page, the passage carries the facts


def titled(hit: Hit) -> Hit:
    """A copy of `hit` whose text starts with its document's title in brackets, unless it starts with it already.

    >>> titled(Hit("n1", "Classes start May 26.", {"title": "Summer Session"})).text
    '(Summer Session) Classes start May 26.'
    """
    title = " ".join(str(hit.metadata.get("title") or "").split()[:TITLE_WORDS])
    if not title or hit.text.startswith(title):
        return hit
    return Hit(hit.node_id, f"({title}) {hit.text}", hit.metadata, dict(hit.scores))


def hit_section(metadata: Mapping[str, Any]) -> str:
    """The section a hit's metadata names (see SECTION_KEYS), or ""."""
    return next((str(metadata[key]) for key in SECTION_KEYS if metadata.get(key) not in (None, "")), "")


def place(page: Any, section: str = "") -> str:
    """Where in its source a chunk is: ", page P, Section", each part only when there is one."""
    where = f", page {page}" if page not in (None, "") else ""
    return f"{where}, {section}" if section else where


@dataclass
class Citation:
    """A number in the answer, mapped back to the chunk it points at (and the section that holds it)."""

    number: int
    source: str
    page: Any
    chunk: Any
    node_id: str
    section: str = ""

    def __str__(self) -> str:
        return f"[{self.number}] {self.source}{place(self.page, self.section)}, chunk {self.chunk}"


@dataclass
class Answer:
    """What the pipeline returns: text, citations, the hits and prompt used, tokens, timings and status."""

    question: str
    text: str
    citations: list[Citation]
    hits: list[Hit]
    messages: list[dict[str, str]]
    prompt_tokens: int = 0
    completion_tokens: int = 0
    timings: dict[str, float] = field(default_factory=dict)
    status: str = "answered"  # one of STATUSES
    cached: bool = False
    flagged: list[tuple[Hit, PassageFlag]] = field(default_factory=list)  # retrieved passages that give orders
    retrieval: str = ""  # the retriever that found the hits, in the order a query meets it (`repr`)

    @property
    def refused(self) -> bool:
        """Whether the answer declines (the model said so, or retrieval found nothing close enough)."""
        return self.status in ("refused", "no_context")

    def __str__(self) -> str:
        cited = {c.number for c in self.citations}
        lines = [self.text, "", "Sources (* = cited in the answer):"]
        for number, hit in enumerate(self.hits, start=1):
            where = place(hit.metadata.get("page"), hit_section(hit.metadata))
            mark = "*" if number in cited else " "
            lines.append(f" {mark}[{number}] {hit.source}{where}, chunk {hit.metadata.get('chunk')}")
        timing = ", ".join(f"{k} {v:.2f} s" for k, v in self.timings.items())
        if self.cached:  # the generation time is the original call's; this run read the answer from disk
            timing += " (answer from the cache: generate is the time of the original call)"
        for hit, flag in self.flagged:
            where = place(hit.metadata.get("page"), hit_section(hit.metadata))
            lines.append(f"flagged {hit.source}{where}, chunk {hit.metadata.get('chunk')}: {flag}")
        if self.retrieval:
            lines.append(f"retrieval: {self.retrieval}")
        lines.append(f"timings: {timing}")
        return "\n".join(lines)


def extract_citations(text: str, hits: Sequence[Hit]) -> list[Citation]:
    """The passages the answer cites ([1], [2, 3] …), each mapped to its source, page, section and chunk, in order."""
    found = [int(n) for match in re.finditer(r"\[(\d+(?:\s*,\s*\d+)*)\]", text) for n in match.group(1).split(",")]
    citations = []
    for number in dict.fromkeys(n for n in found if 1 <= n <= len(hits)):  # in order, once each
        hit = hits[number - 1]
        page, chunk = hit.metadata.get("page"), hit.metadata.get("chunk")
        citations.append(Citation(number, hit.source, page, chunk, hit.node_id, hit_section(hit.metadata)))
    return citations


def strip_citations(text: str) -> str:
    """The text without its [n] markers (for SQuAD scoring)."""
    return " ".join(re.sub(r"\[\d+(?:\s*,\s*\d+)*\]", "", text).split()).rstrip(" .")


def is_refusal(text: str) -> bool:
    """Whether a reply says the context lacks the answer."""
    lowered = text.lower().strip()
    return not lowered or any(phrase in lowered for phrase in _REFUSAL_PHRASES)


def best_similarity(hits: Sequence[Hit]) -> float:
    """The best dense (cosine) score among the hits; fused scores are rescaled per query, so not those."""
    dense = [h.scores["dense"] for h in hits if "dense" in h.scores]
    return max(dense) if dense else max((h.score for h in hits), default=0.0)


def _complete(llm: LLM, messages: list[dict[str, str]], max_tokens: int, on_token: Callable[[str], None] | None):
    """One call to the model; with `on_token`, streamed piece by piece (first-token time measured)."""
    if on_token is None:
        return llm.chat(messages, max_tokens), None
    start, first, pieces = time.perf_counter(), None, []
    for piece in llm.stream(messages, max_tokens):
        first = first if first is not None else time.perf_counter() - start
        pieces.append(piece)
        on_token(piece)
    text = "".join(pieces)
    prompt_tokens = sum(count_tokens(m["content"]) for m in messages)  # estimated: a stream carries no usage
    return Completion(text, prompt_tokens, count_tokens(text), time.perf_counter() - start), first


def generate_answer(
    question: str,
    hits: Sequence[Hit],
    llm: LLM,
    *,
    mode: str = "sentence",
    examples: Sequence[Example] | None = None,
    budget: TokenBudget | None = None,
    refusal_threshold: float = 0.0,
    on_token: Callable[[str], None] | None = None,
    style: str = DEFAULT_STYLE,
    template: str = USER_TEMPLATE,
    support_floor: float = 0.0,
    titles: bool = CONFIGURED.passage_titles,
    best_last: bool = CONFIGURED.best_passage_last,
    passage_guard: str = CONFIGURED.passage_guard,
) -> Answer:
    """A grounded answer from `hits`, or a refusal (the settings of the same names say what each argument does).

    `refusal_threshold` 0: no similarity floor; `support_floor`: a short answer with less than this share of its
    words in the passages is refused (0 keeps every answer); `best_last`: the kept passages are numbered worst first.
    """
    budget = budget or TokenBudget()
    # 0. documents are data: a passage that gives the assistant orders does not reach it as one
    hits, flagged = screen_hits(hits, passage_guard)
    # 1. nothing close enough: the fixed fallback, no LLM call
    if not hits or best_similarity(hits) < refusal_threshold:
        return Answer(question, REFUSAL, [], list(hits), [], status="no_context", flagged=flagged)
    # 2. fit the passages into what the window leaves for context
    fixed = sum(count_tokens(m["content"]) for m in build_messages(question, [], mode, examples, style, template))
    used = fit_context([titled(hit) for hit in hits] if titles else hits, budget.context_room(fixed))
    used = used[::-1] if best_last else used  # the budget still cuts the worst: reversed after fitting
    messages = build_messages(question, used, mode, examples, style, template)
    # 3. ask the model, then tidy the reply
    max_tokens = budget.answer if mode == "sentence" else min(budget.answer, SHORT_MAX_TOKENS)
    completion, first_token = _complete(llm, messages, max_tokens, on_token)
    text = clean_output(completion.text)
    timings = {"generate": completion.seconds} | ({"first_token": first_token} if first_token is not None else {})
    status = "refused" if is_refusal(text) else "answered"
    if status == "answered" and flagged and passage_guard == "fence":
        # a fenced order the answer repeats (its code word, address, phone number): the order won, so refuse
        others = [hit.text for hit in used if all(hit.node_id != flagged_hit.node_id for flagged_hit, _ in flagged)]
        status = "refused" if echoed_order(text, [flag.sentence for _, flag in flagged], others) else status
    if status == "answered" and mode == "short" and support_floor > 0:
        # 4. the grounding check: an answer whose words the passages do not hold is refused
        passages = " ".join(hit.text for hit in used)
        status = "refused" if answer_support(strip_citations(text), passages) < support_floor else status
    if status == "refused":
        text = REFUSAL if mode == "sentence" else SHORT_REFUSAL  # a clean refusal, not the model's hedging
    citations = extract_citations(text, used) if status == "answered" else []
    return Answer(
        question, text, citations, used, messages, completion.prompt_tokens, completion.completion_tokens,
        timings, status, completion.cached, flagged,
    )  # fmt: skip


def closed_book_answer(question: str, llm: LLM, max_tokens: int = 64) -> Answer:
    """The baseline: the model answers from memory, no retrieval (short-answer mode)."""
    messages = closed_book_messages(question)
    completion = llm.chat(messages, max_tokens)
    text = clean_output(completion.text)
    status = "refused" if is_refusal(text) else "answered"
    timings = {"generate": completion.seconds}
    return Answer(
        question, text, [], [], messages, completion.prompt_tokens, completion.completion_tokens, timings, status,
        completion.cached,
    )  # fmt: skip
