"""Chunking: the window mechanism by hand, each strategy on a small fixture, ids, context, errors."""

from __future__ import annotations

import pandas as pd
import pytest
from llama_index.core import Document
from llama_index.core.node_parser import TokenTextSplitter
from llama_index.core.schema import MetadataMode

from helpers.chunking import (
    DEFAULT_STRATEGY,
    STRATEGIES,
    chunk_documents,
    contextual_prefix,
    count_tokens,
    merge_small_sections,
    node_id,
    token_windows,
)
from helpers.chunking.base import make_nodes
from helpers.chunking.fixed import plain_token_chunks
from helpers.chunking.sections import split_sections
from helpers.config import CHUNK_STRATEGIES, ConfigError, Settings
from helpers.corpus import Evidence, Question
from helpers.corpus.questions import question_subset
from helpers.lab import chunking as compare
from helpers.lab import common
from helpers.types import Hit

GUIDE = """# Admissions

## Deadlines

Applications close on January 15. Late applications are reviewed only if seats remain.

## Fees

The application fee is $90.

### Waivers

Fee waivers exist for McNair scholars.
"""


def doc(text: str, source: str = "guide.md", **metadata: object) -> Document:
    """A small document with the metadata the parser would give it."""
    return Document(text=text, metadata={"source": source, "title": "Guide", **metadata})


def test_token_windows_by_hand() -> None:
    tokens = list(range(10))
    assert token_windows(tokens, 4, 1) == [[0, 1, 2, 3], [3, 4, 5, 6], [6, 7, 8, 9]]
    assert token_windows(tokens, 4, 0) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]  # the last window is shorter
    assert token_windows(tokens, 6, 2) == [[0, 1, 2, 3, 4, 5], [4, 5, 6, 7, 8, 9]]  # no window inside the last
    assert token_windows(tokens, 20, 5) == [tokens]
    assert token_windows([], 4, 1) == []
    with pytest.raises(ValueError, match="overlap"):
        token_windows(tokens, 4, 4)


def test_plain_windows_agree_with_token_text_splitter() -> None:
    text = " ".join(f"word{i} is number {i}." for i in range(400))
    plain = [count_tokens(c) for c in plain_token_chunks(text, 120, 30)]
    splitter = TokenTextSplitter(chunk_size=120, chunk_overlap=30, separator=" ", backup_separators=["\n"])
    llama = [count_tokens(c) for c in splitter.split_text(text)]
    assert len(plain) == len(llama) > 5
    assert all(abs(a - b) <= 5 for a, b in zip(plain[:-1], llama[:-1], strict=True))  # the last one takes the rest
    nodes = chunk_documents([doc(text)], "fixed_tokens", size=120, overlap=30)
    assert [count_tokens(n.text) for n in nodes] == llama


def test_recursive_split_leaves_short_texts_whole_and_cuts_long_ones() -> None:
    short = "One paragraph. " * 60  # 900 characters: under 2 × 500
    assert [n.text for n in chunk_documents([doc(short)], "recursive_chars")] == [short.strip()]
    long = "\n\n".join(f"Paragraph {i}. " + "Some words here. " * 12 for i in range(10))
    nodes = chunk_documents([doc(long)], "recursive_chars")
    assert len(nodes) > 3 and all(len(n.text) <= 500 for n in nodes)
    assert nodes[0].text.startswith("Paragraph 0.") and "Paragraph 9." in nodes[-1].text


def test_paragraph_window_counts() -> None:
    text = "\n\n".join(f"Paragraph {i}." for i in range(10))
    nodes = chunk_documents([doc(text)], "paragraph_window")
    assert [n.text.count("Paragraph") for n in nodes] == [4, 4, 4]  # windows 0–3, 3–6, 6–9
    assert nodes[1].text.startswith("Paragraph 3.")  # one paragraph of overlap


def test_header_sections_carry_section_path_and_split_long_sections_with_overlap() -> None:
    paths = ["Admissions", "Admissions > Deadlines", "Admissions > Fees", "Admissions > Fees > Waivers"]
    assert [p for p, _ in split_sections(GUIDE)] == paths
    assert split_sections("```\n# not a heading\n```\n") == [("", "```\n# not a heading\n```")]
    nodes = chunk_documents([doc(GUIDE)], "header_sections")
    assert [(n.metadata["chunk"], n.metadata["section_path"]) for n in nodes] == list(enumerate(paths))
    long = "# Long\n\n" + " ".join(f"Sentence number {i} is here." for i in range(300))
    nodes = chunk_documents([doc(long)], "header_sections", size=100, overlap=20)
    assert len(nodes) > 5 and all(count_tokens(n.text) <= 100 and n.metadata["section_path"] == "Long" for n in nodes)
    assert nodes[2].text[:25] in nodes[1].text  # the overlap repeats the end of the previous chunk


