"""The self-check of notebook 02's exercise: how many chunks a strategy cuts the documents into.

`check_chunk_count(answer, documents, "fixed_tokens", size=200, overlap=50)` chunks the same documents the same
way (no embedding, a second or two), compares the counts and says what is off — the strategy's own sizes, no
overlap, too many or too few — without printing the expected number (see helpers.exercises.base).
What it leaves out: the retrieval scores of the exercise, which need the embedder and are read, not checked.
"""

from __future__ import annotations

from collections.abc import Sequence

from llama_index.core import Document

from helpers.chunking import chunk_documents
from helpers.exercises.base import STUB_HINT, as_count, not_yet, self_check, verdict


@self_check
def check_chunk_count(answer: object, documents: Sequence[Document], strategy: str, **params: int) -> bool:
    """Right when `answer` is the number of chunks `chunk_documents(documents, strategy, **params)` returns."""
    if answer is None:
        return not_yet(STUB_HINT)
    if isinstance(answer, dict) and "chunks" in answer:
        return not_yet("that is a whole row of the table: the answer is the number in its 'chunks' column")
    count = as_count(answer)
    if count is None:
        return not_yet(f"the answer should be a whole number of chunks, got a {type(answer).__name__}")
    label = f"{strategy}({', '.join(f'{key}={value}' for key, value in params.items())})"
    expected = len(chunk_documents(documents, strategy, **params))
    if count == expected:
        return verdict(True, f"{label} cuts these {len(documents)} documents into {count} chunks.", "")
    if params and count == len(chunk_documents(documents, strategy)):
        return not_yet(f"that is the count with the strategy's own sizes; pass {label[len(strategy) :]}")
    if params.get("overlap") and count == len(chunk_documents(documents, strategy, **{**params, "overlap": 0})):
        return not_yet("that is the count without overlap: overlapping windows start more often, so there are more")
    direction = "too many" if count > expected else "too few"
    return not_yet(f"{direction} chunks for {label} on these documents; chunk exactly these documents with it")
