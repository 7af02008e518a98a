"""Fixed token windows with overlap (the UChicago assistant's: 600 tokens, 150 overlap).

`token_windows` is the mechanism in plain Python; `fixed_tokens` the strategy as the production stack runs it, with
LlamaIndex's `TokenTextSplitter` on the same cl100k_base tokens (cut between words: as many windows, a few tokens off).
What it leaves out: any notion of sentences, paragraphs or headings — that is what the other strategies add.
"""

from __future__ import annotations

from typing import TypeVar

from llama_index.core import Document
from llama_index.core.node_parser import TokenTextSplitter
from llama_index.core.schema import TextNode

from helpers.chunking.base import encoding, make_nodes, splitter_tokenizer

T = TypeVar("T")


def token_windows(tokens: list[T], size: int, overlap: int) -> list[list[T]]:
    """Windows of `size` items, each starting `size - overlap` after the last; the final one reaches the end."""
    if not 0 <= overlap < size:
        raise ValueError(f"overlap must be in [0, size={size}), got {overlap}")
    step = size - overlap
    # Start a window every `step` items, but not once the previous window already reached the end.
    starts = range(0, max(len(tokens) - overlap, 1), step) if tokens else []
    return [tokens[start : start + size] for start in starts]


def plain_token_chunks(text: str, size: int = 600, overlap: int = 150) -> list[str]:
    """The UChicago assistant's chunker: encode, cut token windows, decode each window back to text."""
    return [encoding().decode(window) for window in token_windows(encoding().encode(text), size, overlap)]


def fixed_tokens(document: Document, size: int = 600, overlap: int = 150) -> list[TextNode]:
    """Token windows cut by LlamaIndex's `TokenTextSplitter` (between words, cl100k_base counts)."""
    splitter = TokenTextSplitter(
        chunk_size=size, chunk_overlap=overlap, separator=" ", backup_separators=["\n"], tokenizer=splitter_tokenizer()
    )
    return make_nodes(document, [piece for piece in splitter.split_text(document.text) if piece.strip()])
