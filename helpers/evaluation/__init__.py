"""Evaluation: retrieval metrics (hit@k, recall@k, MRR, nDCG), answer-based relevance, SQuAD-style EM and F1."""

from helpers.evaluation.answer_relevance import (
    answer_labels,
    answer_relevant,
    contains_answer,
    evaluate_answer_retrieval,
)
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
    "answer_labels",
    "answer_relevant",
    "chunk_supports",
    "contains_answer",
    "evaluate_answer_retrieval",
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
