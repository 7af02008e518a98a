"""Recursive character splitting (the TUM chatbot's: 500 characters, 50 overlap, only texts over 2 × 500).

Cut at the coarsest separator present, recurse into pieces still too long, glue neighbours into chunks of at most
`size` characters with `overlap`; `recursive_split` is the `split` slot, so a student's splitter chunks the whole kit.
What it leaves out: token counting (sizes are characters) and headings (see `sections.py`).
"""

from __future__ import annotations

from collections import deque

from llama_index.core import Document
from llama_index.core.schema import TextNode

from helpers.chunking.base import make_nodes
from helpers.mechanisms import chosen

SEPARATORS = ("\n\n", "\n", ". ", " ", "")  # "": single characters, the last resort for a run with no space


def cut(text: str, size: int, separators: tuple[str, ...] = SEPARATORS) -> list[str]:
    """Pieces of at most `size` characters, each keeping its separator at its end."""
    if len(text) <= size or not separators:
        return [text]
    separator, finer = separators[0], separators[1:]
    if not separator:
        return list(text)  # no separator left: every character is a piece, and `glue` joins them up to `size`
    parts = text.split(separator)
    parts = [part + separator for part in parts[:-1]] + parts[-1:]  # keep the separators, lose nothing
    return [piece for part in parts if part for piece in cut(part, size, finer)]


def glue(pieces: list[str], size: int, overlap: int) -> list[str]:
    """Neighbouring pieces joined into chunks of ≤ `size` characters that repeat ≤ `overlap` of the last one."""
    chunks: list[str] = []
    window: deque[str] = deque()
    length = 0  # characters in the window, kept as pieces come and go (summing each time is quadratic)
    for piece in pieces:
        if window and length + len(piece) > size:
            chunks.append("".join(window))
            # Drop pieces from the front until what is left fits the overlap and leaves room for `piece`.
            while window and (length > overlap or length + len(piece) > size):
                length -= len(window.popleft())
        window.append(piece)
        length += len(piece)
    chunks.append("".join(window))
    return [chunk.strip() for chunk in chunks if chunk.strip()]


def recursive_split(text: str, size: int = 500, overlap: int = 50) -> list[str]:
    """Chunks of ≤ `size` characters cut at the coarsest separator, neighbours sharing ≤ `overlap` (slot `split`)."""
    return glue(cut(text, size), size, overlap)


def recursive_chars(document: Document, size: int = 500, overlap: int = 50) -> list[TextNode]:
    """The recursive character strategy on one document: whole up to 2 × `size` (as the TUM chatbot does), else split
    by the function in force for the `split` slot (the kit's `recursive_split`, or yours after `use("split", …)`)."""
    text = document.text
    if len(text) <= 2 * size:
        return make_nodes(document, [text.strip()] if text.strip() else [])
    return make_nodes(document, chosen("split", recursive_split)(text, size, overlap))
