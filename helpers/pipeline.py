"""`RAGPipeline`: the whole path in one small readable class, wiring the stages from one `Settings`.

`ingest`: documents → chunks → embeddings → Qdrant; `ask`: `check` → `retrieve` → `generate` → `Answer`.
What it leaves out: evaluation, the app and other corpora (`helpers.evaluation`, `helpers.app`, `helpers.byod`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from helpers.chunking import chunk_for_settings
from helpers.config import Settings, get_settings
from helpers.embedding import Embedder
from helpers.generation import (
    REJECTION,
    USER_TEMPLATE,
    Answer,
    Example,
    GuardResult,
    TokenBudget,
    check_input,
    closed_book_answer,
    generate_answer,
    worked_examples,
)
from helpers.generation.guard import screen_passage, unreadable_question
from helpers.llm import LLM, make_llm
from helpers.store import KitStore, connect
from helpers.store.client import bm25_in_store
from helpers.types import Hit

ENGLISH_ONLY_BACKENDS = ("local", "onnx")  # the packaged MiniLM, in torch or ONNX Runtime: trained on English

if TYPE_CHECKING:
    from llama_index.core.schema import BaseNode

    from helpers.parsing import ParseReport
    from helpers.rerank import Reranker
    from helpers.retrieval import Retriever


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
    removed_files: int = 0  # files gone from the folder since an earlier ingestion: all their chunks were removed
    removed_chunks: int = 0  # those files' chunks
    skipped: list[tuple[str, str]] = field(default_factory=list)
    notes: list[tuple[str, str]] = field(default_factory=list)  # files read by content, not by their suffix
    timings: dict[str, float] = field(default_factory=dict)  # seconds per stage: parse, chunk, embed, store
    flagged: list[tuple[str, str]] = field(default_factory=list)  # (where, why): chunks that give the assistant orders
    passage_guard: str = "drop"  # what answering does with them (the settings' passage_guard)

    def __str__(self) -> str:
        text = (
            f"{self.files} files → {self.documents} documents → {self.chunks} chunks; "
            f"{self.written} written, {self.unchanged} unchanged, {self.removed_stale} stale removed; "
        )
        if self.removed_files:
            files = f"{self.removed_files} file{'s' * (self.removed_files != 1)}"
            chunks = f"{self.removed_chunks} chunk{'s' * (self.removed_chunks != 1)}"
            text += f"{files} gone from the folder: {chunks} removed; "
        text += f"{self.points} points in the collection ({self.seconds:.1f} s)"
        for name, reason in self.skipped:
            text += f"\n  skipped {name}: {reason}"
        for name, note in self.notes:
            text += f"\n  read {name} by its content: {note}"
        action = FLAG_ACTIONS[self.passage_guard]
        for where, why in self.flagged:
            text += f"\n  flagged {where}: {why}; {action}"
        return text


FLAG_ACTIONS = {
    "drop": "its order is kept out of every prompt (passage_guard 'drop')",
    "fence": "fenced as quoted data in prompts (passage_guard 'fence')",
    "off": "read like any other passage: passage_guard is 'off'",
}


def flagged_chunks(nodes: Sequence[BaseNode]) -> list[tuple[str, str]]:
    """(where, why) for every chunk whose text gives the assistant an order (`screen_passage`): file, page, chunk."""
    found = []
    for node in nodes:
        if flag := screen_passage(node.get_content()):
            meta = node.metadata
            page = f", page {meta['page']}" if meta.get("page") not in (None, "") else ""
            found.append((f"{meta.get('source')}{page}, chunk {meta.get('chunk')}", str(flag)))
    return found


def gone_sources(store: KitStore, folder: Path, parsed: ParseReport) -> list[str]:
    """The stored sources no longer in `folder` at all (an unreadable file keeps its chunks; an empty folder too)."""
    here = {str(doc.metadata.get("source")) for doc in parsed.documents} | {name for name, _ in parsed.skipped}
    if not here:
        return []
    stored = store.distinct_values("source")  # Qdrant's facet of the field (or one pass over it): no chunk text read
    return [source for source in stored if source not in here and not os.path.lexists(folder / source)]


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
        """The Qdrant collection; when BM25 ranks in Qdrant (`bm25_backend`) each chunk has its BM25 vector there."""
        client, keywords = connect(self.settings), None
        if bm25_in_store(self.settings.retrieval.bm25_backend, client):
            from helpers.retrieval import store_keywords

            keywords = store_keywords(self.settings.retrieval)
        embedder = self.embedder
        return KitStore(client, self.settings.store.collection, embedder.dimension, keywords, embedder.model_id)

    @cached_property
    def llm(self) -> LLM:
        """The answering model (loaded on first use)."""
        return make_llm(self.settings)

    def ingest(self, folder: Path | None = None, progress: bool = True) -> IngestReport:
        """Parse, chunk, embed and upsert every file of `folder` (default: the course corpus), then `gone_sources`."""
        from helpers.parsing import parse_folder

        start = time.perf_counter()
        folder = Path(folder or self.settings.paths.corpus_dir)
        laps = [start]  # the clock after each stage
        parsed = parse_folder(folder, progress=progress, cache_dir=self.settings.paths.cache_dir)
        laps.append(time.perf_counter())
        nodes = chunk_for_settings(parsed.documents, self.settings.chunking)
        flagged = flagged_chunks(nodes)  # documents are data: a chunk that gives the assistant orders is reported
        laps.append(time.perf_counter())
        vectors = self.embedder.embed_texts([n.get_content(metadata_mode="embed") for n in nodes], progress=progress)
        for node, vector in zip(nodes, vectors, strict=True):
            node.embedding = vector.tolist()
        laps.append(time.perf_counter())
        counts = self.store.upsert_nodes(nodes)
        gone = gone_sources(self.store, folder, parsed)
        removed = self.store.remove_sources(gone)
        self.__dict__.pop("retriever", None)  # BM25 is fitted on the stored chunks: refit on next use
        if not bm25_in_store(self.settings.retrieval.bm25_backend, self.store.client):
            from helpers.retrieval import TOKENIZERS, save_bm25_beside

            save_bm25_beside(self.store, TOKENIZERS[self.settings.retrieval.bm25_tokenizer])  # next kernel: no read
        laps.append(time.perf_counter())
        files = len({d.metadata.get("source") for d in parsed.documents}) + len(parsed.skipped)
        return IngestReport(
            files=files,
            documents=len(parsed.documents),
            chunks=len(nodes),
            points=self.store.count(),
            seconds=time.perf_counter() - start,
            skipped=parsed.skipped,
            notes=parsed.notes,
            timings=dict(zip(("parse", "chunk", "embed", "store"), np.diff(laps).tolist(), strict=True)),
            removed_files=len(gone) if removed else 0,
            removed_chunks=removed,
            flagged=flagged,
            passage_guard=self.settings.generation.passage_guard,
            **counts,
        )

    def make_retriever(self, name: str | None = None, **params: Any) -> Retriever:
        """A retriever by name over this pipeline's store and embedder (`helpers.retrieval.make_retriever`)."""
        from helpers.retrieval import make_retriever

        return make_retriever(name, self.store, self.embedder, self.settings.retrieval, **params)

    def make_reranker(self, name: str | None = None) -> Reranker | None:
        """A reranker by name (`helpers.rerank.make_reranker`); the "llm" one uses this pipeline's model."""
        from helpers.rerank import make_reranker

        return make_reranker(name, self.settings, llm=lambda: self.llm)

    @cached_property
    def retriever(self) -> Retriever:
        """The configured retriever (default: the weighted hybrid + expansion), reranked when `reranker` is set."""
        from helpers.rerank import Reranked

        retriever = self.make_retriever()
        reranker = self.make_reranker()
        return Reranked(retriever, reranker, self.settings.rerank.rerank_depth) if reranker else retriever

    # -- a question's path, one step a method: check → retrieve → (fit → generate → cite) ------------------------
    def check(self, question: str) -> GuardResult:
        """Step 1, the input guard: an injection alone is blocked; one attached to a question is cut off."""
        return check_input(question)

    def retrieve(self, question: str, k: int | None = None, retriever: Retriever | None = None) -> list[Hit]:
        """Step 2: the top-k chunks of `retriever` (default: the configured one) for an already checked question."""
        return (retriever or self.retriever).retrieve(question, k or self.settings.retrieval.top_k)

    def search(self, question: str, k: int | None = None, retriever: Retriever | None = None) -> list[Hit]:
        """Steps 1 and 2, what evaluations measure: the hits the guard's cleaned question gets."""
        return self.retrieve(self.check(question).question, k, retriever)

    def generate(
        self,
        question: str,
        hits: Sequence[Hit],
        *,
        llm: LLM | None = None,
        mode: str = "sentence",
        examples: Sequence[Example] | None = None,
        on_token: Callable[[str], None] | None = None,
        budget: TokenBudget | None = None,
        refusal_threshold: float | None = None,
        template: str = USER_TEMPLATE,
    ) -> Answer:
        """Steps 3 to 5 (`generate_answer`), every argument left out taken from this pipeline's settings."""
        settings = self.settings.generation
        return generate_answer(
            question, hits, llm or self.llm, mode=mode, budget=budget or TokenBudget.from_settings(self.settings),
            examples=worked_examples(settings.worked_examples) if examples is None else examples,
            refusal_threshold=settings.refusal_threshold if refusal_threshold is None else refusal_threshold,
            on_token=on_token, style=settings.short_style, template=template,
            titles=settings.passage_titles, best_last=settings.best_passage_last, passage_guard=settings.passage_guard,
        )  # fmt: skip

    def unreadable(self, question: str) -> str:
        """Why the embedder cannot read `question` ("" when it can): MiniLM reads English only."""
        if self.settings.embedding.embed_backend in ENGLISH_ONLY_BACKENDS:
            return unreadable_question(question)
        return ""

    def ask(
        self,
        question: str,
        k: int | None = None,
        *,
        retriever: Retriever | None = None,
        mode: str = "sentence",
        examples: Sequence[Example] | None = None,
        on_token: Callable[[str], None] | None = None,
        closed_book: bool = False,
    ) -> Answer:
        """Guard, retrieve, prompt, generate: a grounded answer with numbered citations, or a refusal
        (`closed_book`: without retrieval; `on_token` receives the streamed answer)."""
        start = time.perf_counter()
        verdict = self.check(question)
        if verdict.blocked:
            return Answer(question, verdict.message or REJECTION, [], [], [], status="rejected")
        if closed_book:
            return closed_book_answer(verdict.question, self.llm)
        retriever = retriever or self.retriever
        hits = self.retrieve(verdict.question, k, retriever)
        retrieved = time.perf_counter()
        answer = self.generate(verdict.question, hits, mode=mode, examples=examples, on_token=on_token)
        answer.question = question  # the student's words, not the guard's cleaned version
        if answer.refused and mode == "sentence" and (unreadable := self.unreadable(verdict.question)):
            answer.text = unreadable  # not "I don't know": the embedder could not read the question
        answer.timings = {"retrieve": retrieved - start, **answer.timings, "total": time.perf_counter() - start}
        answer.retrieval = repr(retriever)
        return answer

    def close(self) -> None:
        """Release the model and the store (the embedded store allows one process at a time)."""
        if "llm" in self.__dict__:
            self.llm.close()
        if "store" in self.__dict__:
            self.store.client.close()
