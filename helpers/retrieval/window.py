"""Small-to-big: match on chunks, hand the reader each hit with its neighbouring chunks (sentence windows), hits whose
windows touch merged and near-copies dropped; compare set-ups at equal prompt tokens, not equal k.
What it leaves out: windows across documents (each PDF page is one) and windows in characters.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import reduce

from helpers.retrieval.base import Filters, Retriever
from helpers.store import KitStore
from helpers.types import Hit

MIN_OVERLAP = 8  # characters: a shorter common edge is a coincidence, not the chunker's overlap
MAX_OVERLAP = 1000


def document_of(hit: Hit) -> tuple[str, str]:
    """The document a chunk belongs to: its source file and, for a PDF, its page."""
    return hit.source, str(hit.metadata.get("page", ""))


def join_overlapping(first: str, second: str) -> str:
    """`first` then `second`, the text `second` repeats from the end of `first` written once.

    >>> join_overlapping("The term starts on 5 May.", "on 5 May. Classes end in June.")
    'The term starts on 5 May. Classes end in June.'
    """
    longest = min(len(first), len(second), MAX_OVERLAP)
    for size in range(longest, MIN_OVERLAP - 1, -1):
        if first.endswith(second[:size]):
            return first + second[size:]
    return f"{first}\n{second}"


class Neighbours:
    """Every chunk by (document, chunk number): the text around a hit, read from memory."""

    def __init__(self, chunks: Sequence[Hit]) -> None:
        self.chunks: dict[tuple[tuple[str, str], int], Hit] = {}
        for chunk in chunks:
            number = chunk.metadata.get("chunk")
            if isinstance(number, int):
                self.chunks[(document_of(chunk), number)] = chunk

    def text(self, document: tuple[str, str], first: int, last: int) -> tuple[str, list[int]]:
        """The chunks first..last of a document that exist, joined without repeated overlap, and their numbers."""
        numbers = [n for n in range(first, last + 1) if (document, n) in self.chunks]
        texts = [self.chunks[(document, n)].text for n in numbers]
        joined = reduce(lambda done, text: join_overlapping(done, text) if done else text, texts, "")
        return joined, numbers


class StoreNeighbours:
    """The text around a hit, asked of the collection one source file at a time (the `max_sources` latest kept)."""

    def __init__(self, store: KitStore, max_sources: int = 64) -> None:
        self.store, self.max_sources = store, max_sources
        self.sources: dict[str, Neighbours] = {}

    def text(self, document: tuple[str, str], first: int, last: int) -> tuple[str, list[int]]:
        """As `Neighbours.text`, for the chunks of the document's source file stored in the collection."""
        source = document[0]
        if source not in self.sources:
            if len(self.sources) >= self.max_sources:
                self.sources.pop(next(iter(self.sources)))  # the oldest source goes first
            self.sources[source] = Neighbours(self.store.chunks_of_source(source))
        return self.sources[source].text(document, first, last)


@dataclass
class _Span:
    """One passage being assembled: the best hit in it and the range of chunks it covers."""

    hit: Hit
    document: tuple[str, str]
    first: int
    last: int

    def touches(self, other: _Span) -> bool:
        return self.document == other.document and self.first <= other.last + 1 and other.first <= self.last + 1


def widen(hits: Sequence[Hit], neighbours: Neighbours | StoreNeighbours, window: int) -> list[Hit]:
    """Each hit with `window` chunks either side; hits whose windows touch become one passage at the better rank."""
    spans: list[_Span] = []
    plain: dict[int, Hit] = {}  # hits without a chunk number stay as they are, in their place
    for hit in hits:
        number = hit.metadata.get("chunk")
        if not isinstance(number, int):
            plain[len(spans) + len(plain)] = hit
            continue
        span = _Span(hit, document_of(hit), number - window, number + window)
        joined = next((kept for kept in spans if kept.touches(span)), None)
        if joined is None:
            spans.append(span)
            continue
        joined.first, joined.last = min(joined.first, span.first), max(joined.last, span.last)
        for other in [kept for kept in spans if kept is not joined and kept.touches(joined)]:  # a bridge
            joined.first, joined.last = min(joined.first, other.first), max(joined.last, other.last)
            spans.remove(other)
    passages = [_passage(span, neighbours) for span in spans]
    for position, hit in sorted(plain.items()):
        passages.insert(min(position, len(passages)), hit)
    return passages


def _passage(span: _Span, neighbours: Neighbours | StoreNeighbours) -> Hit:
    """The hit of a span with the text of its whole window."""
    text, numbers = neighbours.text(span.document, span.first, span.last)
    if not numbers:  # the store does not know this chunk (another collection): the hit as it came
        return span.hit
    metadata = {**span.hit.metadata, "window": f"{numbers[0]}-{numbers[-1]}"}
    return Hit(span.hit.node_id, text, metadata, dict(span.hit.scores))


WORDS = re.compile(r"\w+")
SHINGLE = 3  # words per shingle: table rows that share a caption and column names still differ in their values


def shingles(text: str) -> set[tuple[str, ...]]:
    """The lower-cased runs of three words of a text (the words themselves when it is shorter)."""
    words = WORDS.findall(text.lower())
    return {tuple(words[i : i + SHINGLE]) for i in range(max(1, len(words) - SHINGLE + 1))}


def drop_near_duplicates(hits: Sequence[Hit], threshold: float) -> list[Hit]:
    """The hits in order, without one whose word shingles are ≥ `threshold` contained in a better-ranked hit's."""
    kept: list[tuple[Hit, set[tuple[str, ...]]]] = []
    for hit in hits:
        words = shingles(hit.text)
        if not any(len(words & other) >= threshold * max(1, len(words)) for _, other in kept):
            kept.append((hit, words))
    return [hit for hit, _ in kept]


class Windowed:
    """Any retriever, its hits widened to neighbouring chunks and merged per document (small-to-big)."""

    def __init__(
        self,
        retriever: Retriever,
        neighbours: Neighbours | StoreNeighbours | None,
        window: int = 1,
        near_duplicate: float = 0.0,
        fetch_multiplier: int = 1,
    ) -> None:
        if window < 0:
            raise ValueError(f"window must be 0 or more chunks, got {window}")
        if window and neighbours is None:
            raise ValueError("a window needs the neighbouring chunks (Neighbours or StoreNeighbours)")
        if fetch_multiplier < 1:
            raise ValueError(f"fetch_multiplier must be 1 or more, got {fetch_multiplier}")
        self.retriever, self.neighbours, self.window = retriever, neighbours, window
        self.near_duplicate, self.fetch_multiplier = near_duplicate, fetch_multiplier

    def __repr__(self) -> str:
        return f"Windowed({self.retriever!r}; ±{self.window} chunks, copies ≥ {self.near_duplicate})"

    def retrieve(self, query: str, k: int, filters: Filters | None = None) -> list[Hit]:
        """The inner retriever's top k without near-copies (over-fetched), each widened; copies dropped again."""
        if not self.near_duplicate:
            hits = self.retriever.retrieve(query, k, filters)
        else:
            fetched = self.retriever.retrieve(query, k * self.fetch_multiplier, filters)
            hits = drop_near_duplicates(fetched, self.near_duplicate)[:k]
        if not self.window or self.neighbours is None:  # the hits alone: nothing to widen or merge
            return hits
        widened = widen(hits, self.neighbours, self.window)
        return drop_near_duplicates(widened, self.near_duplicate) if self.near_duplicate else widened
