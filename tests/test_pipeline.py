"""The walking skeleton: ids, idempotent ingestion, citations, and one real end-to-end answer."""

from __future__ import annotations

from pathlib import Path

import pytest
from llama_index.core import Document
from qdrant_client import QdrantClient

from helpers.chunking import chunk_documents, node_id
from helpers.config import Settings
from helpers.generation import extract_citations
from helpers.llm.client import Completion
from helpers.pipeline import RAGPipeline
from helpers.store import KitStore, StoreError
from helpers.types import Hit


def test_node_ids_are_deterministic_and_content_based() -> None:
    doc = Document(text="Alpha. " * 200, metadata={"source": "a.md"})
    first = [n.node_id for n in chunk_documents([doc], "fixed_tokens", size=64, overlap=8)]
    again = [n.node_id for n in chunk_documents([doc], "fixed_tokens", size=64, overlap=8)]
    assert first == again and len(set(first)) == len(first) > 1
    assert node_id("a.md", "x") != node_id("b.md", "x")


def test_reingest_never_duplicates_and_replaces_changed_documents(tmp_settings: Settings, tiny_corpus: Path) -> None:
    pipeline = RAGPipeline(tmp_settings)
    try:
        first = pipeline.ingest(tiny_corpus, progress=False)
        second = pipeline.ingest(tiny_corpus, progress=False)
        assert first.points == second.points == first.chunks > 0
        assert second.written == 0 and second.unchanged == first.chunks
        (tiny_corpus / "capstone.md").write_text("# Capstone Studio\n\nTeams now have two to four students.\n")
        third = pipeline.ingest(tiny_corpus, progress=False)
        assert third.removed_stale >= 1 and third.points == first.points
        texts = " ".join(h.text for h in pipeline.retrieve("capstone team size", k=5))
        assert "two to four" in texts and "three to five" not in texts
    finally:
        pipeline.close()


@pytest.mark.parametrize("backend", ["local", "edge"])
def test_remove_sources_deletes_every_chunk_of_those_files_and_their_bm25_counts(tmp_path: Path, backend: str) -> None:
    """`KitStore.remove_sources`, as `ingest` calls it for files gone from the folder: by a filter on `source`, in
    batches, on the embedded store and qdrant-edge, with the BM25 totals kept right and a new points version."""
    from llama_index.core.schema import MetadataMode
    from test_store import DIM, make_nodes

    from helpers.retrieval import tokenize
    from helpers.store import open_edge_folder
    from helpers.store.keywords import Keywords

    if backend == "edge":
        pytest.importorskip("qdrant_edge")
    client = open_edge_folder(tmp_path / "edge") if backend == "edge" else QdrantClient(":memory:")
    store = KitStore(client, "c", DIM, Keywords("kit", tokenize))
    texts = {"a.md": ["alpha one", "alpha two"], "b.md": [f"beta {i} of the gone file" for i in range(5)]}
    nodes = make_nodes({**texts, "c.md": ["gamma"]})
    store.upsert_nodes(nodes)
    version = store.points_version()
    assert store.remove_sources(["b.md", "never_stored.md"], batch_size=2) == 5
    assert store.ids_of_source("b.md") == set() and store.count() == 3 and store.points_version() != version
    kept = [n for n in nodes if n.metadata["source"] != "b.md"]
    record = store.bm25.record()
    assert record["chunks"] == 3
    assert record["tokens"] == sum(len(tokenize(n.get_content(metadata_mode=MetadataMode.EMBED))) for n in kept)
    version = store.points_version()
    assert store.remove_sources([]) == store.remove_sources(["b.md"]) == 0 and store.points_version() == version
    client.close()


def test_dimension_mismatch_is_refused_with_a_message() -> None:
    client = QdrantClient(":memory:")
    KitStore(client, "c", 384)
    with pytest.raises(StoreError, match="384-d vectors but the embedder makes 768-d"):
        KitStore(client, "c", 768)


