"""Question–answer pairs written by the local LLM from corpus chunks, every reply validated and cached on disk.
Style "answer_first" (the default: more pairs pass the filters) picks the answer span (`answer_candidates`) and
asks only for a question; "free" lets the model pick the answer too.
What it leaves out: judging the pairs (quality.py does that) and several questions per chunk.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError
from tqdm.auto import tqdm

from helpers.config import Settings, get_settings
from helpers.llm.cache import DiskCache, llm_cache, prompt_key
from helpers.types import Hit

MIN_CHUNK_CHARS = 200
MAX_PASSAGE_CHARS = 1200  # keeps the prompt short for the 0.5B model
MAX_TOKENS = 96


class QAPair(BaseModel):
    """What the LLM writes about one chunk."""

    question: str = Field(max_length=200)
    answer: str = Field(max_length=100)


SCHEMA = QAPair.model_json_schema()
SYSTEM_PROMPT = (
    "You write questions for a test about a university program's documents. Read the passage and write one "
    "question a student could ask, and its answer. The answer is a short phrase (1 to 6 words) copied exactly "
    "from the passage. The question must make sense on its own: name the course, office, fee or policy it is "
    'about, and never mention "the passage" or "the text". Use your own words, do not copy a sentence. '
    'Reply with JSON only: {"question": "...", "answer": "..."}'
)


ANSWER_FIRST_PROMPT = (
    "You write questions for a test about a university program's documents. You get a passage and an answer "
    "taken from it. Write one question a student could ask whose answer is exactly that answer. Say what the "
    'question is about in its own words, never mention "the passage", and do not put the answer in it. '
    'Example: for the answer "$90" in "The application fee is $90 and cannot be waived." write '
    '{"question": "How much is the application fee?"}. Reply with JSON only: {"question": "..."}'
)
STYLES = ("free", "answer_first")
CANDIDATE = re.compile(
    r"\$\d[\d,]*(?:\.\d\d)?(?: per \w+)?"  # $1,245 per unit
    r"|\b(?:January|February|March|April|May|June|July|August|September|October|November|December) \d{1,2}"
    r"(?:, \d{4})?"  # September 24, 2026
    r"|\b\d{1,2}(?::\d\d)? ?(?:am|pm)\b"  # 9:00 am
    r"|\bADS \d{3}[A-Z]?\b"  # ADS 631
    r"|\b[A-Z]{2,4} ?[A-Z]?\d{2,3}\b"  # QEB 240, BWL 110
    r"|\b\d+(?:\.\d+)? (?:units?|credits?|weeks?|days?|hours?|GPU-hours|students|percent|%|pages|minutes)\b"
)


class QuestionOnly(BaseModel):
    """What the LLM writes when the answer is given."""

    question: str = Field(max_length=200)


def answer_candidates(text: str) -> list[str]:
    """Short factual spans of the text a question can be asked about, in order of appearance, without repeats."""
    seen: dict[str, None] = {}
    for match in CANDIDATE.finditer(text[:MAX_PASSAGE_CHARS]):
        seen.setdefault(match.group(0).strip(), None)
    return list(seen)


@dataclass
class Generated:
    """One generated pair with the chunk it came from, and the filters' verdict (filled in by quality.py)."""

    question: str
    answer: str
    chunk_id: str
    source: str
    chunk_text: str
    reasons: list[str] = field(default_factory=list)  # why the filters reject it; [] = kept
    seconds: float = 0.0

    @property
    def kept(self) -> bool:
        """Whether every filter passed."""
        return not self.reasons


def corpus_chunks(folder: str | Path, settings: Settings | None = None, progress: bool = False) -> list[Hit]:
    """A folder parsed and chunked the way the pipeline ingests it (no embedding, no Qdrant)."""
    from helpers.chunking import chunk_for_settings
    from helpers.parsing import parse_folder

    settings = settings or get_settings()
    parsed = parse_folder(folder, progress=progress, cache_dir=settings.paths.cache_dir)
    nodes = chunk_for_settings(parsed.documents, settings.chunking)
    return [Hit(node.node_id, node.get_content(), dict(node.metadata)) for node in nodes]


