"""Query rewriting before retrieval: LLM multi-query (the CMU/LTI system's) and follow-up rewriting (the TUM chatbot's).

    >>> FollowUpRewriter("keywords").query(question)   # "What about on MLE? big ADSc capstone teams"

What it leaves out: reranking (helpers.rerank).
"""

from helpers.query.followup import FollowUpRewriter, keyword_rewrite, llm_rewrite
from helpers.query.multi_query import MultiQueryRetriever, merge_unique, parse_paraphrases

__all__ = [
    "FollowUpRewriter",
    "MultiQueryRetriever",
    "keyword_rewrite",
    "llm_rewrite",
    "merge_unique",
    "parse_paraphrases",
]
