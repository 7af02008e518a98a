"""Follow-up rewriting: turn "What about on MLE?" plus the chat so far into a query that stands alone, by keywords
of the earlier *user* turns (the TUM chatbot's) or by the LLM.
What it leaves out: assistant turns in the keyword heuristic (more noise than topic), and deciding *whether* a
question is a follow-up (a standalone question simply gains a few words).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bm25s.stopwords import STOPWORDS_EN

from helpers.corpus import Question
from helpers.llm.cache import CachedCompleter

QUESTION_WORDS = {"how", "what", "when", "where", "which", "who", "whom", "why", "about", "much", "many"}
STOPWORDS = frozenset(STOPWORDS_EN) | QUESTION_WORDS | {"do", "does", "did", "can", "could", "would", "should"}
WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'/.\-]*[A-Za-z0-9]|[A-Za-z0-9]")
REWRITE_SYSTEM = (
    "You rewrite the user's last question so that it can be understood without the conversation. "
    "Keep every name, course code and number it refers to. Reply with the rewritten question only."
)
METHODS = ("none", "keywords", "llm")


def salient_terms(turns: Sequence[dict[str, str]], question: str, max_terms: int = 8) -> list[str]:
    """Content words of the user turns (in order, once each) that the question does not already contain."""
    present = {w.lower() for w in WORD.findall(question)}
    terms: list[str] = []
    for turn in turns:
        if turn.get("role") != "user":
            continue
        for word in WORD.findall(turn.get("content", "")):
            if word.lower() not in STOPWORDS and word.lower() not in present:
                present.add(word.lower())
                terms.append(word)
    return terms[-max_terms:]  # the most recent turns matter most


def keyword_rewrite(history: Sequence[dict[str, str]], question: str, max_terms: int = 8) -> str:
    """The question followed by the salient terms of the earlier user turns."""
    return " ".join([question, *salient_terms(history, question, max_terms)])


def llm_rewrite(llm: CachedCompleter, history: Sequence[dict[str, str]], question: str) -> str:
    """The LLM's standalone version of the question (the question itself if the reply is empty)."""
    transcript = "\n".join(f"{turn['role']}: {turn['content']}" for turn in history)
    user = f"Conversation:\n{transcript}\n\nLast question: {question}\n\nStandalone question:"
    text = llm.complete([{"role": "system", "content": REWRITE_SYSTEM}, {"role": "user", "content": user}], 64)
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[0] if lines else question


class FollowUpRewriter:
    """The retrieval query for a gold question: as written, keyword-enriched, or LLM-rewritten."""

    def __init__(self, method: str = "keywords", llm: CachedCompleter | None = None) -> None:
        if method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {method!r}")
        if method == "llm" and llm is None:
            raise ValueError("the llm method needs an LLM (a CachedCompleter)")
        self.method, self.llm = method, llm

    def query(self, question: Question) -> str:
        """The text to search with; questions without history are returned unchanged."""
        if not question.history or self.method == "none":
            return question.question
        if self.method == "keywords":
            return keyword_rewrite(question.history, question.question)
        assert self.llm is not None
        return llm_rewrite(self.llm, question.history, question.question)
