"""BM25 keyword retrieval with bm25s, over exactly the chunks the Qdrant store holds.

BM25 scores a chunk by the query words it contains: each word counts more the rarer it is in the corpus
(idf), with diminishing returns for repeats (k1) and a discount for long chunks (b). The tokenizer is the
part that matters for this corpus: lower-case words and numbers, a few stop words dropped, and every
course or room code ("ADS 530", "ADS-698A", "MDC 110") also kept as one joined token ("ads530"), so an
exact code outranks chunks that merely mention "ADS" and "530" apart. Joined words ("S/U", "full-time")
are kept whole and as their parts. The score is stored as `scores["sparse"]` (unbounded, ≥ 0).
`stemmed_tokenize` also strips plural endings ("fees" -> "fee"; settings.bm25_tokenizer = "stemmed").
What it leaves out: full stemming ("registration" ≠ "register"), synonyms (see expansion.py), and incremental
updates — bm25s is a retriever, not an encoder, so new text means a refit (`BM25Retriever.from_store` again,
well under a second for the course corpus).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import bm25s
import numpy as np
from bm25s.stopwords import STOPWORDS_EN

from helpers.retrieval.base import Filters, copy_hit, stored_chunks
from helpers.retrieval.metadata_match import matches
from helpers.store import KitStore
from helpers.types import Hit

CODE = re.compile(r"\b([a-z]{2,5})[ -]?(\d{3}[a-z]?)\b")  # "ads 530", "ads-698a", "mdc 015"
WORD = re.compile(r"[a-z0-9]+(?:[/.\-][a-z0-9]+)*")  # "s/u", "3.7", "full-time" stay one word ...
JOINERS = re.compile(r"[/.\-]")  # ... and are also split into their parts
STOPWORDS = frozenset(STOPWORDS_EN)


def tokenize(text: str) -> list[str]:
    """Lower-case words, each course/room code as one token ("ads530"), joined words also as parts."""
    text = CODE.sub(lambda code: code[1] + code[2], text.lower())
    tokens: list[str] = []
    for word in WORD.findall(text):
        parts = JOINERS.split(word)
        tokens.extend([word, *parts] if len(parts) > 1 else [word])
    return [token for token in tokens if token not in STOPWORDS]


def light_stem(token: str) -> str:
    """A plural stemmer for English words: "fees" -> "fee", "policies" -> "policy"; numbers and codes stay."""
    if len(token) <= 3 or not token.isalpha() or token.endswith(("ss", "us", "is")):
        return token
    if token.endswith("ies") and len(token) > 4:
        return token[:-3] + "y"
    if token.endswith(("sses", "ches", "shes", "xes")):  # "classes" -> "class", "boxes" -> "box"
        return token[:-2]
    return token[:-1] if token.endswith("s") else token


def stemmed_tokenize(text: str) -> list[str]:
    """The kit's tokenizer with plural endings stripped, so "deadlines" finds "deadline"."""
    return [light_stem(token) for token in tokenize(text)]


TOKENIZERS = {"kit": tokenize, "stemmed": stemmed_tokenize}  # settings.bm25_tokenizer


def plain_tokenize(text: str) -> list[str]:
    """The textbook tokenizer, for comparison: lower-case runs of letters and digits, stop words dropped."""
    return [token for token in re.findall(r"\w+", text.lower()) if token not in STOPWORDS]


class BM25Retriever:
    """Keyword search: BM25 scores of every chunk, best first."""

    def __init__(
        self,
        chunks: Sequence[Hit],
        texts: Sequence[str] | None = None,
        tokenizer: Callable[[str], list[str]] = tokenize,
        k1: float = 1.5,
        b: float = 0.75,
    ) -> None:
        self.chunks = list(chunks)
        self.tokenizer = tokenizer
        texts = list(texts) if texts is not None else [chunk.text for chunk in self.chunks]
        self.index = bm25s.BM25(k1=k1, b=b)
        if self.chunks:  # bm25s cannot index nothing; an empty collection simply finds nothing
            self.index.index([tokenizer(text) for text in texts], show_progress=False)

    @classmethod
    def from_store(cls, store: KitStore, **params: Any) -> BM25Retriever:
        """Fit BM25 on every chunk of the store, reading the text the embedder saw (title included)."""
        chunks, texts = stored_chunks(store)
        return cls(chunks, texts, **params)

    def scores(self, query: str) -> np.ndarray:
        """The BM25 score of every chunk for `query` (zeros if no query word is in the corpus)."""
        if not self.chunks:
            return np.zeros(0, dtype=np.float32)
        ids = self.index.get_tokens_ids(self.tokenizer(query))  # words never seen in the corpus are dropped
        if not ids:
            return np.zeros(len(self.chunks), dtype=np.float32)
        return self.index.get_scores_from_ids(ids)

    def retrieve(self, query: str, k: int, filters: Filters | None = None) -> list[Hit]:
        """Top-k chunks by BM25 score; chunks that share no word with the query are never returned."""
        scores = self.scores(query)
        # Filter first, rank second: chunks that fail the filter score zero.
        if filters:
            scores = np.where([matches(chunk.metadata, filters) for chunk in self.chunks], scores, 0.0)
        top = np.argsort(-scores, kind="stable")[:k]
        return [copy_hit(self.chunks[i], sparse=float(scores[i])) for i in top if scores[i] > 0]
