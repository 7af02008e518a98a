"""Chunking speed: seconds per MB of each strategy, beside the obvious (slow) code and one tokenizer pass.

What it does: chunks the parsed course corpus, the same text as one long document, and the real-document set
(`<data_dir>/realworld/docs`, or `--folder`) with every strategy, twice: with the kit's code and with the
obvious reference code kept here (every chunk hashes its whole document for its link; `glue` sums its
window at every step; LlamaIndex's splitters count every word again), and checks the two give identical
nodes. The floor beside each figure is one cl100k_base pass over the same text (what any token-aware
chunker must at least do). Parsing is not timed (see `ingest`).
What it leaves out: embedding and storage; semantic chunking (the kit has none).

    .venv/bin/python -m bench.chunking [--smoke] [--folder DIR]
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from unittest import mock

from llama_index.core import Document
from llama_index.core.schema import NodeRelationship, TextNode

from bench.common import Record, arguments, ratio


def reference_make_nodes(
    document: Document, texts: Sequence[str], section_paths: Sequence[str] | None = None
) -> list[TextNode]:
    """The obvious `make_nodes`: every node asks the document for its link (and so hashes the whole document)."""
    from helpers.chunking.base import NOT_EMBEDDED, NOT_FOR_LLM

    nodes = []
    for text, section_path in zip(texts, section_paths or [""] * len(texts), strict=True):
        node = TextNode(
            text=text,
            metadata={**document.metadata, "section_path": section_path},
            excluded_embed_metadata_keys=[*document.excluded_embed_metadata_keys, *NOT_EMBEDDED],
            excluded_llm_metadata_keys=[*document.excluded_llm_metadata_keys, *NOT_FOR_LLM],
        )
        node.relationships[NodeRelationship.SOURCE] = document.as_related_node_info()
        nodes.append(node)
    return nodes


def reference_glue(pieces: list[str], size: int, overlap: int) -> list[str]:
    """The obvious `glue`: the window's length summed again at every step."""
    chunks: list[str] = []
    window: list[str] = []
    for piece in pieces:
        if window and sum(map(len, window)) + len(piece) > size:
            chunks.append("".join(window))
            while window and (sum(map(len, window)) > overlap or sum(map(len, window)) + len(piece) > size):
                window.pop(0)
        window.append(piece)
    chunks.append("".join(window))
    return [chunk.strip() for chunk in chunks if chunk.strip()]


@contextmanager
def reference_chunking() -> Iterator[None]:
    """Inside this block the chunking strategies run the reference code (a stand-in for comparison only)."""
    from llama_index.core.utils import get_tokenizer

    from helpers.chunking import fixed, paragraphs, recursive, sections, words

    with ExitStack() as stack:
        for module in (fixed, paragraphs, recursive, sections, words):
            stack.enter_context(mock.patch.object(module, "make_nodes", reference_make_nodes))
        stack.enter_context(mock.patch.object(recursive, "glue", reference_glue))
        for module in (fixed, sections):
            stack.enter_context(mock.patch.object(module, "splitter_tokenizer", get_tokenizer))
        yield


def snapshot(nodes: list[TextNode]) -> str:
    """Everything the nodes carry (text, metadata, ids, relationships) as one comparable string."""
    return json.dumps([node.model_dump() for node in nodes], sort_keys=True, default=str)


def timed(documents: list[Document], strategy: str) -> tuple[float, list[TextNode]]:
    """Seconds to chunk `documents` with `strategy`, and the nodes."""
    from helpers.chunking import chunk_documents

    start = time.perf_counter()
    nodes = chunk_documents(documents, strategy)
    return time.perf_counter() - start, nodes


def tokenizer_pass_s(documents: list[Document]) -> float:
    """Seconds for one cl100k_base pass over every document (the floor of a token-aware chunker)."""
    from helpers.chunking.base import count_tokens

    start = time.perf_counter()
    for document in documents:
        count_tokens(document.text)
    return time.perf_counter() - start


def measure_corpus(name: str, documents: list[Document], strategies: list[str], compare: bool) -> list[dict]:
    """One row per strategy: chunks, s/MB of the kit's code and of the reference code, identical or not."""
    mb = sum(len(d.text.encode()) for d in documents) / 1e6
    floor = tokenizer_pass_s(documents)
    rows = []
    for strategy in strategies:
        fast_s, nodes = timed(documents, strategy)
        row = {"corpus": name, "documents": len(documents), "mb": round(mb, 3), "strategy": strategy,
               "chunks": len(nodes), "seconds": round(fast_s, 3), "s_per_mb": round(fast_s / mb, 3),
               "tokenizer_pass_s_per_mb": round(floor / mb, 3),
               "over_tokenizer_pass": ratio(fast_s, floor)}  # fmt: skip
        if compare:
            with reference_chunking():
                slow_s, slow_nodes = timed(documents, strategy)
            row |= {"reference_s_per_mb": round(slow_s / mb, 3), "speedup": ratio(slow_s, fast_s, 1),
                    "identical_nodes": snapshot(nodes) == snapshot(slow_nodes)}  # fmt: skip
        print(row, flush=True)
        rows.append(row)
    return rows


def corpora(folder: Path | None, smoke: bool) -> dict[str, list[Document]]:
    """The parsed course corpus, the same as one long document, and the real documents when present."""
    from helpers.config import get_settings
    from helpers.parsing import parse_folder

    settings = get_settings()
    course = parse_folder(settings.paths.corpus_dir, progress=False, cache_dir=settings.paths.cache_dir).documents
    found = {"course": course}
    if smoke:
        return found
    text = "\n\n".join(document.text for document in course)
    found["course as one document"] = [Document(text=text, metadata={"source": "all.md", "title": "All"})]
    real = folder or settings.paths.data_dir / "realworld" / "docs"
    if real.is_dir():
        real_documents = parse_folder(real, progress=False, cache_dir=settings.paths.cache_dir).documents
        found[f"real documents ({real})"] = real_documents
    return found


def main() -> None:
    """Measure and write chunking.json."""
    args = arguments(__doc__.splitlines()[0], lambda p: p.add_argument("--folder", type=Path, default=None))
    import helpers  # noqa: F401
    from helpers.chunking import STRATEGIES, chunk_documents

    record = Record("chunking", args.out, args.smoke)
    found = corpora(args.folder, args.smoke)
    chunk_documents(found["course"], "header_sections")  # warm up: the tokenizers and sentence splitter load once
    strategies = ["recursive_chars", "word_window"] if args.smoke else list(STRATEGIES)
    rows = [row for name, docs in found.items() for row in measure_corpus(name, docs, strategies, not args.smoke)]
    record["rows"] = rows
    record.save()


if __name__ == "__main__":
    main()
