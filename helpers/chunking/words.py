"""Word windows: `size` words per chunk, the last `overlap` words repeated at the start of the next one.

The common 100-line RAG baseline (250 words, 50 of overlap); each chunk is the original text from its first to its
last word, so line breaks survive. What it leaves out: sentence and heading boundaries (`recursive.py`, `sections.py`).
"""

from __future__ import annotations

import re

from llama_index.core import Document
from llama_index.core.schema import TextNode

from helpers.chunking.base import make_nodes
from helpers.chunking.fixed import token_windows

WORD = re.compile(r"\S+")


def word_spans(text: str, size: int = 250, overlap: int = 50) -> list[str]:
    """The text cut into windows of `size` words that share `overlap` words with the previous window."""
    bounds = [(m.start(), m.end()) for m in WORD.finditer(text)]  # each word's (start, end) in the text
    return [text[window[0][0] : window[-1][1]] for window in token_windows(bounds, size, overlap)]


def word_window(document: Document, size: int = 250, overlap: int = 50) -> list[TextNode]:
    """The word-window strategy on one document."""
    return make_nodes(document, word_spans(document.text, size, overlap))
