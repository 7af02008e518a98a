"""The RAG Teaching Kit: the package every notebook imports (`import helpers`).

The dependency rule, in folders (checked by tests/test_architecture.py on every import, function-local and
TYPE_CHECKING ones included): a folder imports only from its own layer or below, no two folders import each other,
and no imports close a circle. Bottom first:

    foundation    config, types (Hit), mechanisms (the slots a student's function can fill: `use`), models
                  (model files), llm (LLM clients and caches), corpus (Question, every question-set loader, the
                  indirect-injection suite),
                  metrics (hit@k, MRR, nDCG, EM/F1: pure functions)
    parsing       files → Documents (+ LLM metadata enrichment)
    chunking      Documents → nodes
    embedding     texts → vectors (+ the shipped course vectors)
    store         Qdrant collection of nodes
    retrieval     dense, BM25, hybrid + expansion, metadata filters, post-processing
    rerank        re-scoring the first stage's candidates
    query         multi-query and follow-up rewriting (wrap any retriever, reranked or not)
    generation    prompt, token budget, answer with citations, guard, an answer's scores against gold
    lab           the experiments the notebooks run to compare a stage's choices, one module per stage or topic,
                  and what they share (`lab.common`: the profile's subsets, an exact numpy retriever); no pipeline
    pipeline      core (the visible loop of notebook 00: embed, cosine top-k, numbered prompt, LLM, citations) and
                  RAGPipeline, its upgrade: composes the stages; a stage's factory takes the parts it uses
                  (`make_retriever(name, store, embedder, settings.retrieval)`), `pipeline.make_retriever(name)`
                  passes them
    applications  evaluation, sources, testset
    byod          your own folder of documents
    exercises     the exercises' self-checks (`exercises.base` is their framework), one module per stage
    interfaces    app, classroom, the command line, this package

A stage folder holds only its stage: what compares, reports or checks lives in `lab/` or `exercises/`, and those two
are leaves: nothing else imports them (what the product needs of a measurement lives in a stage, `corpus` or
`evaluation`). No stage
reads the process's settings (`get_settings()`): its caller hands it its own section (`settings.retrieval`,
`settings.chunking`) or, where it needs several, the whole `Settings`.

Importing it makes the process offline-safe before any library starts: Hugging Face libraries are
told not to reach the hub, and tiktoken reads the BPE files that llama-index-core ships instead of
downloading them. OpenMP threads (torch and llama.cpp both use libgomp) sleep instead of spinning while
they wait, which keeps a 2-core laptop responsive when two processes compute at once.
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
