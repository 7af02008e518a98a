"""Generation: LLM clients behind one small interface, the grounded prompt, and the `Answer`.

`LocalLLM` runs the packaged GGUF model with llama-cpp-python; `OpenAICompatibleLLM` talks to any
OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, a llama.cpp server). Both take chat messages and
return text, optionally streamed. The prompt puts the grounding rules first (so llama.cpp serves them
from its KV cache), numbers each context passage, and repeats the refusal rule in the user message,
where a 0.5B model actually follows it.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from helpers.config import Settings, get_settings
from helpers.models import llm_gguf_path
from helpers.store import Hit

SYSTEM_PROMPT = (
    "You answer questions about a university program using only the numbered context passages. "
    "Give a short answer and cite the passage number in square brackets. "
    "If the passages do not contain the answer, say: I don't know based on the program documents."
)

USER_TEMPLATE = "Context:\n{context}\n\nQuestion: {question}"

# Two worked turns before the real question: a 0.5B model follows a shown pattern far better than a rule.
# They are a fixed prefix, so llama.cpp serves them from its KV cache after the first question.
FEW_SHOT_TURNS = [
    {
        "role": "user",
        "content": USER_TEMPLATE.format(
            context="[1] The library is open from 8 am to 10 pm on weekdays.\n\n"
            "[2] Each lab course charges a materials fee of $40 per quarter.\n\n"
            "[3] Students may borrow up to 20 books at a time.",
            question="How much is the lab materials fee?",
        ),
    },
    {"role": "assistant", "content": "The lab materials fee is $40 per quarter [2]."},
    {
        "role": "user",
        "content": USER_TEMPLATE.format(
            context="[1] The library is open from 8 am to 10 pm on weekdays.\n\n"
            "[2] Students may borrow up to 20 books at a time.",
            question="When does the gym open?",
        ),
    },
    {"role": "assistant", "content": "I don't know based on the program documents."},
]

REFUSAL = "I don't know based on the program documents."


class LLMError(RuntimeError):
    """The language model could not answer; the message says why and what to try."""


@dataclass
class Completion:
    """Text from the model with its token counts and timings."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float

    @property
    def tokens_per_second(self) -> float:
        """Generation speed (completion tokens over the whole call)."""
        return self.completion_tokens / self.seconds if self.seconds else 0.0


class LLM(Protocol):
    """What the kit needs from a language model."""

    name: str

    def chat(self, messages: list[dict[str, str]], max_tokens: int) -> Completion: ...

    def stream(self, messages: list[dict[str, str]], max_tokens: int) -> Iterator[str]: ...

    def close(self) -> None: ...


class LocalLLM:
    """A GGUF model run in-process by llama-cpp-python (deterministic at temperature 0)."""

    def __init__(self, settings: Settings | None = None) -> None:
        from llama_cpp import Llama

        self.settings = settings or get_settings()
        path = llm_gguf_path(self.settings)
        self.name = self.settings.llm_name
        self._llama = Llama(
            model_path=str(path),
            n_ctx=self.settings.llm_context_tokens,
            n_threads=self.settings.llm_threads,
            seed=self.settings.seed,
            verbose=False,
        )

    def chat(self, messages: list[dict[str, str]], max_tokens: int) -> Completion:
        """One chat completion."""
        start = time.perf_counter()
        out: Any = self._llama.create_chat_completion(
            messages=messages, max_tokens=max_tokens, temperature=self.settings.temperature, seed=self.settings.seed
        )
        usage = out["usage"]
        return Completion(
            out["choices"][0]["message"]["content"] or "",
            usage["prompt_tokens"],
            usage["completion_tokens"],
            time.perf_counter() - start,
        )

    def stream(self, messages: list[dict[str, str]], max_tokens: int) -> Iterator[str]:
        """Yield the answer piece by piece as it is generated."""
        chunks: Any = self._llama.create_chat_completion(
            messages=messages, max_tokens=max_tokens, temperature=self.settings.temperature, stream=True
        )
        for chunk in chunks:
            piece = chunk["choices"][0]["delta"].get("content")
            if piece:
                yield piece

    def count_tokens(self, text: str) -> int:
        """Tokens of `text` in this model's own tokenizer."""
        return len(self._llama.tokenize(text.encode("utf-8"), add_bos=False))

    def close(self) -> None:
        """Free the model (avoids llama-cpp-python's traceback at interpreter exit)."""
        self._llama.close()


