"""Small-to-big windows: neighbours joined without the chunker's overlap, touching hits merged, near-copies dropped."""

from __future__ import annotations

import pytest

from helpers.retrieval.window import (
    Neighbours,
    StoreNeighbours,
    Windowed,
    drop_near_duplicates,
    join_overlapping,
    widen,
)
from helpers.types import Hit


def chunk(source: str, number: int, text: str, page: int | None = None, score: float = 0.0) -> Hit:
    metadata: dict[str, object] = {"source": source, "chunk": number}
    if page is not None:
        metadata["page"] = page
    return Hit(f"{source}-{page}-{number}", text, metadata, {"fused": score})


TEXTS = ["Zero is first. Then one.", "Then one. Two comes next.", "Two comes next. Three.", "Four."]
DOC = [chunk("a.md", n, text) for n, text in enumerate(TEXTS)]


def test_join_writes_the_repeated_overlap_once() -> None:
    assert join_overlapping("Term starts 5 May.", "starts 5 May. Ends June.") == "Term starts 5 May. Ends June."
    assert join_overlapping("No overlap here.", "Another text.") == "No overlap here.\nAnother text."
    assert join_overlapping("ends in a.", "a. short") == "ends in a.\na. short"  # under 8 characters: not overlap


def test_a_hit_gets_its_neighbours_of_the_same_document_only() -> None:
    other = chunk("b.md", 2, "Elsewhere.")
    neighbours = Neighbours([*DOC, other, chunk("b.md", 1, "Before elsewhere.")])
    [passage] = widen([DOC[1]], neighbours, window=1)
    assert passage.text == "Zero is first. Then one. Two comes next. Three."
    assert passage.metadata["window"] == "0-2" and passage.node_id == DOC[1].node_id
    [edge] = widen([DOC[3]], neighbours, window=1)
    assert edge.metadata["window"] == "2-3"  # no chunk 4: the window stops at the document's end


def test_pages_are_documents_of_their_own() -> None:
    pages = [chunk("h.pdf", 0, "Page one end.", page=1), chunk("h.pdf", 1, "Page two.", page=2)]
    neighbours = Neighbours([*pages, chunk("h.pdf", 1, "More of page one.", page=1)])
    [passage] = widen([pages[0]], neighbours, window=1)
    assert "Page two" not in passage.text and "More of page one" in passage.text


def test_touching_windows_merge_at_the_better_rank() -> None:
    far = chunk("c.md", 0, "Unrelated.")
    neighbours = Neighbours([*DOC, far])
    passages = widen([DOC[0], far, DOC[2]], neighbours, window=0)
    assert [p.source for p in passages] == ["a.md", "c.md", "a.md"]  # 0 and 2 do not touch at window 0
    passages = widen([DOC[0], far, DOC[3]], neighbours, window=1)
    assert [p.metadata["window"] for p in passages] == ["0-3", "0-0"]  # 0..1 and 2..3 touch: one passage
    assert passages[0].node_id == DOC[0].node_id


def test_a_later_hit_can_bridge_two_passages() -> None:
    doc = [chunk("d.md", n, f"Sentence {n} of d.") for n in range(7)]
    passages = widen([doc[0], doc[6], doc[3]], Neighbours(doc), window=1)
    assert [p.metadata["window"] for p in passages] == ["0-6"]


def test_hits_without_a_chunk_number_keep_their_place() -> None:
    loose = Hit("x", "No number.", {"source": "x.md"}, {})
    passages = widen([DOC[0], loose], Neighbours(DOC), window=1)
    assert passages[1] is loose and passages[0].metadata["window"] == "0-1"


def test_near_duplicates_are_dropped_by_containment() -> None:
    first = Hit("1", "Tuition is 5000 dollars per course for the program", {"source": "a"}, {})
    copy = Hit("2", "tuition is 5000 dollars per course", {"source": "b"}, {})
    other = Hit("3", "The library opens at nine", {"source": "c"}, {})
    assert [h.node_id for h in drop_near_duplicates([first, copy, other], 0.8)] == ["1", "3"]
    assert len(drop_near_duplicates([first, copy, other], 1.01)) == 3


class Fixed:
    """A fake retriever for this unit test only: the same ranking whatever the query."""

    def __init__(self, hits: list[Hit]) -> None:
        self.hits = hits

    def retrieve(self, query: str, k: int, filters: object = None) -> list[Hit]:
        return self.hits[:k]


def test_windowed_wraps_any_retriever() -> None:
    retriever = Windowed(Fixed([DOC[2], DOC[0]]), Neighbours(DOC), window=1)
    [passage] = retriever.retrieve("q", 2)
    assert passage.node_id == DOC[2].node_id and passage.metadata["window"] == "0-3"
    with pytest.raises(ValueError, match="window"):
        Windowed(Fixed([]), Neighbours([]), window=-1)


def test_dropped_copies_leave_room_for_the_next_distinct_passages() -> None:
    """A page repeating one paragraph: the copies go, and the top k is filled from the over-fetched hits."""
    seminar = "The career seminar is required every quarter of the program"
    copies = [Hit(f"c{i}", seminar, {"source": "p"}, {}) for i in range(4)]
    distinct = [Hit(f"d{i}", f"Passage {i} about something else entirely", {"source": "q"}, {}) for i in range(4)]
    ranking = [*copies, *distinct]
    plain = Windowed(Fixed(ranking), Neighbours([]), window=0, near_duplicate=0.8)
    fetched = Windowed(Fixed(ranking), Neighbours([]), window=0, near_duplicate=0.8, fetch_multiplier=2)
    assert [h.node_id for h in plain.retrieve("q", 4)] == ["c0"]
    assert [h.node_id for h in fetched.retrieve("q", 4)] == ["c0", "d0", "d1", "d2"]
    with pytest.raises(ValueError, match="fetch_multiplier"):
        Windowed(Fixed([]), Neighbours([]), window=0, fetch_multiplier=0)


def test_windows_read_from_the_collection_match_windows_read_from_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """StoreNeighbours asks Qdrant for a hit's source file only, and joins the same passages as Neighbours."""
    from llama_index.core.schema import TextNode
    from qdrant_client import QdrantClient

    from helpers.store import KitStore

    chunks = [*DOC, chunk("b.md", 0, "Elsewhere."), chunk("b.md", 1, "Before elsewhere.", page=2)]
    nodes = []
    for hit in chunks:
        node = TextNode(text=hit.text, id_=f"00000000-0000-0000-0000-{len(nodes):012d}", metadata=hit.metadata)
        node.embedding = [1.0, float(len(nodes))]
        nodes.append(node)
    store = KitStore(QdrantClient(":memory:"), "c", 2)
    store.upsert_nodes(nodes)
    asked: list[str] = []
    chunks_of_source = store.chunks_of_source
    monkeypatch.setattr(store, "chunks_of_source", lambda source: asked.append(source) or chunks_of_source(source))

    from_store = StoreNeighbours(store)
    hits = [DOC[2], chunks[5], DOC[0]]
    expected = widen(hits, Neighbours(chunks), window=1)
    found = widen(hits, from_store, window=1)
    assert [(p.text, p.metadata.get("window")) for p in found] == [(p.text, p.metadata.get("window")) for p in expected]
    assert found[0].metadata["window"] == "0-3" and found[1].text == "Before elsewhere."
    widen([DOC[1]], from_store, window=1)
    assert asked == ["a.md", "b.md"]  # one question per source file, remembered after
