"""Paragraph sliding window (the e-mail mini RAG's: 4 paragraphs per chunk, 1 paragraph of overlap).

A paragraph is a run of lines between blank lines (e-mails and Markdown keep their natural units); the window is
`token_windows`, sliding over paragraphs instead of tokens.
What it leaves out: any size limit — a very long paragraph makes a very long chunk.
"""

from __future__ import annotations

import re

from llama_index.core import Document
from llama_index.core.schema import TextNode

from helpers.chunking.base import make_nodes
from helpers.chunking.fixed import token_windows

BLANK_LINE = re.compile(r"\n[ \t]*\n")


def paragraphs(text: str) -> list[str]:
    """The non-empty paragraphs of a text, in order."""
    return [part.strip() for part in BLANK_LINE.split(text) if part.strip()]


def paragraph_window(document: Document, size: int = 4, overlap: int = 1) -> list[TextNode]:
    """Windows of `size` consecutive paragraphs, `overlap` shared with the previous window."""
    windows = token_windows(paragraphs(document.text), size, overlap)
    return make_nodes(document, ["\n\n".join(window) for window in windows])
