"""The metrics, pure functions at the bottom of the package: retrieval (hit@k, recall@k, MRR, nDCG against the
gold evidence quotes), answer-based relevance (a chunk holds a gold answer) and SQuAD-style EM and F1.
What it leaves out: running a retriever or a model (the caller passes rankings and answers).
"""

from helpers.metrics.answer_relevance import (
    answer_labels,
    answer_relevant,
    contains_answer,
    evaluate_answer_retrieval,
    holding_answer,
)
from helpers.metrics.answers import exact_match, f1_score, normalize_answer, squad_scores
from helpers.metrics.retrieval import (
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
    "holding_answer",
    "mrr",
    "ndcg_at_k",
    "normalize_answer",
    "recall_at_k",
    "relevance_labels",
    "squad_scores",
]
