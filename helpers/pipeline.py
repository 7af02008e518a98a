"""`RAGPipeline`: the whole path in one small readable class.

documents → chunks → embeddings → Qdrant → dense top-k → numbered prompt → LLM → `Answer`.
Each stage is a helpers module; this class only wires them from one `Settings`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from helpers.chunking import chunk_documents
from helpers.config import Settings, get_settings
from helpers.embedding import Embedder
from helpers.generation import LLM, REFUSAL, Answer, build_messages, extract_citations, make_llm
from helpers.store import Hit, KitStore, connect


@dataclass
class IngestReport:
    """What one ingestion did."""

    files: int
    documents: int
    chunks: int
    written: int
    unchanged: int
    removed_stale: int
    points: int
    seconds: float
    skipped: list[tuple[str, str]] = field(default_factory=list)

    def __str__(self) -> str:
        text = (
            f"{self.files} files → {self.documents} documents → {self.chunks} chunks; "
            f"{self.written} written, {self.unchanged} unchanged, {self.removed_stale} stale removed; "
            f"{self.points} points in the collection ({self.seconds:.1f} s)"
        )
        for name, reason in self.skipped:
            text += f"\n  skipped {name}: {reason}"
        return text


class RAGPipeline:
    """Ingest a folder into Qdrant and answer questions about it with citations."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or get_settings()

    @cached_property
    def embedder(self) -> Embedder:
        """The embedding model (loaded on first use)."""
        return Embedder(self.settings)

    @cached_property
    def store(self) -> KitStore:
        """The Qdrant collection."""
        return KitStore(connect(self.settings), self.settings.collection, self.embedder.dimension)

    @cached_property
    def llm(self) -> LLM:
        """The answering model (loaded on first use)."""
        return make_llm(self.settings)

    def ingest(self, folder: Path | None = None, progress: bool = True) -> IngestReport:
        """Parse, chunk, embed and upsert every file of `folder` (default: the course corpus)."""
        from helpers.parsing import parse_folder

        start = time.perf_counter()
        folder = Path(folder or self.settings.corpus_dir)
        parsed = parse_folder(folder, progress=progress)
        nodes = chunk_documents(parsed.documents, self.settings.chunk_tokens, self.settings.chunk_overlap)
        vectors = self.embedder.embed_texts([n.get_content(metadata_mode="embed") for n in nodes])
        for node, vector in zip(nodes, vectors, strict=True):
            node.embedding = vector.tolist()
        counts = self.store.upsert_nodes(nodes)
        files = len({d.metadata.get("source") for d in parsed.documents}) + len(parsed.skipped)
        return IngestReport(
            files=files,
            documents=len(parsed.documents),
            chunks=len(nodes),
            points=self.store.count(),
            seconds=time.perf_counter() - start,
            skipped=parsed.skipped,
            **counts,
        )

    def retrieve(self, question: str, k: int | None = None) -> list[Hit]:
        """Dense top-k chunks for a question."""
        return self.store.search(self.embedder.embed_query(question), k or self.settings.top_k)

    def ask(self, question: str, k: int | None = None) -> Answer:
        """Retrieve, prompt, generate: a grounded answer with numbered citations and timings."""
        timings: dict[str, float] = {}
        start = time.perf_counter()
        hits = self.retrieve(question, k)
        timings["retrieve"] = time.perf_counter() - start
        messages = build_messages(question, hits)
        if not hits:
            return Answer(question, REFUSAL, [], [], messages, timings=timings)
        completion = self.llm.chat(messages, self.settings.llm_max_answer_tokens)
        timings["generate"] = completion.seconds
        timings["total"] = time.perf_counter() - start
        text = completion.text.strip()
        return Answer(
            question,
            text,
            extract_citations(text, hits),
            hits,
            messages,
            completion.prompt_tokens,
            completion.completion_tokens,
            timings,
        )

    def close(self) -> None:
        """Release the model and the store (the embedded store allows one process at a time)."""
        if "llm" in self.__dict__:
            self.llm.close()
        if "store" in self.__dict__:
            self.store.client.close()
