"""The whole of RAG on one screen (notebook 00): embed, cosine top-k, a numbered prompt, the LLM, citations.

    >>> TinyRAG(chunks, Embedder(settings), make_llm(settings)).ask("What is the application fee?").text  # '$90 [1]'

What it leaves out: everything `RAGPipeline` adds (store, BM25, budget, refusal, guard, reranking, caching).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from helpers.config import RetrievalSettings
from helpers.embedding.similarity import cosine_top_k
from helpers.generation.prompts import SHORT_INSTRUCTIONS, SYSTEM_PROMPT, numbered_prompt
from helpers.mechanisms import chosen

# The kit's own rules and its short-answer instruction: `RAGPipeline` with its extras off sends this very prompt.
SYSTEM = SYSTEM_PROMPT
INSTRUCTION = SHORT_INSTRUCTIONS["forced"]


@dataclass(frozen=True)
class Chunk:
    """A piece of a document, where it came from, and (when it differs) the text the embedder sees."""

    text: str
    source: str
    embedded: str = ""


@dataclass
class Reply:
    """The answer, the numbered passages it was given (with their cosine), and the numbers it cited."""

    text: str
    passages: list[tuple[Chunk, float]]
    messages: list[dict[str, str]] = field(repr=False)
    cited: list[int] = field(default_factory=list)

    def __str__(self) -> str:
        lines = [self.text]
        for number, (chunk, score) in enumerate(self.passages, start=1):
            mark = "*" if number in self.cited else " "
            lines.append(f"{mark}[{number}] {chunk.source} (cosine {score:.3f})")
        return "\n".join(lines)


def search(matrix: np.ndarray, query: np.ndarray, k: int) -> list[tuple[int, float]]:
    """The k rows of `matrix` nearest `query` (the "top_k" slot): for unit-length rows, cosine is a dot product."""
    return chosen("top_k", cosine_top_k)(matrix, query, k)


def build_prompt(question: str, passages: Sequence[Chunk]) -> list[dict[str, str]]:
    """Chat messages: the rules, the numbered passages and the question (the "prompt" slot), the instruction."""
    context_and_question = chosen("prompt", numbered_prompt)(question, [chunk.text for chunk in passages])
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"{context_and_question}\n\n{INSTRUCTION}"},
    ]


def cited_numbers(text: str, how_many: int) -> list[int]:
    """The passage numbers an answer cites ("[2]", "[1, 3]"), only those that exist, in order, once each."""
    found = [int(n) for group in re.findall(r"\[([\d,\s]+)\]", text) for n in re.findall(r"\d+", group)]
    return list(dict.fromkeys(n for n in found if 1 <= n <= how_many))


class TinyRAG:
    """Retrieval-augmented generation in its smallest honest form, over chunks held in memory."""

    def __init__(
        self, chunks: Sequence[Chunk], embedder: Any, llm: Any, k: int = RetrievalSettings().top_k, max_tokens: int = 48
    ) -> None:
        self.chunks, self.embedder, self.llm, self.k, self.max_tokens = list(chunks), embedder, llm, k, max_tokens
        self.matrix = embedder.embed_texts([c.embedded or c.text for c in self.chunks])  # a unit-length row each

    def retrieve(self, question: str) -> list[tuple[Chunk, float]]:
        """The k chunks nearest the question, with their cosine similarity."""
        query = self.embedder.embed_query(question)
        return [(self.chunks[i], score) for i, score in search(self.matrix, query, self.k)]

    def ask(self, question: str) -> Reply:
        """Retrieve, prompt, generate, and read the citations back out of the answer."""
        passages = self.retrieve(question)
        messages = build_prompt(question, [chunk for chunk, _ in passages])
        text = self.llm.chat(messages, max_tokens=self.max_tokens).text.strip()
        return Reply(text, passages, messages, cited_numbers(text, len(passages)))


def course_chunks(settings: Any) -> list[Chunk]:
    """The course documents parsed and cut by the configured chunker, as chunks with their source file."""
    from helpers.chunking import chunk_for_settings
    from helpers.parsing import parse_folder

    documents = parse_folder(settings.paths.corpus_dir, progress=False, cache_dir=settings.paths.cache_dir).documents
    return [
        Chunk(node.text, str(node.metadata.get("source", "?")), node.get_content(metadata_mode="embed"))
        for node in chunk_for_settings(documents, settings.chunking)
    ]
