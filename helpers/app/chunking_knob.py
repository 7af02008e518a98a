"""The chunking strategy as a knob: each strategy searches its own collection (`<base>_by_<strategy>`), indexed
the first time it is chosen with the app's embedder, store connection and model.
What it leaves out: a strategy's own sizes (each runs at its defaults) and removing the extra collections.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from functools import cached_property
from typing import Any

from helpers.app.search import SearchBuilder
from helpers.chunking import chunk_for_settings
from helpers.config import Settings
from helpers.pipeline import RAGPipeline
from helpers.store import KitStore, class_collection

PROBE_CHUNKS = 16  # embedded first, timed, to say how long the rest takes
Step = Callable[[str], None]


def strategy_collection(base: str, strategy: str) -> str:
    """The collection of one chunking strategy beside the base collection: "course" → "course_by_fixed_tokens"."""
    return f"{base}_by_{strategy}"


def strategy_settings(settings: Settings, strategy: str) -> Settings:
    """The base settings with another chunking strategy (at its own sizes) and that strategy's collection."""
    name = class_collection(strategy_collection(settings.store.collection, strategy), settings.store)
    return settings.replace(chunk_strategy=strategy, chunk_size=0, chunk_overlap=-1, collection=name)


class StrategyPipeline(RAGPipeline):
    """A pipeline over another strategy's collection that borrows the base pipeline's embedder, store and LLM."""

    def __init__(self, base: RAGPipeline, strategy: str) -> None:
        super().__init__(strategy_settings(base.settings, strategy))
        self.base = base

    @cached_property
    def embedder(self) -> Any:
        """The base pipeline's embedder (one model in memory)."""
        return self.base.embedder

    @cached_property
    def store(self) -> KitStore:
        """This strategy's collection, on the base pipeline's connection (the embedded folder is opened once)."""
        base = self.base
        return KitStore(
            base.store.client, self.settings.store.collection, base.embedder.dimension, None, base.embedder.model_id
        )

    @property
    def llm(self) -> Any:
        """The base pipeline's language model."""
        return self.base.llm

    def close(self) -> None:
        """Nothing to release: the base pipeline owns every shared part."""


def seconds_text(seconds: float) -> str:
    """A wait in words: under a second, in seconds, or in minutes."""
    if seconds < 1:
        return "under a second"
    return f"about {seconds:.0f} s" if seconds < 120 else f"about {seconds / 60:.0f} min"


def index_strategy(pipeline: RAGPipeline, step: Step) -> None:
    """Fill an empty strategy collection from the base folder, saying beforehand how long it will take."""
    from helpers.parsing import parse_folder

    settings, start = pipeline.settings, time.perf_counter()
    folder = settings.paths.corpus_dir
    step(f"first use of chunking '{settings.chunking.chunk_strategy}': reading {folder.name} …")
    documents = parse_folder(folder, progress=False, cache_dir=settings.paths.cache_dir).documents
    texts = [node.get_content(metadata_mode="embed") for node in chunk_for_settings(documents, settings.chunking)]
    probing = time.perf_counter()
    pipeline.embedder.embed_texts(texts[:PROBE_CHUNKS])  # cached: the ingestion below reuses these vectors
    per_chunk = (time.perf_counter() - probing) / max(1, min(len(texts), PROBE_CHUNKS))
    rest = per_chunk * max(0, len(texts) - PROBE_CHUNKS)
    step(
        f"first use of chunking '{settings.chunking.chunk_strategy}': embedding {len(texts):,} chunks into the "
        f"collection '{settings.store.collection}', {seconds_text(rest)} (only this once) …"
    )
    report = pipeline.ingest(folder, progress=False)
    took = time.perf_counter() - start
    step(f"chunking '{settings.chunking.chunk_strategy}' indexed: {report.points:,} chunks in {took:.0f} s")


class ChunkingIndexes:
    """One `SearchBuilder` per chunking strategy: the app's own for its strategy, the others made on first use."""

    def __init__(self, base: SearchBuilder) -> None:
        self.base = base
        self.builders = {base.pipeline.settings.chunking.chunk_strategy: base}
        self.lock = threading.Lock()  # a question and its A/B twin must not index the same strategy twice

    def search_for(self, strategy: str, step: Step = lambda _: None) -> SearchBuilder:
        """The search over `strategy`'s collection, indexing it first if it is empty."""
        with self.lock:
            if strategy not in self.builders:
                pipeline = StrategyPipeline(self.base.pipeline, strategy)
                if pipeline.store.count() == 0:
                    index_strategy(pipeline, step)
                self.builders[strategy] = SearchBuilder(pipeline)
            return self.builders[strategy]
