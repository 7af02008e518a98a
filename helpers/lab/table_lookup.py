"""Table-to-text measured by retrieval: table_lookup questions against raw table text and rows as sentences, over
the whole corpus (a subset gives the raw rows too few distractors), with answer-based relevance that favours neither.
What it leaves out: BM25 and hybrid search (notebook 05), and tables inside scanned PDFs.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
from llama_index.core import Document

from helpers.chunking import DEFAULT_STRATEGY, chunk_documents
from helpers.config import Settings, get_settings
from helpers.corpus import DOCS_DIR, Question
from helpers.embedding import Embedder
from helpers.lab.common import dense_retriever
from helpers.metrics import contains_answer, evaluate_answer_retrieval
from helpers.parsing import parse_folder

MODES = ("raw", "sentences")


def parse_both_ways(settings: Settings | None = None) -> dict[str, list[Document]]:
    """The whole corpus with tables as raw cell lines and as sentences (through the kit's parse cache)."""
    cache_dir = (settings or get_settings()).paths.cache_dir
    return {mode: parse_folder(DOCS_DIR, tables=mode, progress=False, cache_dir=cache_dir).documents for mode in MODES}


def score_mode(
    documents: Sequence[Document], questions: Sequence[Question], embedder: Embedder, strategy: str, k: int = 5
) -> dict:
    """Chunk, embed and search one parse of the corpus; hit@1, recall@k and MRR by answer-based relevance."""
    nodes = chunk_documents(documents, strategy)
    scores = evaluate_answer_retrieval(questions, dense_retriever(nodes, embedder, k=10), ks=(1, k)).mean()
    return {
        "chunker": strategy,
        "chunks": len(nodes),
        "hit@1": round(float(scores["hit@1"]), 3),
        f"recall@{k}": round(float(scores[f"recall@{k}"]), 3),
        "MRR": round(float(scores["mrr"]), 3),
    }


def table_retrieval_table(
    questions: Sequence[Question], embedder: Embedder, parsed: dict[str, list[Document]], k: int = 5
) -> pd.DataFrame:
    """One row per table mode (raw, sentences): chunks, hit@1, recall@k, MRR; the pipeline's chunker."""
    strategy = embedder.settings.chunking.chunk_strategy  # the pipeline's: `helpers prepare` embedded its chunks
    rows = {f"tables='{mode}'": score_mode(parsed[mode], questions, embedder, strategy, k) for mode in MODES}
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "parse"
    table.insert(0, "questions", sum(1 for q in questions if q.evidence and q.answers))
    return table


def answer_chunk(documents: Sequence[Document], question: Question, strategy: str = DEFAULT_STRATEGY) -> str:
    """The first chunk of the question's evidence document that holds its answer, or ""."""
    nodes = chunk_documents([d for d in documents if d.metadata["source"] in question.evidence_docs], strategy)
    return next((node.text for node in nodes if contains_answer(node.text, question.answers)), "")
