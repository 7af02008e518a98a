"""Table-to-text measured by retrieval: table_lookup questions against raw table text and rows as sentences.

What it does: parses the corpus twice (in the `ci` profile: the evidence files and a seeded sample of others),
tables as raw cell lines (`tables="raw"`) and as one sentence per row (`tables="sentences"`), chunks both with
the chunking package's default strategy, searches them by exact dense retrieval (the packaged embedder, numpy
brute force over normalised vectors) and scores the table_lookup questions. Relevance is answer-based
(`helpers.evaluation.answer_relevance`): a chunk of an evidence document that contains the answer counts, so
the gold quotes, written as sentences, do not favour one side.
What it leaves out: BM25 and hybrid search (notebook 05), and tables inside scanned PDFs.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
from llama_index.core import Document

from helpers.chunking import DEFAULT_STRATEGY, chunk_documents
from helpers.chunking.compare import dense_retriever
from helpers.config import Settings, get_settings
from helpers.corpus import DOCS_DIR, Question, course_files
from helpers.embedding import Embedder
from helpers.evaluation import contains_answer, evaluate_answer_retrieval
from helpers.parsing import parse
from helpers.parsing.base import source_name

MODES = ("raw", "sentences")


def experiment_files(questions: Sequence[Question], settings: Settings | None = None, others: int = 6) -> list[Path]:
    """Every course file in `full`; in `ci`, the evidence files and a seeded sample of other files (no PDF)."""
    settings = settings or get_settings()
    files = course_files()
    if settings.profile != "ci":
        return files
    # The 49-page handbook alone would take most of the ci budget to parse and embed: it is left out.
    needed = {doc for q in questions for doc in q.evidence_docs}
    rest = [p for p in files if source_name(p, DOCS_DIR) not in needed and p.suffix != ".pdf"]
    sample = random.Random(settings.seed).sample(rest, min(others, len(rest)))
    return [p for p in files if source_name(p, DOCS_DIR) in needed or p in sample]


def parse_both_ways(files: Sequence[Path]) -> dict[str, list[Document]]:
    """The files parsed with tables as raw cell lines and as sentences: {"raw": docs, "sentences": docs}."""
    return {mode: [doc for path in files for doc in parse(path, tables=mode, root=DOCS_DIR)] for mode in MODES}


def score_mode(documents: Sequence[Document], questions: Sequence[Question], embedder: Embedder, k: int = 5) -> dict:
    """Chunk, embed and search one parse of the corpus; hit@1, recall@k and MRR by answer-based relevance."""
    nodes = chunk_documents(documents, DEFAULT_STRATEGY)
    scores = evaluate_answer_retrieval(questions, dense_retriever(nodes, embedder, k=10), ks=(1, k)).mean()
    return {
        "chunker": DEFAULT_STRATEGY,
        "chunks": len(nodes),
        "hit@1": round(float(scores["hit@1"]), 3),
        f"recall@{k}": round(float(scores[f"recall@{k}"]), 3),
        "MRR": round(float(scores["mrr"]), 3),
    }


def table_retrieval_table(
    questions: Sequence[Question], embedder: Embedder, parsed: dict[str, list[Document]], k: int = 5
) -> pd.DataFrame:
    """One row per table mode (raw, sentences): chunks, hit@1, recall@k, MRR on the given questions."""
    rows = {f"tables='{mode}'": score_mode(parsed[mode], questions, embedder, k) for mode in MODES}
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "parse"
    table.insert(0, "questions", sum(1 for q in questions if q.evidence and q.answers))
    return table


def answer_chunk(documents: Sequence[Document], question: Question) -> str:
    """The first chunk (default chunker) of the question's evidence document that holds its answer, or ""."""
    nodes = chunk_documents([d for d in documents if d.metadata["source"] in question.evidence_docs], DEFAULT_STRATEGY)
    return next((node.text for node in nodes if contains_answer(node.text, question.answers)), "")