def test_merge_joins_tiny_sections_within_a_document() -> None:
    guide = doc(GUIDE)
    sections = [make_nodes(guide, [body], [path])[0] for path, body in split_sections(GUIDE)]
    merged = merge_small_sections(sections, min_tokens=15)
    assert len(merged) < len(sections)
    assert merged[0].text.startswith("# Admissions") and "January 15" in merged[0].text
    assert merged[0].metadata["section_path"] == "Admissions"  # the path both sections share
    two = [make_nodes(doc("Tiny one.", source=s), ["Tiny one."])[0] for s in ("a.md", "b.md")]
    assert len(merge_small_sections(two, min_tokens=50)) == 2  # never across documents
    nodes = chunk_documents([doc(GUIDE)], "header_sections_merged", min_tokens=15)
    assert len(nodes) < len(chunk_documents([doc(GUIDE)], "header_sections"))


def test_contextual_prefix_is_embedded_but_not_shown_to_the_llm() -> None:
    node = chunk_documents([doc(GUIDE)], "header_sections")[1]
    assert contextual_prefix(node) == "Guide > Admissions > Deadlines"
    ctx = chunk_documents([doc(GUIDE)], "header_sections_merged_ctx", min_tokens=1)[1]
    assert ctx.get_content(metadata_mode="embed").startswith("context: Guide > Admissions > Deadlines\n")
    assert "context" not in ctx.get_content(metadata_mode="llm") and "January 15" in ctx.text
    assert "Guide >" not in ctx.text
    plain = chunk_documents([doc(GUIDE)], "header_sections")[1]
    assert "Guide > Admissions" not in plain.get_content(metadata_mode="embed")
    assert ctx.node_id != plain.node_id  # a different embedded text gets a different id
    via_option = chunk_documents([doc(GUIDE)], "fixed_tokens", contextual=True)[0]
    assert via_option.get_content(metadata_mode="embed").startswith("context: Guide > Admissions")  # its headings


def test_ids_are_deterministic_and_distinct_for_repeated_text() -> None:
    text = "\n\n".join(["Same paragraph."] * 8)
    first = chunk_documents([doc(text)], "paragraph_window")
    again = chunk_documents([doc(text)], "paragraph_window")
    assert [n.node_id for n in first] == [n.node_id for n in again]
    assert first[0].text == first[1].text and first[0].node_id != first[1].node_id
    assert node_id("a.md", "x") != node_id("b.md", "x")
    pages = [doc("Same text.", source="h.pdf", page=p) for p in (1, 2)]
    assert len({n.node_id for n in chunk_documents(pages, "fixed_tokens")}) == 2


@pytest.mark.parametrize("strategy", list(STRATEGIES))
def test_every_strategy_keeps_metadata(strategy: str) -> None:
    nodes = chunk_documents([doc(GUIDE, url="https://x.edu")], strategy)
    assert nodes and all(n.metadata["strategy"] == strategy and n.metadata["url"] == "https://x.edu" for n in nodes)
    assert all(n.ref_doc_id and "section_path" in n.metadata for n in nodes)
    assert all("chunk" not in n.get_content(metadata_mode="embed") for n in nodes)


def test_terms_and_tracks_a_chunk_names_are_payload_neither_embedded_nor_shown_to_the_llm() -> None:
    from helpers.chunking.facets import named_terms

    assert named_terms("fall of 2026, Winter quarter 2027, autumn 2026 and Spring 2026") == [
        "Spring 2026",
        "Autumn 2026",
        "Winter 2027",
    ]
    text = "# Winter 2027\n\nThe MLE elective ADS 631 opens.\n\n# Policies\n\nNo term is named here."
    document = Document(text=text, metadata={"source": "s.md", "title": "Schedule"})
    plain = Document(text=text.replace("Winter 2027", "Winter").replace("MLE", "X"), metadata=document.metadata)
    winter, policies = chunk_documents([document], "header_sections")
    assert winter.metadata["term"] == ["Winter 2027"] and winter.metadata["track"] == ["MLE"]
    assert "term" not in policies.metadata and "track" not in policies.metadata  # nothing named, no payload
    # the id and the embedded and LLM texts are those of a chunk without payload
    for mode in (MetadataMode.EMBED, MetadataMode.LLM):
        assert "term:" not in winter.get_metadata_str(mode) and "track:" not in winter.get_metadata_str(mode)
    assert policies.node_id == chunk_documents([plain], "header_sections")[1].node_id
    titled = Document(text="Nothing dated.", metadata={"source": "e.eml", "subject": "Spring 2027 checklist"})
    assert chunk_documents([titled], "header_sections")[0].metadata["term"] == ["Spring 2027"]  # the subject counts


