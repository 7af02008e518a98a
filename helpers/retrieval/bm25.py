"""BM25 keyword retrieval with bm25s, over exactly the chunks the Qdrant store holds (`scores["sparse"]`, ≥ 0).

The tokenizer keeps each course or room code ("ADS 530") also as one token ("ads530") and joined words ("S/U")
whole and as parts; `stemmed_tokenize` (the default) strips plurals. `bm25_scores` is the slot "bm25".
What it leaves out: full stemming, synonyms (expansion.py) and incremental updates (new text means a refit).
"""

from __future__ import annotations

import logging
import math
import re
from collections import Counter, OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import bm25s
import numpy as np
from bm25s.stopwords import STOPWORDS_EN

from helpers.mechanisms import chosen
from helpers.retrieval.base import Filters, copy_hit, stored_chunks
from helpers.retrieval.metadata_match import matches
from helpers.store import KitStore
from helpers.types import Hit

CODE = re.compile(r"\b([a-z]{2,5})[ -]?(\d{3}[a-z]?)\b")  # "ads 530", "ads-698a", "mdc 015"
WORD = re.compile(r"[a-z0-9]+(?:[/.\-][a-z0-9]+)*")  # "s/u", "3.7", "full-time" stay one word ...
JOINERS = re.compile(r"[/.\-]")  # ... and are also split into their parts
STOPWORDS = frozenset(STOPWORDS_EN)
logging.getLogger("bm25s").setLevel(logging.WARNING)  # it logs each fit at DEBUG, printed under a DEBUG root logger


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


MONTHS = {"jan": "january", "feb": "february", "mar": "march", "apr": "april", "jun": "june", "jul": "july",
          "aug": "august", "sep": "september", "sept": "september", "oct": "october", "nov": "november",
          "dec": "december"}  # fmt: skip
MAY_DATE = re.compile(r"\bmay\.?\s+(\d{1,2})\b")  # "May 24": a month, not the stop word "may"
NUMBERED_TERM = re.compile(r"\b(session|term|summer|winter|spring|fall|block|part|module)\s+(iv|i{1,3}|[1-4])\b")
ROMAN = {"i": "1", "ii": "2", "iii": "3", "iv": "4"}


def dated_tokenize(text: str) -> list[str]:
    """The kit's tokenizer, with calendar words kept: "Aug." is "august", "May 24" keeps its month, and a
    numbered term is also one token ("Session I" -> "session1", which "i" as a stop word would lose)."""
    lowered = MAY_DATE.sub(r"maymonth \1", text.lower())
    terms = [f"{word}{ROMAN.get(number, number)}" for word, number in NUMBERED_TERM.findall(lowered)]
    return [MONTHS.get(token, "may" if token == "maymonth" else token) for token in tokenize(lowered)] + terms


TOKENIZERS = {"kit": tokenize, "stemmed": stemmed_tokenize, "dates": dated_tokenize}  # settings' bm25_tokenizer


def plain_tokenize(text: str) -> list[str]:
    """The textbook tokenizer, for comparison: lower-case runs of letters and digits, stop words dropped."""
    return [token for token in re.findall(r"\w+", text.lower()) if token not in STOPWORDS]


def bm25_scores(query: list[str], documents: list[list[str]], k1: float = 1.5, b: float = 0.75) -> np.ndarray:
    """The BM25 score of every document (a list of tokens) for the query tokens: Lucene's form, as bm25s scores."""
    scores = np.zeros(len(documents))
    lengths = np.array([len(document) for document in documents], dtype=float)
    if not documents or not lengths.any():
        return scores
    counts = [Counter(document) for document in documents]  # term frequencies, one table per document
    discount = k1 * (1 - b + b * lengths / lengths.mean())  # long documents need more repeats to score
    for token in query:
        tf = np.array([count[token] for count in counts], dtype=float)
        df = np.count_nonzero(tf)  # how many documents hold the token
        if df:
            idf = math.log(1 + (len(documents) - df + 0.5) / (df + 0.5))  # rare tokens weigh more
            saturated = np.divide(tf, tf + discount, out=np.zeros_like(tf), where=tf > 0)  # 0 where absent
            scores += idf * saturated  # repeats help, with diminishing returns
    return scores