class OpenAICompatibleLLM:
    """Any OpenAI-compatible chat endpoint, through the `openai` package."""

    def __init__(self, settings: Settings | None = None) -> None:
        from openai import OpenAI

        self.settings = settings or get_settings()
        self.name = self.settings.llm_name
        self._client = OpenAI(
            base_url=self.settings.openai_base_url or None,
            api_key=self.settings.openai_api_key or "not-needed",
            timeout=self.settings.request_timeout_s,
            max_retries=2,
        )

    def chat(self, messages: list[dict[str, str]], max_tokens: int) -> Completion:
        """One chat completion from the endpoint."""
        from openai import OpenAIError

        start = time.perf_counter()
        try:
            out = self._client.chat.completions.create(
                model=self.settings.openai_model,
                messages=messages,  # type: ignore[arg-type]
                max_tokens=max_tokens,
                temperature=self.settings.temperature,
            )
        except OpenAIError as err:
            raise LLMError(f"the endpoint {self.name} failed: {type(err).__name__}") from None
        usage = out.usage
        return Completion(
            out.choices[0].message.content or "",
            usage.prompt_tokens if usage else 0,
            usage.completion_tokens if usage else 0,
            time.perf_counter() - start,
        )

    def stream(self, messages: list[dict[str, str]], max_tokens: int) -> Iterator[str]:
        """Yield the answer piece by piece from the endpoint."""
        response = self._client.chat.completions.create(
            model=self.settings.openai_model,
            messages=messages,  # type: ignore[arg-type]
            max_tokens=max_tokens,
            temperature=self.settings.temperature,
            stream=True,
        )
        for chunk in response:
            if chunk.choices and chunk.choices[0].delta.content:
                yield chunk.choices[0].delta.content

    def close(self) -> None:
        """Close the HTTP client."""
        self._client.close()


def make_llm(settings: Settings | None = None) -> LLM:
    """The configured LLM: local GGUF by default, an OpenAI-compatible endpoint when set."""
    settings = settings or get_settings()
    return OpenAICompatibleLLM(settings) if settings.llm_backend == "openai" else LocalLLM(settings)


@dataclass
class Citation:
    """A number in the answer, mapped back to the chunk it points at."""

    number: int
    source: str
    page: Any
    chunk: Any
    node_id: str

    def __str__(self) -> str:
        where = f", page {self.page}" if self.page not in (None, "") else ""
        return f"[{self.number}] {self.source}{where}, chunk {self.chunk}"


@dataclass
class Answer:
    """What the pipeline returns: text, citations, the hits and prompt used, tokens and timings."""

    question: str
    text: str
    citations: list[Citation]
    hits: list[Hit]
    messages: list[dict[str, str]]
    prompt_tokens: int = 0
    completion_tokens: int = 0
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def refused(self) -> bool:
        """Whether the answer says the documents do not contain it."""
        return is_refusal(self.text)

    def __str__(self) -> str:
        cited = {c.number for c in self.citations}
        lines = [self.text, "", "Sources (* = cited in the answer):"]
        for number, hit in enumerate(self.hits, start=1):
            page = hit.metadata.get("page")
            where = f", page {page}" if page not in (None, "") else ""
            mark = "*" if number in cited else " "
            lines.append(f" {mark}[{number}] {hit.source}{where}, chunk {hit.metadata.get('chunk')}")
        timing = ", ".join(f"{k} {v:.2f} s" for k, v in self.timings.items())
        lines.append(f"timings: {timing}")
        return "\n".join(lines)


def format_context(hits: Sequence[Hit]) -> str:
    """Number the passages: '[1] text', '[2] text' …"""
    blocks = []
    for number, hit in enumerate(hits, start=1):
        blocks.append(f"[{number}] {hit.text.strip()}")
    return "\n\n".join(blocks)


def build_messages(question: str, hits: Sequence[Hit]) -> list[dict[str, str]]:
    """The chat messages: grounding rules, two worked examples, then numbered context and the question."""
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        *FEW_SHOT_TURNS,
        {"role": "user", "content": USER_TEMPLATE.format(context=format_context(hits), question=question)},
    ]


def extract_citations(text: str, hits: Sequence[Hit]) -> list[Citation]:
    """The passages the answer cites ([1], [2] …), each mapped to its source and chunk, in order."""
    citations: list[Citation] = []
    seen: set[int] = set()
    for match in re.finditer(r"\[(\d+(?:\s*,\s*\d+)*)\]", text):
        for number in (int(n) for n in match.group(1).split(",")):
            if 1 <= number <= len(hits) and number not in seen:
                seen.add(number)
                hit = hits[number - 1]
                citations.append(
                    Citation(number, hit.source, hit.metadata.get("page"), hit.metadata.get("chunk"), hit.node_id)
                )
    return citations


def is_refusal(text: str) -> bool:
    """Whether a reply says the context lacks the answer."""
    lowered = text.lower()
    return any(p in lowered for p in ("i don't know", "i do not know", "not contain", "no information"))