def sample_chunks(chunks: Sequence[Hit], n: int, seed: int = 0) -> list[Hit]:
    """n chunks (seeded): long enough to ask about, one document at a time round-robin, so all sources show up."""
    rng = random.Random(seed)
    by_source: dict[str, list[Hit]] = {}
    for chunk in sorted(chunks, key=lambda c: c.node_id):
        if len(chunk.text) >= MIN_CHUNK_CHARS:
            by_source.setdefault(chunk.source, []).append(chunk)
    for group in by_source.values():
        rng.shuffle(group)
    sources = sorted(by_source)
    rng.shuffle(sources)
    picked: list[Hit] = []
    while len(picked) < n and any(by_source.values()):
        for source in sources:
            if by_source[source] and len(picked) < n:
                picked.append(by_source[source].pop())
    return picked


def passage(chunk: Hit) -> str:
    """What the LLM reads: the document title, then the chunk text (cut to MAX_PASSAGE_CHARS)."""
    title = str(chunk.metadata.get("title") or "").strip()
    return (f"{title}\n\n" if title else "") + chunk.text[:MAX_PASSAGE_CHARS]


def _json_llm(settings: Settings) -> Any:
    """The configured LLM without the answer cache (chat_json is cached here, by QAWriter)."""
    from helpers.llm import make_llm

    return make_llm(settings, cache=False)


class QAWriter:
    """Asks a JSON-capable LLM for a pair per chunk; every reply cached on disk (the model loads on the first miss)."""

    def __init__(self, make_llm: Callable[[], Any] | None = None, settings: Settings | None = None,
                 cache: DiskCache | None = None, style: str = "answer_first") -> None:  # fmt: skip
        if style not in STYLES:
            raise ValueError(f"style must be one of {STYLES}, got {style!r}")
        self.settings, self.style = settings or get_settings(), style
        self._make = make_llm or (lambda: _json_llm(self.settings))
        self.cache = cache or llm_cache(self.settings)

    @cached_property
    def llm(self) -> Any:
        """The model (built on first use)."""
        return self._make()

    def ask(self, messages: list[dict[str, str]], model: type[BaseModel] = QAPair) -> tuple[Any, float]:
        """One JSON reply, validated against `model` (None if it does not validate), and the real model seconds."""
        schema = model.model_json_schema()
        key = prompt_key(self.settings.llm.name, {"json": messages, "schema": schema, "max_tokens": MAX_TOKENS})
        stored = self.cache.get(key)
        if stored is None:
            completion = self.llm.chat_json(messages, schema, MAX_TOKENS)
            stored = {"text": completion.text, "seconds": completion.seconds}
            self.cache.put(key, stored)
        try:
            return model.model_validate(json.loads(stored["text"], strict=False)), float(stored["seconds"])
        except (json.JSONDecodeError, ValidationError):
            return None, float(stored["seconds"])

    def write(self, chunk: Hit) -> Generated:
        """The pair the LLM writes about one chunk (empty question and answer if its reply is unusable)."""
        return self.write_for_answer(chunk) if self.style == "answer_first" else self.write_free(chunk)

    def write_free(self, chunk: Hit) -> Generated:
        """The LLM picks the answer and writes the question."""
        messages = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": passage(chunk)}]
        pair, seconds = self.ask(messages)
        question, answer = (pair.question.strip(), pair.answer.strip()) if pair else ("", "")
        return Generated(question, answer, chunk.node_id, chunk.source, chunk.text, seconds=seconds)

    def write_for_answer(self, chunk: Hit) -> Generated:
        """The kit picks the answer span (seeded by the chunk id), the LLM writes a question for it ("free" if none)."""
        candidates = answer_candidates(chunk.text)
        if not candidates:
            return self.write_free(chunk)
        answer = random.Random(chunk.node_id).choice(candidates)
        user = f"{passage(chunk)}\n\nAnswer: {answer}"
        messages = [{"role": "system", "content": ANSWER_FIRST_PROMPT}, {"role": "user", "content": user}]
        reply, seconds = self.ask(messages, QuestionOnly)
        question = reply.question.strip() if reply else ""
        return Generated(question, answer, chunk.node_id, chunk.source, chunk.text, seconds=seconds)

    def write_all(self, chunks: Sequence[Hit], progress: bool = True) -> list[Generated]:
        """A pair per chunk, in order."""
        return [self.write(c) for c in tqdm(chunks, desc="LLM writes questions", disable=not progress)]

    def close(self) -> None:
        """Free the model if it was loaded."""
        if hasattr(llm := self.__dict__.get("llm"), "close"):
            llm.close()
