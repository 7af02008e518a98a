"""Evaluation: retrieval metrics (hit@k, recall@k, MRR, nDCG) and SQuAD-style answer metrics (EM, F1)."""

from helpers.evaluation.answers import exact_match, f1_score, normalize_answer, squad_scores
from helpers.evaluation.retrieval import (
    RetrievalScores,
    chunk_supports,
    evaluate_retrieval,
    hit_at_k,
    mrr,
    ndcg_at_k,
    recall_at_k,
    relevance_labels,
)

__all__ = [
    "RetrievalScores",
    "chunk_supports",
    "evaluate_retrieval",
    "exact_match",
    "f1_score",
    "hit_at_k",
    "mrr",
    "ndcg_at_k",
    "normalize_answer",
    "recall_at_k",
    "relevance_labels",
    "squad_scores",
]
