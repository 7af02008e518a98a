"""Multi-query retrieval (the CMU/LTI system's best set-up): the LLM writes paraphrases, every version is searched,
the rankings merged round-robin (each chunk once), and a reranker, if given, re-scores against the original.
What it leaves out: query decomposition, and weighting the versions (a bad paraphrase counts as much as a good one).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from helpers.config import RerankSettings
from helpers.llm.cache import CachedCompleter
from helpers.rerank.base import Reranker
from helpers.retrieval.base import Filters, Retriever
from helpers.types import Hit

PARAPHRASE_PROMPT = (
    "Rewrite the question below in {n} different ways that keep its meaning, using other words. "
    "Write one question per line, with no numbering and nothing else.\n\nQuestion: {question}"
)
BULLET = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s*")  # "1. ", "2) ", "- " in front of a line


def parse_paraphrases(text: str, question: str, n: int) -> list[str]:
    """At most n distinct non-empty lines of the reply, numbering stripped, the original question left out."""
    seen = {question.strip().lower()}
    found: list[str] = []
    for line in text.splitlines():
        line = BULLET.sub("", line).strip().strip('"').strip()
        if len(line) > 5 and line.lower() not in seen:
            seen.add(line.lower())
            found.append(line)
    return found[:n]


def paraphrases(llm: CachedCompleter, question: str, n: int = 3) -> list[str]:
    """The LLM's n rewordings of the question (fewer if it wrote fewer usable lines)."""
    messages = [{"role": "user", "content": PARAPHRASE_PROMPT.format(n=n, question=question)}]
    return parse_paraphrases(llm.complete(messages, max_tokens=32 * n), question, n)


def merge_unique(rankings: Sequence[Sequence[Hit]]) -> list[Hit]:
    """Round-robin over the rankings, each chunk kept once (at its first, i.e. best-ranked, appearance)."""
    merged: dict[str, Hit] = {}
    for rank in range(max((len(r) for r in rankings), default=0)):
        for ranking in rankings:
            if rank < len(ranking) and ranking[rank].node_id not in merged:
                merged[ranking[rank].node_id] = ranking[rank]
    return list(merged.values())


class MultiQueryRetriever:
    """Search with the question and its LLM paraphrases, merge without duplicates, optionally rerank."""

    def __init__(
        self,
        retriever: Retriever,
        llm: CachedCompleter,
        reranker: Reranker | None = None,
        n: int = 3,
        depth: int = RerankSettings().rerank_depth,
    ) -> None:
        self.retriever, self.llm, self.reranker, self.n, self.depth = retriever, llm, reranker, n, depth

    def queries(self, question: str) -> list[str]:
        """The original question followed by its paraphrases."""
        return [question, *paraphrases(self.llm, question, self.n)]

    def __repr__(self) -> str:
        return f"MultiQuery({self.retriever!r}; {self.n} paraphrases)"

    def retrieve(self, query: str, k: int, filters: Filters | None = None) -> list[Hit]:
        """Top `depth` for every version, merged and deduplicated, then reranked (or cut) to k."""
        rankings = [self.retriever.retrieve(q, max(self.depth, k), filters) for q in self.queries(query)]
        candidates = merge_unique(rankings)
        return self.reranker.rerank(query, candidates, k) if self.reranker else candidates[:k]
