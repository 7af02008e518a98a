"""Measure chunking strategies side by side on the gold questions (what notebook 02 shows): chunk sizes, quotes
held whole, and exact dense retrieval's recall@k, MRR and recall within a context budget (equal reading cost).
What it leaves out: BM25, hybrid and reranking (notebooks 05–06) and any answer generation.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable, Sequence

import pandas as pd
from llama_index.core import Document
from llama_index.core.schema import TextNode

from helpers.chunking import STRATEGIES, chunk_documents, count_tokens
from helpers.config import GenerationSettings
from helpers.corpus import Question
from helpers.embedding import Embedder
from helpers.lab.common import dense_retriever
from helpers.metrics import evaluate_retrieval, recall_at_k, relevance_labels
from helpers.types import Hit

CONTEXT_BUDGET = GenerationSettings().context_tokens  # tokens of passages the reader gets (the configured default)


def _fold(text: str) -> str:
    """Whitespace squeezed and lower-cased, so line breaks do not hide a quote."""
    return " ".join(text.split()).lower()


def quotes_inside(nodes: Sequence[TextNode], questions: Sequence[Question]) -> float:
    """Share of the questions' evidence quotes that one chunk of the quote's document holds whole."""
    texts_by_source: dict[str, list[str]] = {}
    for node in nodes:
        texts_by_source.setdefault(str(node.metadata.get("source")), []).append(_fold(node.text))
    quotes = [evidence for question in questions for evidence in question.evidence]
    inside = [any(_fold(e.quote) in text for text in texts_by_source.get(e.doc, [])) for e in quotes]
    return sum(inside) / len(inside) if inside else float("nan")


def recall_within_budget(
    questions: Sequence[Question], retrieve: Callable[[Question], list[Hit]], budget: int = CONTEXT_BUDGET
) -> float:
    """Share of evidence quotes found by the top chunks that fit in `budget` tokens together (at least one)."""
    recalls = []
    for question in (q for q in questions if q.evidence):
        kept, used = [], 0
        for hit in retrieve(question):
            used += count_tokens(hit.text)
            if kept and used > budget:
                break
            kept.append(hit)
        recalls.append(recall_at_k(relevance_labels(kept, question.evidence), len(kept), len(question.evidence)))
    return sum(recalls) / len(recalls) if recalls else float("nan")


def score_strategy(
    name: str,
    documents: Sequence[Document],
    questions: Sequence[Question],
    embedder: Embedder,
    k: int = 5,
    **params: object,
) -> dict[str, object]:
    """One row of the comparison: chunk with `name` (and `params`), then measure sizes and retrieval."""
    nodes = chunk_documents(documents, name, **params)
    lengths = [count_tokens(node.text) for node in nodes]
    retrieve = dense_retriever(nodes, embedder, k=max(10, CONTEXT_BUDGET // min(lengths) + 1))
    scores = evaluate_retrieval(questions, lambda question: retrieve(question)[:10], ks=(1, k, 10)).mean()
    label = f"{name}({', '.join(f'{key}={value}' for key, value in params.items())})" if params else name
    return {
        "strategy": label,
        "chunks": len(nodes),
        "mean tokens": round(statistics.mean(lengths), 1),
        "median tokens": statistics.median(lengths),
        "over 256 tokens": round(sum(n > 256 for n in lengths) / len(lengths), 3),
        "quotes inside one chunk": round(quotes_inside(nodes, questions), 3),
        f"recall@{k}": round(float(scores[f"recall@{k}"]), 3),
        "MRR": round(float(scores["mrr"]), 3),
        f"recall in {CONTEXT_BUDGET} tokens": round(recall_within_budget(questions, retrieve), 3),
    }


def compare_strategies(
    documents: Sequence[Document],
    questions: Sequence[Question],
    embedder: Embedder,
    strategies: Iterable[str] = STRATEGIES,
    k: int = 5,
) -> pd.DataFrame:
    """The side-by-side table: one row per strategy, in the order given."""
    return pd.DataFrame([score_strategy(name, documents, questions, embedder, k) for name in strategies])


def recall_by_budget(
    documents: Sequence[Document],
    questions: Sequence[Question],
    embedder: Embedder,
    strategies: Iterable[str] = STRATEGIES,
    budgets: Sequence[int] = (300, 600, 1000, 1500, 2500),
) -> pd.DataFrame:
    """Recall within each context budget (rows: budgets in tokens, columns: strategies)."""
    curves = {}
    for name in strategies:
        nodes = chunk_documents(documents, name)
        retrieve = dense_retriever(nodes, embedder, k=max(budgets) // min(count_tokens(n.text) for n in nodes) + 1)
        curves[name] = [round(recall_within_budget(questions, retrieve, budget), 3) for budget in budgets]
    return pd.DataFrame(curves, index=pd.Index(budgets, name="context budget (tokens)"))


def best_strategy(table: pd.DataFrame, by: str = f"recall in {CONTEXT_BUDGET} tokens") -> str:
    """The strategy with the highest score in column `by`, ties broken by MRR, then by fewer chunks."""
    ranked = table.sort_values([by, "MRR", "chunks"], ascending=[False, False, True], kind="stable")
    return str(ranked.iloc[0]["strategy"])
