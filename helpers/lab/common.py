"""What every lab experiment shares: the profile's subsets (`profile_subset`, `ci_subset`) and an exact numpy dense
retriever running the `top_k` slot. What it leaves out: any scoring (each experiment scores its own stage).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Sequence

from llama_index.core import Document
from llama_index.core.schema import MetadataMode, TextNode

from helpers.config import Settings, get_settings
from helpers.corpus import Question
from helpers.corpus.questions import question_subset
from helpers.embedding import Embedder
from helpers.embedding.similarity import cosine_top_k
from helpers.mechanisms import chosen
from helpers.metrics import chunk_supports
from helpers.types import Hit


def dense_retriever(nodes: Sequence[TextNode], embedder: Embedder, k: int = 10) -> Callable[[Question], list[Hit]]:
    """Exact dense search over `nodes`: embed each once (what the pipeline embeds), then rank by X @ q."""
    matrix = embedder.embed_texts([node.get_content(metadata_mode=MetadataMode.EMBED) for node in nodes])

    def retrieve(question: Question) -> list[Hit]:
        top_k = chosen("top_k", cosine_top_k)  # the kit's, or the student's after use("top_k", …) (notebook 03)
        top = top_k(matrix, embedder.embed_query(question.question), k)
        return [Hit(nodes[i].node_id, nodes[i].text, dict(nodes[i].metadata), {"dense": score}) for i, score in top]

    return retrieve


Subset = tuple[list[Document], list[Question]]


def ci_subset(select: Callable[..., Subset]) -> Callable[..., Subset]:
    """Run `select(documents, questions, settings, **sizes)` in the `ci` profile only; `full` keeps everything."""

    @functools.wraps(select)
    def subset(documents: Sequence[Document], questions: Sequence[Question], settings: Settings | None = None,
               **sizes: int) -> Subset:  # fmt: skip
        settings = settings or get_settings()
        if settings.profile != "ci":
            return list(documents), list(questions)
        return select(documents, questions, settings, **sizes)

    return subset


@ci_subset
def profile_subset(documents: Sequence[Document], questions: Sequence[Question], settings: Settings,
                   per_category: int = 2, other_documents: int = 10) -> Subset:  # fmt: skip
    """Everything in `full`; in `ci`, a few questions per category, their documents and a few distractors."""
    questions = question_subset(questions, per_category, seed=settings.seed)
    quotes = [evidence for question in questions for evidence in question.evidence]
    needed = {
        document.id_
        for document in documents
        if any(chunk_supports(document.text, str(document.metadata.get("source")), quote) for quote in quotes)
    }
    others = sorted(document.id_ for document in documents if document.id_ not in needed)
    needed |= set(random.Random(settings.seed).sample(others, min(other_documents, len(others))))
    return [document for document in documents if document.id_ in needed], questions
