"""Training data for the kit's own cross-encoder: questions the local LLM writes about corpus chunks (no gold question).

Each sampled chunk is the positive of the question written about it, the chunks BM25 ranks highest its hard
negatives; `cloze_pairs` needs no LLM (the inverse cloze task).
What it leaves out: filtering bad generated questions, and "negatives" that answer the question in other words.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

from tqdm.auto import tqdm

from helpers.llm.cache import CachedCompleter
from helpers.rerank.base import passage_text
from helpers.retrieval.bm25 import BM25Retriever
from helpers.types import Hit

QUESTION_PROMPT = (
    "Write one question that a student could ask and that the passage below answers. "
    "Use the passage's own terms. Reply with the question only.\n\nPassage:\n{passage}"
)
MIN_CHUNK_CHARS = 200
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Pair:
    """One training example: a question, a passage, and 1.0 (relevant) or 0.0 (not)."""

    question: str
    passage: str
    label: float


def sample_chunks(chunks: Sequence[Hit], n: int, seed: int = 0) -> list[Hit]:
    """n chunks chosen at random (seeded) among those long enough to ask about."""
    usable = sorted((c for c in chunks if len(c.text) >= MIN_CHUNK_CHARS), key=lambda c: c.node_id)
    return random.Random(seed).sample(usable, min(n, len(usable)))


def write_question(llm: CachedCompleter, chunk: Hit) -> str:
    """The LLM's question about one chunk (first line only, cached)."""
    messages = [{"role": "user", "content": QUESTION_PROMPT.format(passage=passage_text(chunk)[:1500])}]
    text = llm.complete(messages, max_tokens=48).strip()
    return text.splitlines()[0].strip() if text else ""


def word_overlap(query: str, passage: str) -> float:
    """Share of the query's distinct words (lower-cased) that also occur in the passage."""
    words = set(WORD.findall(query.lower()))
    return len(words & set(WORD.findall(passage.lower()))) / len(words) if words else 0.0


def hard_negatives(
    bm25: BM25Retriever,
    question: str,
    positive: Hit,
    negatives: int,
    positive_text: str | None = None,
    fair: bool = True,
) -> list[Pair]:
    """(question, chunk, 0.0) for the chunks BM25 ranks highest that are not the positive (nor a copy of it).

    A chunk sharing *more* of the question's words than `positive_text` (default: the positive), or holding the
    question verbatim, is likely a second answer and is skipped; `fair=False` keeps them (notebook 06's bug).
    """
    ceiling = word_overlap(question, positive_text if positive_text is not None else passage_text(positive))
    ranked = bm25.retrieve(question, negatives + 20)
    hard = [
        h
        for h in ranked
        if h.node_id != positive.node_id
        and h.text != positive.text
        and (not fair or (question not in h.text and word_overlap(question, passage_text(h)) <= ceiling))
    ]
    return [Pair(question, passage_text(h), 0.0) for h in hard[:negatives]]


def training_pairs(
    llm: CachedCompleter, chunks: Sequence[Hit], n_questions: int, negatives: int = 3, seed: int = 0
) -> list[Pair]:
    """(question, positive) and (question, hard negative) pairs for `n_questions` sampled chunks."""
    bm25 = BM25Retriever(chunks, [passage_text(c) for c in chunks])
    pairs: list[Pair] = []
    for chunk in tqdm(sample_chunks(chunks, n_questions, seed), desc="LLM writes training questions"):
        question = write_question(llm, chunk)
        if len(question) < 10:  # the model said nothing usable
            continue
        pairs.append(Pair(question, passage_text(chunk), 1.0))
        pairs.extend(hard_negatives(bm25, question, chunk, negatives))
    return pairs


def cloze_pairs(
    chunks: Sequence[Hit], n_queries: int, negatives: int = 3, seed: int = 0, fair: bool = True, keep: float = 0.0
) -> list[Pair]:
    """Inverse-cloze pairs: a sentence of a chunk as the query, the rest of the chunk as the positive (with
    probability `keep` the whole chunk, as Lee et al. keep it 10% of the time)."""
    bm25 = BM25Retriever(chunks, [passage_text(c) for c in chunks])
    rng, pairs = random.Random(seed), []
    for chunk in sample_chunks(chunks, n_queries, seed + 1):  # another sample than the LLM's questions
        sentences = [s for s in SENTENCE_END.split(chunk.text) if 30 <= len(s) <= 300]
        if len(sentences) < 3:  # too little left once the query sentence is cut out
            continue
        query = rng.choice(sentences)
        kept = rng.random() < keep
        text = chunk.text if kept else chunk.text.replace(query, " ", 1).strip()
        rest = passage_text(Hit(chunk.node_id, text, chunk.metadata, {}))
        pairs.append(Pair(query, rest, 1.0))
        pairs.extend(hard_negatives(bm25, query, chunk, negatives, positive_text=rest, fair=fair))
    return pairs


def data_hash(pairs: Sequence[Pair]) -> str:
    """A short hex hash of the training data (names the trained model folder)."""
    text = json.dumps([(p.question, p.passage, p.label) for p in pairs], ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
