"""LLM-as-judge with a rubric: accuracy, completeness and relevance of an answer, each 1–5, as one JSON object
(`RubricScore`, retried once when it does not validate); cached on disk, every score naming its judge.
What it leaves out: agreement with human grades (a small local judge is lenient; read its scores as a demonstration).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import pandas as pd
from pydantic import BaseModel, Field

from helpers.llm import Completion, LLMError
from helpers.llm.cache import DiskCache, prompt_key
from helpers.parsing.enrich import validate_json

Score = Literal[1, 2, 3, 4, 5]


class RubricScore(BaseModel):
    """The judge's verdict on one answer."""

    # an enum, not ge/le: llama.cpp's grammar enforces an enum, not an integer's bounds (the judge wrote scores > 5)
    accuracy: Score = Field(description="1 = wrong, 5 = agrees with the reference")
    completeness: Score = Field(description="1 = misses most of it, 5 = says all the reference says")
    relevance: Score = Field(description="1 = off topic, 5 = answers exactly what was asked")
    reason: str = Field(max_length=160, description="one short sentence, at most 20 words")


SCHEMA = RubricScore.model_json_schema()
CRITERIA = ("accuracy", "completeness", "relevance")
SYSTEM_PROMPT = (
    "You grade answers to questions about a university program. Compare the answer with the reference answer "
    "and give three integer scores from 1 (worst) to 5 (best): accuracy (does it agree with the reference?), "
    "completeness (does it say everything the reference says?), relevance (does it answer what was asked?). "
    'Reply with one JSON object only: {"accuracy": n, "completeness": n, "relevance": n, "reason": "<20 words>"}.'
)
USER_TEMPLATE = "Question: {question}\nReference answer: {reference}\nAnswer to grade: {answer}"
RETRY_PROMPT = "That reply is not valid ({error}). Reply again with the JSON object only."
MAX_TOKENS = 100  # three digits and a 20-word reason fit in about 60 tokens


class JSONChat(Protocol):
    """An LLM with JSON output (`LocalLLM`, `OpenAICompatibleLLM`, or the kit's `CachedLLM` around one)."""

    name: str

    def chat_json(self, messages: list[dict[str, str]], schema: dict[str, Any], max_tokens: int) -> Completion: ...


@dataclass
class Judgement:
    """A rubric score (or the reason there is none), with the judge that gave it."""

    judge: str
    score: RubricScore | None
    error: str = ""
    seconds: float = 0.0
    cached: bool = False


def validate_rubric(text: str) -> tuple[RubricScore | None, str]:
    """The reply as a `RubricScore`, or None and a one-line reason (bad JSON, a missing key, a score out of 1–5)."""
    return validate_json(text, RubricScore)


class RubricJudge:
    """Grades answers with an LLM on the rubric, caching every judgement on disk."""

    def __init__(self, llm: JSONChat, cache: DiskCache) -> None:
        if not hasattr(llm, "chat_json"):
            raise TypeError("this LLM has no chat_json; pass helpers.llm.make_llm(settings)")
        self.llm, self.cache, self.name = llm, cache, llm.name
        self.stats = {"judged": 0, "cached": 0}

    def judge(self, question: str, reference: str, answer: str) -> Judgement:
        """One judgement, from the cache or from the LLM (one retry with the error shown)."""
        user = USER_TEMPLATE.format(question=question, reference=reference, answer=answer)
        messages = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]
        key = prompt_key(self.name, {"rubric": messages, "schema": SCHEMA})
        if (stored := self.cache.get(key)) is not None:
            self.stats["cached"] += 1
            score = RubricScore.model_validate(stored["score"]) if stored["score"] else None
            return Judgement(self.name, score, stored["error"], stored["seconds"], cached=True)
        start, error = time.perf_counter(), ""
        try:
            for _ in range(2):
                reply = self.llm.chat_json(messages, SCHEMA, MAX_TOKENS).text
                score, error = validate_rubric(reply)
                if score is not None:
                    break
                messages = [*messages, {"role": "assistant", "content": reply}]
                messages.append({"role": "user", "content": RETRY_PROMPT.format(error=error)})
        except LLMError as failure:  # the endpoint is down: report it, do not cache it
            return Judgement(self.name, None, str(failure))
        self.stats["judged"] += 1
        seconds = time.perf_counter() - start
        stored = {"score": score.model_dump() if score else None, "error": "" if score else error, "seconds": seconds}
        self.cache.put(key, stored)
        return Judgement(self.name, score, stored["error"], seconds)

    def judge_rows(self, rows: Sequence[dict[str, str]]) -> pd.DataFrame:
        """Judge rows with keys id, question, reference, answer: one row per answer, the judge named in each."""
        table = []
        for row in rows:
            verdict = self.judge(row["question"], row["reference"], row["answer"])
            scores = verdict.score.model_dump() if verdict.score else dict.fromkeys([*CRITERIA, "reason"])
            table.append({"id": row["id"], "judge": verdict.judge, **scores, "answer": row["answer"],
                          "reference": row["reference"], "error": verdict.error, "cached": verdict.cached})  # fmt: skip
        return pd.DataFrame(table)
