"""The RAG Teaching Kit: the package every notebook imports (`import helpers`).

The dependency rule (tests/test_architecture.py): a folder imports only from its own layer or below, no two folders
import each other, no imports close a circle. Bottom first:

    foundation    config, types (Hit), mechanisms (the slots), models, llm, corpus (questions), metrics
    parsing       files → Documents (+ LLM metadata enrichment)
    chunking      Documents → nodes
    embedding     texts → vectors (+ the shipped course vectors)
    store         Qdrant collection of nodes
    retrieval     dense, BM25, hybrid + expansion, metadata filters, post-processing
    rerank        re-scoring the first stage's candidates
    query         multi-query and follow-up rewriting
    generation    prompt, token budget, answer with citations, guard, an answer's scores against gold
    lab           the notebooks' experiments comparing a stage's choices; no pipeline
    pipeline      core (notebook 00's visible loop) and RAGPipeline, which composes the stages
    applications  evaluation, sources, testset
    byod          your own folder of documents
    exercises     the exercises' self-checks, one module per stage
    interfaces    app, classroom, the command line, this package

`lab/` and `exercises/` are leaves: nothing else imports them. No stage reads `get_settings()`: its caller hands
it its section (`settings.retrieval`) or the whole `Settings`.

Importing it makes the process offline-safe (no Hugging Face hub, tiktoken's BPE files from llama-index-core) and
lets idle OpenMP threads sleep, so two busy processes share a 2-core laptop.
What it leaves out: everything else is imported on first use (`helpers.ingest_folder` loads `helpers.byod`).
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path


def _offline_environment() -> None:
    """Set the environment variables that keep every library offline (unless the user set them)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")
    # Spinning OpenMP threads steal the cores a second busy process needs (docs/decisions.md):
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    spec = importlib.util.find_spec("llama_index.core")
    if spec is not None and spec.submodule_search_locations:
        cache = Path(next(iter(spec.submodule_search_locations))) / "_static" / "tiktoken_cache"
        os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(cache))


_offline_environment()

from helpers.config import Settings, get_settings, load_settings, show  # noqa: E402

__all__ = ["Settings", "get_settings", "load_settings", "show"]

_BYOD = ("ingest_folder", "load_questions", "evaluate_questions")  # loaded on first use: torch stays unimported


def __getattr__(name: str) -> object:
    """`helpers.ingest_folder` and friends, imported from `helpers.byod` only when first used."""
    if name in _BYOD:
        from helpers import byod

        return getattr(byod, name)
    raise AttributeError(f"module 'helpers' has no attribute {name!r}")
