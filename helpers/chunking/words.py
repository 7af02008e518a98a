"""Word windows: `size` words per chunk, the last `overlap` words repeated at the start of the next one.

The simplest chunker that works well on real documents (a common 100-line RAG baseline: 250 words, 50 of
overlap): no tokenizer, no separators to choose, every chunk about the same length. Each chunk is the
original text from its first to its last word, so line breaks (table rows, lists) survive.
What it leaves out: sentence and heading boundaries (a window may start mid-sentence; see `recursive.py`
and `sections.py` for splitters that respect structure).
"""

from __future__ import annotations

import re

from llama_index.core import Document
from llama_index.core.schema import TextNode

from helpers.chunking.base import make_nodes

WORD = re.compile(r"\S+")


def word_spans(text: str, size: int = 250, overlap: int = 50) -> list[str]:
    """The text cut into windows of `size` words that share `overlap` words with the previous window."""
    if not 0 <= overlap < size:
        raise ValueError(f"overlap must be in [0, size={size}), got {overlap}")
    bounds = [(m.start(), m.end()) for m in WORD.finditer(text)]
    if not bounds:
        return []
    step, chunks = size - overlap, []
    for first in range(0, max(len(bounds) - overlap, 1), step):
        last = min(first + size, len(bounds)) - 1
        chunks.append(text[bounds[first][0] : bounds[last][1]])
    return chunks


def word_window(document: Document, size: int = 250, overlap: int = 50) -> list[TextNode]:
    """The word-window strategy on one document."""
    return make_nodes(document, word_spans(document.text, size, overlap))