def test_citations_map_numbers_to_hits() -> None:
    hits = [Hit(f"id{i}", f"text {i}", {"source": f"doc{i}.md", "chunk": i}) for i in range(3)]
    cites = extract_citations("Fee is $90 [2]. Also [1, 3] and [9].", hits)
    assert [c.number for c in cites] == [2, 1, 3]
    assert cites[0].source == "doc1.md" and cites[0].node_id == "id1"


def test_ask_end_to_end_with_the_tiny_model(tmp_settings: Settings, tiny_corpus: Path) -> None:
    """A real run: real embedder, real embedded Qdrant, the real (tiny) local LLM."""
    pipeline = RAGPipeline(tmp_settings)
    try:
        pipeline.ingest(tiny_corpus, progress=False)
        answer = pipeline.ask("How much is the application fee?", k=2)
        best = (
            answer.hits[-1] if tmp_settings.generation.best_passage_last else answer.hits[0]
        )  # right above the question
        assert best.source == "fees.md"
        assert answer.text and answer.completion_tokens > 0
        assert "generate" in answer.timings and answer.messages[0]["role"] == "system"
        assert answer.retrieval == repr(pipeline.retriever) and f"retrieval: {answer.retrieval}" in str(answer)
    finally:
        pipeline.close()


class PromptRecorder:
    """A stand-in for the model, in this unit test only: it keeps the messages it is sent and answers a fixed text."""

    name = "prompt-recorder"

    def __init__(self) -> None:
        self.calls: list[tuple[list[dict[str, str]], int]] = []

    def chat(self, messages: list[dict[str, str]], max_tokens: int) -> Completion:
        self.calls.append((messages, max_tokens))
        return Completion("$90 [1]", 0, 3, 0.0)


def test_the_pipeline_with_its_extras_off_is_the_visible_core(tmp_path: Path) -> None:
    """RAGPipeline is TinyRAG (notebook 00's loop) upgraded: with dense search only, no step around it and no extra in
    the prompt, both give notebook 00's question the same passages in the same order (through Qdrant and through a
    numpy matrix) and send the model the same messages with the same answer length."""
    from helpers.config import get_settings
    from helpers.core import TinyRAG, course_chunks

    question = "What is the application fee for the MS program?"
    extras_off = dict(retriever="dense", query_expansion=False, near_duplicate=0.0, context_window=0,
                      dedupe_by_source=False, similarity_threshold=0.0, period_aware=False,
                      reranker="none",  # retrieval
                      worked_examples="none", best_passage_last=False, passage_guard="off", passage_titles=False,
                      refusal_threshold=0.0, short_style="forced", context_tokens=3000)  # fmt: skip
    settings = get_settings().replace(data_dir=tmp_path / "data", **extras_off)
    pipeline = RAGPipeline(settings)
    try:
        pipeline.ingest(progress=False)
        assert repr(pipeline.retriever) == "Dense"
        hits = pipeline.search(question)
        core_model, pipeline_model = PromptRecorder(), PromptRecorder()
        tiny = TinyRAG(course_chunks(settings), pipeline.embedder, core_model, k=settings.retrieval.top_k)
        passages = tiny.retrieve(question)
        assert [(hit.source, hit.text) for hit in hits] == [(chunk.source, chunk.text) for chunk, _ in passages]
        assert [hit.scores["dense"] for hit in hits] == pytest.approx([score for _, score in passages], abs=1e-4)
        reply = tiny.ask(question)
        answer = pipeline.generate(question, hits, llm=pipeline_model, mode="short")  # type: ignore[arg-type]
        assert len(answer.hits) == len(reply.passages) == settings.retrieval.top_k  # nothing cut by the budget
        assert pipeline_model.calls == core_model.calls and answer.messages == reply.messages
        assert reply.cited == [1] and [c.number for c in answer.citations] == [1]
    finally:
        pipeline.close()
