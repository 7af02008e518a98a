"""Header sections (the study knowledge base's: Markdown headings, sections over 700 tokens split with 120 overlap).

Every "# …" line the parser wrote starts a section that remembers its `section_path` ("Funding > Scholarships");
`merge_small_sections` joins small sections to a neighbour, and LlamaIndex's `SentenceSplitter` splits long ones.
What it leaves out: Setext headings (underlined with === or ---) and the HTML DOM itself.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Sequence

from llama_index.core import Document
from llama_index.core.node_parser import SentenceSplitter
from llama_index.core.schema import TextNode

from helpers.chunking.base import SEPARATOR, chunk_starts, count_tokens, make_nodes, splitter_tokenizer

HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
MIN_SECTION_TOKENS = 100


def split_sections(text: str) -> list[tuple[str, str]]:
    """(section path, section text) for each heading; any text before the first heading has the path ""."""
    sections: list[tuple[str, str]] = []
    path: list[tuple[int, str]] = []  # (level, heading) of the headings above the current line
    lines: list[str] = []
    fenced = False
    for line in text.splitlines():
        fenced ^= line.lstrip().startswith("```")  # a "#" inside a code block is a comment, not a heading
        heading = None if fenced else HEADING.match(line)
        if heading:
            # Close the section so far, then replace the headings at this level or deeper.
            sections.append((SEPARATOR.join(title for _, title in path), "\n".join(lines).strip()))
            level = len(heading.group(1))
            path = [(lv, title) for lv, title in path if lv < level] + [(level, heading.group(2))]
            lines = []
        lines.append(line)
    sections.append((SEPARATOR.join(title for _, title in path), "\n".join(lines).strip()))
    return [(section_path, body) for section_path, body in sections if body]


def heading_trails(text: str) -> list[tuple[int, str]]:
    """(offset, section path) at each heading of `text`: the path that holds from that offset on."""
    trails: list[tuple[int, str]] = []
    path: list[tuple[int, str]] = []
    offset, fenced = 0, False
    for line in text.splitlines(keepends=True):
        fenced ^= line.lstrip().startswith("```")
        heading = None if fenced else HEADING.match(line.rstrip("\r\n"))
        if heading:
            level = len(heading.group(1))
            path = [(lv, title) for lv, title in path if lv < level] + [(level, heading.group(2))]
            trails.append((offset, SEPARATOR.join(title for _, title in path)))
        offset += len(line)
    return trails


def fill_section_paths(document: Document, nodes: Sequence[TextNode]) -> list[TextNode]:
    """Give each node without a section path the headings above where its text starts in the document (a chunk
    whose start is not found as written keeps the path it had)."""
    trails = heading_trails(document.text)
    if not trails:
        return list(nodes)
    starts = [offset for offset, _ in trails]
    pathless = [node for node in nodes if not node.metadata.get("section_path")]
    for node, found in zip(pathless, chunk_starts(document.text, [node.text[:200] for node in pathless]), strict=True):
        before = bisect.bisect_right(starts, found + len(node.text) // 2) - 1  # the heading over most of it
        if found >= 0 and before >= 0:
            node.metadata["section_path"] = trails[before][1]
    return list(nodes)


def shared_path(first: str, second: str) -> str:
    """The leading headings two section paths have in common ("A > B" and "A > C" share "A")."""
    shared: list[str] = []
    for a, b in zip(first.split(SEPARATOR), second.split(SEPARATOR), strict=False):
        if a != b:
            break
        shared.append(a)
    return SEPARATOR.join(shared)


def _join(first: TextNode, second: TextNode) -> TextNode:
    """One node holding both texts, under the section path the two share (else the first one's)."""
    joined = first.model_copy(deep=True)
    joined.set_content(f"{first.text}\n\n{second.text}")
    shared = shared_path(str(first.metadata["section_path"]), str(second.metadata["section_path"]))
    joined.metadata["section_path"] = shared or first.metadata["section_path"]
    return joined


def merge_small_sections(nodes: Sequence[TextNode], min_tokens: int = MIN_SECTION_TOKENS) -> list[TextNode]:
    """Join each section under `min_tokens` to the next one of its document (the last one to the one before)."""
    merged_all: list[TextNode] = []
    for _, group in itertools.groupby(nodes, key=lambda node: node.ref_doc_id):
        merged: list[TextNode] = []
        for node in group:
            # A small section so far absorbs the next one (and keeps absorbing until it is big enough).
            if merged and count_tokens(merged[-1].text) < min_tokens:
                merged[-1] = _join(merged[-1], node)
            else:
                merged.append(node)
        # A small last section has no next neighbour: it joins the previous one.
        if len(merged) > 1 and count_tokens(merged[-1].text) < min_tokens:
            merged[-2:] = [_join(merged[-2], merged[-1])]
        merged_all.extend(merged)
    return merged_all


def header_sections(document: Document, size: int = 700, overlap: int = 120, min_tokens: int = 0) -> list[TextNode]:
    """One node per heading section; small ones merged (if `min_tokens`), long ones split with overlap."""
    sections = split_sections(document.text)
    nodes = make_nodes(document, [body for _, body in sections], [path for path, _ in sections])
    if min_tokens:
        nodes = merge_small_sections(nodes, min_tokens)
    splitter = SentenceSplitter(
        chunk_size=size, chunk_overlap=overlap, paragraph_separator="\n\n", tokenizer=splitter_tokenizer()
    )
    texts: list[str] = []
    paths: list[str] = []
    for node in nodes:
        pieces = splitter.split_text(node.text) if count_tokens(node.text) > size else [node.text]
        texts.extend(pieces)
        paths.extend([node.metadata["section_path"]] * len(pieces))
    return make_nodes(document, texts, paths)


def header_sections_merged(
    document: Document, size: int = 700, overlap: int = 120, min_tokens: int = MIN_SECTION_TOKENS
) -> list[TextNode]:
    """Header sections with sections under `min_tokens` merged into their neighbour."""
    return header_sections(document, size, overlap, min_tokens)
