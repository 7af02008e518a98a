"""The configurations notebook 07 compares (closed book, RAG with no, fixed or similar examples, the app's default),
one after the other so llama.cpp keeps the shared prompt prefix. What it leaves out: other retrievers and rerankers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import pandas as pd

from helpers.config import Settings, get_settings
from helpers.corpus import Question
from helpers.corpus.questions import question_subset
from helpers.generation.answer import Answer
from helpers.generation.fewshot import ExampleSelector
from helpers.generation.scores import run_answers

if TYPE_CHECKING:
    from helpers.retrieval import Retriever


class Asks(Protocol):
    """What the comparison needs of a pipeline (a `RAGPipeline`): `ask`. Passed in, never imported."""

    def ask(self, question: str, k: int | None = None, **options: Any) -> Answer: ...


CI_PER_CATEGORY = 1  # 10 categories → 10 questions per configuration in the ci profile


def profile_questions(questions: Sequence[Question], settings: Settings | None = None) -> list[Question]:
    """All questions in the `full` profile; a seeded, stratified subset in `ci`."""
    settings = settings or get_settings()
    return question_subset(questions, CI_PER_CATEGORY if settings.profile == "ci" else None, seed=settings.seed)


def configurations(
    pipeline: Asks, retriever: Retriever | None, selector: ExampleSelector
) -> dict[str, Callable[[Question], Answer]]:
    """Name → a function answering one gold question in that configuration."""

    def rag(mode: str, few_shot: str) -> Callable[[Question], Answer]:
        def answer(q: Question) -> Answer:
            examples = selector.examples(few_shot, q.question, exclude_id=q.id)
            return pipeline.ask(q.question, retriever=retriever, mode=mode, examples=examples)

        return answer

    return {
        "closed book (short)": lambda q: pipeline.ask(q.question, closed_book=True),
        "RAG short, no examples": rag("short", "none"),
        "RAG short, fixed examples": rag("short", "fixed"),
        "RAG short, similar examples": rag("short", "similar"),
        "RAG sentence, fixed examples (app)": rag("sentence", "fixed"),
    }


def compare_configurations(
    questions: Sequence[Question], configs: dict[str, Callable[[Question], Answer]], progress: bool = True
) -> dict[str, pd.DataFrame]:
    """Every configuration over every question: name → the scored rows."""
    return {name: run_answers(questions, answer, desc=name, progress=progress) for name, answer in configs.items()}