class BM25Retriever:
    """Keyword search: BM25 scores of every chunk, best first."""

    REMEMBERED = 1024  # queries whose scores by a student's function are kept

    def __init__(
        self,
        chunks: Sequence[Hit],
        texts: Sequence[str] | None = None,
        tokenizer: Callable[[str], list[str]] = tokenize,
        k1: float = 1.5,
        b: float = 0.75,
    ) -> None:
        self.chunks = list(chunks)
        self.tokenizer, self.k1, self.b = tokenizer, k1, b
        texts = list(texts) if texts is not None else [chunk.text for chunk in self.chunks]
        self.documents = [tokenizer(text) for text in texts]  # what a student's bm25 function scores
        self.index = bm25s.BM25(k1=k1, b=b)
        if self.chunks:  # bm25s cannot index nothing; an empty collection simply finds nothing
            self.index.index(self.documents, show_progress=False)
        self._remembered: OrderedDict[tuple[Callable[..., Any], tuple[str, ...]], np.ndarray] = OrderedDict()

    @classmethod
    def from_store(cls, store: KitStore, **params: Any) -> BM25Retriever:
        """Fit BM25 on every chunk of the store, reading the text the embedder saw (title included)."""
        chunks, texts = stored_chunks(store)
        return cls(chunks, texts, **params)

    @property
    def size(self) -> int:
        """How many chunks the index holds."""
        return len(self.chunks)

    def scores(self, query: str) -> np.ndarray:
        """The BM25 score of every chunk for `query` (zeros if no query word is in the corpus)."""
        if not self.size:
            return np.zeros(0, dtype=np.float32)
        tokens = self.tokenizer(query)
        function = chosen("bm25", bm25_scores)
        if function is bm25_scores:  # the kit's own formula: bm25s computes it from its precomputed index
            return self.library_scores(tokens)
        return self.scores_by(function, tokens)

    def library_scores(self, tokens: list[str]) -> np.ndarray:
        """The scores bm25s computes for the query tokens."""
        ids = self.index.get_tokens_ids(tokens)  # words never seen in the corpus are dropped
        if not ids:
            return np.zeros(self.size, dtype=np.float32)
        return self.index.get_scores_from_ids(ids)

    def scores_by(self, function: Callable[..., Any], tokens: list[str]) -> np.ndarray:
        """The scores `function(tokens, documents, k1, b)` gives, one per chunk, remembered per query."""
        key = (function, tuple(tokens))
        if key not in self._remembered:
            scores = np.asarray(function(tokens, self.documents, self.k1, self.b), dtype=float)
            if scores.shape != (self.size,):
                raise ValueError(
                    f"the bm25 function in use returned {scores.shape} scores for {self.size} documents: "
                    "it must return one number per document (helpers.mechanisms.reset('bm25') restores the kit's)"
                )
            self._remembered[key] = scores
            if len(self._remembered) > self.REMEMBERED:
                self._remembered.popitem(last=False)
        return self._remembered[key]

    def __repr__(self) -> str:
        return "BM25"

    def retrieve(self, query: str, k: int, filters: Filters | None = None) -> list[Hit]:
        """Top-k chunks by BM25 score; chunks that share no word with the query are never returned."""
        scores = self.scores(query)
        # Filter first, rank second: chunks that fail the filter score zero.
        if filters:
            scores = np.where(self.matching(filters), scores, 0.0)
        top = [int(i) for i in np.argsort(-scores, kind="stable")[:k] if scores[i] > 0]
        found = zip(top, self.rows(top), strict=True)
        return [copy_hit(chunk, sparse=float(scores[i])) for i, chunk in found if chunk is not None]

    def matching(self, filters: Filters) -> list[bool]:
        """Whether each chunk's metadata satisfies `filters` (one flag per chunk, in index order)."""
        return [matches(chunk.metadata, filters) for chunk in self.chunks]

    def rows(self, rows: Sequence[int]) -> list[Hit | None]:
        """The chunks at these positions of the index (None for one no longer stored)."""
        return [self.chunks[i] for i in rows]
