"""Chunking: documents into nodes small enough to embed and to quote, by one of seven named strategies.

    >>> nodes = chunk_documents(documents, "header_sections_merged")

One file per strategy (like minbpe's variants), shared pieces in `base.py`; ids are deterministic, so re-ingestion
never duplicates. `contextual=True` embeds each chunk with its "Title > Section" prefix (the LLM sees the clean
text); `records=True` starts each piece of a long table row or JSON object with its record's key (`records.py`).
What it leaves out: semantic (embedding-based) splitting, LLM-written summaries, the measurements (`helpers.lab`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from llama_index.core import Document
from llama_index.core.schema import TextNode

from helpers.chunking.base import add_context, contextual_prefix, count_tokens, finish, node_id
from helpers.chunking.fixed import fixed_tokens, token_windows
from helpers.chunking.paragraphs import paragraph_window
from helpers.chunking.records import with_record_keys
from helpers.chunking.recursive import recursive_chars
from helpers.chunking.sections import (
    fill_section_paths,
    header_sections,
    header_sections_merged,
    merge_small_sections,
)
from helpers.chunking.words import word_spans, word_window
from helpers.config import ChunkingSettings


def header_sections_merged_ctx(document: Document, **params: Any) -> list[TextNode]:
    """Merged header sections, embedded with the contextual prefix "Title > Section" (the study knowledge base's)."""
    return add_context(header_sections_merged(document, **params))


# Every strategy by name: a function (document, **params) -> nodes. The order is the order of the notebook.
STRATEGIES: dict[str, Callable[..., list[TextNode]]] = {
    "fixed_tokens": fixed_tokens,  # the UChicago assistant's: 600 tokens, 150 overlap
    "recursive_chars": recursive_chars,  # the TUM chatbot's: 500 characters, 50 overlap
    "paragraph_window": paragraph_window,  # the e-mail mini RAG's: 4 paragraphs, 1 overlap
    "header_sections": header_sections,  # the study knowledge base's: headings, 700/120 tokens
    "header_sections_merged": header_sections_merged,  # the same + small sections merged
    "header_sections_merged_ctx": header_sections_merged_ctx,  # ... + "Title > Section" embedded
    "word_window": word_window,  # a common plain baseline: 250 words, 50 overlap
}
DEFAULT_STRATEGY = ChunkingSettings().chunk_strategy  # the configured default (helpers.config)
DEFAULT_RECORDS = ChunkingSettings().chunk_records


def chunk_documents(
    documents: Sequence[Document],
    strategy: str = DEFAULT_STRATEGY,
    contextual: bool = False,
    records: bool = DEFAULT_RECORDS,
    **params: Any,
) -> list[TextNode]:
    """Split every document with the named strategy; `params` override its sizes (e.g. size=300); `records`: each
    piece of a record longer than a chunk names its record (`records.py`)."""
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown chunking strategy {strategy!r}; choose one of: {', '.join(STRATEGIES)}")
    chosen_split = STRATEGIES[strategy]

    def split(document: Document, **params: Any) -> list[TextNode]:
        nodes = chosen_split(document, **params)
        return with_record_keys(document, nodes) if records else nodes

    if not contextual:
        return finish([node for document in documents for node in split(document, **params)], strategy)
    nodes = [node for document in documents for node in fill_section_paths(document, split(document, **params))]
    return finish(add_context(nodes), strategy)


def chunk_for_settings(documents: Sequence[Document], chunking: ChunkingSettings) -> list[TextNode]:
    """Split with the strategy, size and overlap of the chunking section (0 / -1 keep the strategy's own)."""
    params = {}
    if chunking.chunk_size > 0:
        params["size"] = chunking.chunk_size
    if chunking.chunk_overlap >= 0:
        params["overlap"] = chunking.chunk_overlap
    return chunk_documents(documents, chunking.chunk_strategy, chunking.chunk_context, chunking.chunk_records, **params)


__all__ = [
    "DEFAULT_STRATEGY",
    "STRATEGIES",
    "chunk_documents",
    "chunk_for_settings",
    "contextual_prefix",
    "count_tokens",
    "merge_small_sections",
    "node_id",
    "token_windows",
    "word_spans",
]
