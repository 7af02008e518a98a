"""Query rewriting before retrieval: LLM multi-query (the CMU/LTI system's) and follow-up rewriting (the TUM chatbot's).

    >>> retriever = MultiQueryRetriever(pipeline.make_retriever("hybrid"), CachedCompleter.from_pipeline(pipeline))
    >>> FollowUpRewriter("keywords").query(question)   # "What about on MLE? big ADSc capstone teams"

`multi_query.py` paraphrases and merges, `followup.py` makes a follow-up standalone; LLM outputs are cached on disk.
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
