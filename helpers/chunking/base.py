"""What every chunking strategy shares: token counting, building nodes, ids, the filter payload (`facets.py`,
`periods.py`) and the contextual prefix.
What it leaves out: the strategies themselves (one file each) and anything about embedding or storage.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence, Sized
from functools import cache, lru_cache

import tiktoken
from llama_index.core import Document
from llama_index.core.schema import MetadataMode, NodeRelationship, TextNode
from llama_index.core.utils import get_tokenizer

from helpers.chunking.facets import FACET_KEYS, add_facets
from helpers.chunking.periods import PERIOD_KEY, TERM_KEY, add_periods

# A fixed namespace: uuid5(namespace, name) is the same on every machine and every run.
KIT_NAMESPACE = uuid.UUID("6f1c2a4e-8d4b-5f3a-9c1e-2b7d4a0e9f11")
# Bookkeeping and filter payload the embedder must not see; `context` is the one key added *for* the embedder.
NOT_EMBEDDED = ("chunk", "strategy", "section_path", *FACET_KEYS, PERIOD_KEY, TERM_KEY)
NOT_FOR_LLM = ("chunk", "strategy", "context", *FACET_KEYS, PERIOD_KEY, TERM_KEY)
SEPARATOR = " > "
SPLITTER_CACHE_SIZE = 1 << 15  # distinct words/sentences remembered by `splitter_tokenizer`


@cache
def encoding() -> tiktoken.Encoding:
    """The cl100k_base tokenizer (read offline from the cache `import helpers` points at)."""
    return tiktoken.get_encoding("cl100k_base")


def splitter_tokenizer() -> Callable[[str], Sized]:
    """LlamaIndex's own tokenizer for its splitters, with a memory of the texts it has already counted.

    `TokenTextSplitter` and `SentenceSplitter` only ever take `len()` of what it returns, and ask again for
    every word and sentence, many times over; the words repeat, so remembering the counts is the same
    answer for a fraction of the time. It returns `range(count)`: the right length, and nothing to keep alive.
    """
    count = _remembered_count(get_tokenizer())
    return lambda text: range(count(text))


@cache
def _remembered_count(tokenizer: Callable[[str], Sized]) -> Callable[[str], int]:
    """The token count of `tokenizer`, with an LRU memory (one per tokenizer, so a new global one is honoured)."""

    @lru_cache(maxsize=SPLITTER_CACHE_SIZE)
    def count(text: str) -> int:
        return len(tokenizer(text))

    return count


def count_tokens(text: str) -> int:
    """Number of cl100k_base tokens in `text`."""
    return len(encoding().encode(text, disallowed_special=()))


def node_id(source: str, text: str) -> str:
    """The deterministic point id of a chunk: a UUID made from its source and its text."""
    return str(uuid.uuid5(KIT_NAMESPACE, f"{source}\x00{text}"))


def make_nodes(document: Document, texts: Sequence[str], section_paths: Sequence[str] | None = None) -> list[TextNode]:
    """Nodes holding `texts`, each with the document's metadata, its section path and a link to the document.

    The link carries a sha256 of the whole document; hashing a long document once per chunk would make
    chunking quadratic in the document's length, so each node gets a copy of the one link.
    """
    source = document.as_related_node_info()
    nodes = []
    for text, section_path in zip(texts, section_paths or [""] * len(texts), strict=True):
        node = TextNode(
            text=text,
            metadata={**document.metadata, "section_path": section_path},
            excluded_embed_metadata_keys=[*document.excluded_embed_metadata_keys, *NOT_EMBEDDED],
            excluded_llm_metadata_keys=[*document.excluded_llm_metadata_keys, *NOT_FOR_LLM],
        )
        # A copy with its own metadata dict, as `as_related_node_info()` would give each node.
        node.relationships[NodeRelationship.SOURCE] = source.model_copy(update={"metadata": dict(source.metadata)})
        nodes.append(node)
    return nodes


def chunk_starts(text: str, pieces: Sequence[str]) -> list[int]:
    """Where each piece starts in `text` (-1: not found as written, e.g. a splitter rewrote its spacing); each is
    looked for from where the last one found starts, as chunks come in document order and may overlap."""
    starts, cursor = [], 0
    for piece in pieces:
        found = text.find(piece, cursor)
        cursor = max(cursor, found)
        starts.append(found)
    return starts


def contextual_prefix(node: TextNode) -> str:
    """The study knowledge base's prefix: "Title > Section > Subsection" (a heading equal to the title once)."""
    parts = [str(node.metadata.get("title", "")), *str(node.metadata.get("section_path", "")).split(SEPARATOR)]
    return SEPARATOR.join(dict.fromkeys(part for part in parts if part))


def add_context(nodes: Sequence[TextNode]) -> list[TextNode]:
    """Embed each node as "context: Title > Section" + its text; the LLM still sees the clean text."""
    for node in nodes:
        if "context" in node.metadata:  # already has its prefix
            continue
        # The context goes first in the metadata, so it leads the embedded string ...
        node.metadata = {"context": contextual_prefix(node), **node.metadata}
        # ... and replaces the title there (the prefix starts with it).
        node.excluded_embed_metadata_keys = [*node.excluded_embed_metadata_keys, "title"]
    return list(nodes)


def finish(nodes: Sequence[TextNode], strategy: str) -> list[TextNode]:
    """Number each document's chunks, record the strategy and the terms and tracks it names, give it its id."""
    chunks_so_far: dict[str, int] = {}
    # The same text twice under one source and page gets two ids: twice in one document, or in two documents of
    # one file that share a page (the sections of a Word file, the sheets of a workbook).
    seen: dict[tuple[str, str], int] = {}
    for node in nodes:
        document = node.ref_doc_id or ""
        node.metadata["chunk"] = chunks_so_far.get(document, 0)
        chunks_so_far[document] = node.metadata["chunk"] + 1
        node.metadata["strategy"] = strategy
        # The id hashes what gets embedded (text + embedded metadata): a node whose vector would change
        # gets a new id, so switching the contextual prefix on or off re-embeds instead of keeping stale vectors.
        embedded = node.get_content(metadata_mode=MetadataMode.EMBED)
        where = f"{node.metadata.get('source', document)}#{node.metadata.get('page', '')}"
        repeat = seen[(where, embedded)] = seen.get((where, embedded), -1) + 1
        node.id_ = node_id(f"{where}#{repeat}", embedded)
        add_facets(node)  # filter payload only: neither embedded nor hashed into the id
    add_periods(list(nodes))  # the document's academic year (periods.py), filter payload too
    return list(nodes)
