"""Few-shot example selection by similarity (the CMU/LTI system's), each example with its evidence passages (the
fix its authors suggest); the pool is the dev split's answerable questions, a question's own example left out.
What it leaves out: a pool of examples written for your own documents.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from helpers.corpus import Question
from helpers.embedding import Embedder
from helpers.generation.prompts import FIXED_EXAMPLES, Example

POOL_CATEGORIES = ("direct_fact", "numerical", "date", "table_lookup", "comparative", "multi_hop", "email")
FEW_SHOT = ("none", "fixed", "similar")


def example_from_question(question: Question) -> Example:
    """A gold question as a worked example: its evidence quotes as passages, its answer cited."""
    cites = "".join(f"[{i}]" for i in range(1, len(question.evidence) + 1))
    quotes = tuple(e.quote for e in question.evidence)
    return Example(quotes, question.question, question.answer, f"{question.answer} {cites}.", question.id)


def example_pool(questions: Sequence[Question]) -> list[Example]:
    """Worked examples from the answerable gold questions that have evidence."""
    pool = [q for q in questions if q.category in POOL_CATEGORIES and q.answer and q.evidence]
    return [example_from_question(q) for q in pool]


class ExampleSelector:
    """Picks the pool examples whose questions are most similar to a new question."""

    def __init__(self, pool: Sequence[Example], embedder: Embedder) -> None:
        self.pool, self.embedder = list(pool), embedder
        self.vectors = embedder.embed_texts([e.question for e in self.pool])  # L2-normalised rows

    def similar(self, question: str, k: int = 2, exclude_id: str = "") -> list[Example]:
        """The k most similar examples (cosine), best last so it sits next to the real question."""
        scores = self.vectors @ self.embedder.embed_query(question)
        order = [i for i in np.argsort(-scores) if self.pool[i].id != exclude_id][:k]
        return [self.pool[i] for i in reversed(order)]

    def examples(self, few_shot: str, question: str, k: int = 2, exclude_id: str = "") -> list[Example]:
        """The examples for a few-shot variant: none, the fixed two, or the refusal example + k similar."""
        if few_shot not in FEW_SHOT:
            raise ValueError(f"few_shot must be one of {FEW_SHOT}, got {few_shot!r}")
        if few_shot == "none":
            return []
        if few_shot == "fixed":
            return list(FIXED_EXAMPLES)
        return [FIXED_EXAMPLES[1], *self.similar(question, k, exclude_id)]