def test_unknown_strategy_names_the_allowed_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown chunking strategy 'tokens'.*fixed_tokens.*header_sections"):
        chunk_documents([doc(GUIDE)], "tokens")


def test_config_knows_the_strategies_and_the_default() -> None:
    assert tuple(STRATEGIES) == CHUNK_STRATEGIES and Settings().chunking.chunk_strategy == DEFAULT_STRATEGY
    with pytest.raises(ValueError, match="chunk_strategy = 'x' is not allowed; choose one of: fixed_tokens"):
        Settings(chunk_strategy="x")


def test_comparison_helpers() -> None:
    fee = (Evidence("guide.md", "application fee is $90"),)
    questions = [Question(f"q{i}", "?", "a", c, "dev", fee) for i, c in enumerate(["numerical"] * 5 + ["date"] * 2)]
    assert compare.quotes_inside(chunk_documents([doc(GUIDE)], "header_sections"), questions) == 1.0
    subset = question_subset(questions, per_category=2, seed=1)
    assert len(subset) == 4 and subset == question_subset(questions, per_category=2, seed=1)
    table = pd.DataFrame({"strategy": ["a", "b", "c"], "recall@5": [0.9, 0.7, 0.7], "MRR": [0.9, 0.4, 0.6]})
    table = table.assign(chunks=[1, 2, 3], **{f"recall in {compare.CONTEXT_BUDGET} tokens": [0.5, 0.7, 0.7]})
    assert compare.best_strategy(table) == "c" and compare.best_strategy(table, by="recall@5") == "a"
    # The ci profile keeps the documents holding evidence plus a few others; the full profile keeps all.
    documents = [doc(f"Text {i}.", source=f"d{i}.md") for i in range(30)] + [doc(GUIDE)]
    assert common.profile_subset(documents, questions, Settings(profile="full")) == (documents, questions)
    kept, _ = common.profile_subset(documents, questions, Settings(profile="ci"), other_documents=5)
    assert len(kept) == 6 and kept[-1].metadata["source"] == "guide.md"


def test_recall_within_budget_counts_only_chunks_that_fit() -> None:
    question = Question("q", "?", "a", "numerical", "dev", (Evidence("a.md", "The application fee is $90."),))
    hits = [Hit("1", "filler " * 400, {"source": "a.md"}), Hit("2", "The application fee is $90.", {"source": "a.md"})]
    assert compare.recall_within_budget([question], lambda q: hits, budget=300) == 0.0  # the first always fits, alone
    assert compare.recall_within_budget([question], lambda q: hits, budget=1000) == 1.0


def test_word_windows_share_the_overlap_and_keep_line_breaks():
    from helpers.chunking import word_spans

    text = "\n".join(f"w{i}" for i in range(600))
    chunks = word_spans(text, size=250, overlap=50)
    assert [len(c.split()) for c in chunks] == [250, 250, 200]
    assert chunks[1].split()[0] == "w200" and "\n" in chunks[0]
    assert word_spans("", 250, 50) == [] and word_spans("a b", 250, 50) == ["a b"]


def test_chunk_for_settings_uses_size_and_overlap():
    from helpers.chunking import chunk_for_settings

    document = Document(text=" ".join(f"w{i}" for i in range(1000)), metadata={"source": "x.txt"})
    settings = Settings(chunk_strategy="word_window", chunk_size=100, chunk_overlap=0)
    assert [len(n.text.split()) for n in chunk_for_settings([document], settings.chunking)] == [100] * 10
    with pytest.raises(ConfigError):
        Settings(chunk_size=100, chunk_overlap=100)


def test_contextual_headers_name_the_headings_above_every_strategy_s_chunks() -> None:
    from llama_index.core.schema import MetadataMode

    from helpers.chunking.sections import heading_trails

    text = "Intro line.\n\n# Admissions\n\n" + "Apply by May 5. " * 40 + "\n\n## Fees\n\n" + "The fee is $90. " * 40
    assert [path for _, path in heading_trails(text)] == ["Admissions", "Admissions > Fees"]
    document = Document(text=text, metadata={"source": "x.md", "title": "Handbook"})
    plain = chunk_documents([document], "recursive_chars")
    nodes = chunk_documents([document], "recursive_chars", contextual=True)
    assert [n.text for n in nodes] == [n.text for n in plain]  # the reader's text is unchanged
    fee_chunk = next(n for n in nodes if "fee is $90" in n.text and "Apply" not in n.text)
    assert fee_chunk.get_content(MetadataMode.EMBED).startswith("context: Handbook > Admissions > Fees")
    assert "context:" not in fee_chunk.get_content(MetadataMode.LLM) and "Admissions" not in fee_chunk.text
    assert {n.node_id for n in nodes}.isdisjoint(n.node_id for n in plain)  # other vectors: other ids
