"""The self-checks of notebook 02: the student's recursive splitter, a chunk count, the contextual prefix's gain.

A wrong splitter is named by what is off (a chunk over `size`, text lost, no overlap, fixed sizes); the count and the
gain are computed again. None prints the expected value.
What it leaves out: the prose halves of the exercises (the rubric in the instructor notebook covers them).
"""

from __future__ import annotations

import itertools
import numbers
import re
from collections.abc import Callable, Sequence

from llama_index.core import Document

from helpers.chunking import chunk_documents
from helpers.chunking.recursive import recursive_split
from helpers.corpus import Question
from helpers.embedding import Embedder
from helpers.exercises.base import (
    answer_problem,
    as_whole_number,
    function_problem,
    keeps,
    not_yet,
    require,
    result_of,
    right,
    self_check,
)
from helpers.lab.chunking import CONTEXT_BUDGET, score_strategy

Splitter = Callable[[str, int, int], list[str]]
SplitCase = tuple[str, str, int, int]  # (what the case is, text, size, overlap)
SIZES = ((500, 50), (300, 30))  # the TUM chatbot's sizes, and others, so fixed numbers in a splitter show
DOCUMENTS_CHECKED = 3  # the longest documents, at each of SIZES
GAIN_TOLERANCE = 0.0015  # the table rounds recall to 3 decimals


def split_cases(documents: Sequence[Document] = ()) -> list[SplitCase]:
    """Hand-made texts that each test one rule, then the longest documents at each of SIZES."""
    sentences = [f"Rule {i} of the handbook is about topic {i * 7 % 10}." for i in range(1, 25)]
    paragraphs = [" ".join(sentences[i : i + 2]) for i in range(0, 12, 2)]
    cases = [
        ("an empty text", "", 100, 10),
        ("a blank text", "  \n\n  ", 100, 10),
        ("a text that fits in one chunk", "  The application fee is $90.  ", 100, 10),
        ("a text a little longer than one chunk", " ".join(sentences[:4]), 100, 20),
        ("paragraphs, no overlap", "\n\n".join(paragraphs), 120, 0),
        ("lines and sentences with overlap", "\n".join([" ".join(sentences[:12]), " ".join(sentences[12:])]), 100, 30),
        ("words with overlap", " ".join(f"word{i}" for i in range(40)), 60, 20),
        ("a run of letters with no space", "abcdefghij" * 25, 60, 10),
    ]
    longest = sorted((d for d in documents if d.text.strip()), key=lambda d: -len(d.text))[:DOCUMENTS_CHECKED]
    for document in longest:
        cases += [(f"the document {document.metadata.get('source', '?')}", document.text, *sizes) for sizes in SIZES]
    return cases


def _lost_sentence(text: str, chunks: Sequence[str], size: int) -> bool:
    """Whether a sentence or line of `text` short enough to sit in one chunk is in none of `chunks`."""
    sentences = [part.strip() for part in re.split(r"(?<=\.) |\n", text) if 12 <= len(part.strip()) <= size // 2]
    return any(not any(sentence in chunk for chunk in chunks) for sentence in sentences)


def _mean_length(chunks: Sequence[str]) -> float:
    """The mean number of characters of a chunk (0 for no chunks)."""
    return sum(map(len, chunks)) / len(chunks) if chunks else 0.0


def _shares_text(first: str, second: str, probe: int = 12) -> bool:
    """Whether `second` starts with text that ends `first` (what an overlap leaves)."""
    start = second[: min(probe, len(second))]
    return bool(start) and start in first[-max(probe, len(first) // 2) :]


def _overlapping_pairs(chunks: Sequence[str]) -> int:
    """How many neighbouring chunks share text."""
    return sum(_shares_text(a, b) for a, b in itertools.pairwise(chunks))


def _split_slip(case: SplitCase, got: list[str], expected: list[str]) -> str:
    """What a wrong list of chunks for `case` looks like, without showing the kit's chunks."""
    name, text, size, overlap = case
    where = f"on {name} (size={size}, overlap={overlap})"
    if not text.strip():
        return f"{where}: a text with nothing but whitespace has no chunks — return an empty list"
    if size != SIZES[0][0] and got == recursive_split(text, *SIZES[0]) and len(got) > 1:
        return f"{where}: your chunks are the ones for size 500, overlap 50 — use the `size` and `overlap` arguments"
    too_long = [chunk for chunk in got if len(chunk) > size]
    if too_long and " " not in text:
        return f"{where}: a chunk is longer than `size` — with no separator left, cut into single characters ('')"
    if too_long and len(got) == 1:
        return f"{where}: one chunk of {len(got[0])} characters — split every text longer than `size` (the argument)"
    if too_long:
        return f"{where}: a chunk is longer than `size` — cut a piece that is still too long with the next separator"
    if any(chunk != chunk.strip() for chunk in got):
        return f"{where}: strip the whitespace from both ends of each chunk"
    if any(not chunk for chunk in got):
        return f"{where}: an empty chunk — drop chunks that are empty after stripping"
    if len(got) > len(expected) and _mean_length(got) < 0.8 * _mean_length(expected):
        return f"{where}: more, shorter chunks than needed — glue neighbouring pieces while they fit in `size`"
    if _lost_sentence(text, got, size):
        return f"{where}: some of the text is in no chunk — keep every part (and its separator), and the last window"
    if overlap and _overlapping_pairs(expected) and not _overlapping_pairs(got):
        return f"{where}: neighbours share no text — begin the next window with its last ≤ `overlap` characters"
    if not overlap and _overlapping_pairs(got) > _overlapping_pairs(expected):
        return f"{where}: chunks repeat text although overlap is 0 — empty the window when a chunk is full"
    if len(got) > len(expected):
        return f"{where}: more chunks than the kit's — when a chunk is full, keep at most `overlap` characters of it"
    if len(got) < len(expected):
        return f"{where}: fewer chunks than the kit's — glue a piece to the window only while the window fits `size`"
    first = next(i for i, (a, b) in enumerate(zip(got, expected, strict=True)) if a != b)
    return (
        f"{where}: your chunk {first + 1} differs from the kit's — cut at the coarsest separator first (blank line,"
        " line, sentence, word, character), keep each separator at the end of its part, and drop pieces from the"
        " window's front while it is longer than `overlap` or the next piece does not fit"
    )


@keeps("split")
@self_check
def check_split(function: Splitter | None, documents: Sequence[Document] = ()) -> bool:
    """Right when `function(text, size, overlap)` gives the kit's chunks on hand-made texts and long documents."""
    require(function_problem(function, "recursive_split"))
    cases = split_cases(documents)
    for case in cases:
        _, text, size, overlap = case
        got = result_of(function, text, size, overlap)  # type: ignore[arg-type]
        if not isinstance(got, list | tuple) or not all(isinstance(chunk, str) for chunk in got):
            return not_yet(f"return a list of strings (the chunks), got {type(got).__name__}")
        expected = recursive_split(text, size, overlap)
        if list(got) != expected:
            return not_yet(_split_slip(case, list(got), expected))
    return right(f"your splitter gives the kit's chunks on all {len(cases)} texts, hand-made and real.")


@self_check
def check_chunk_count(answer: object, documents: Sequence[Document], strategy: str, **params: int) -> bool:
    """Right when `answer` is the number of chunks `chunk_documents(documents, strategy, **params)` returns."""
    if isinstance(answer, dict) and "chunks" in answer:
        return not_yet("that is a whole row of the table: the answer is the number in its 'chunks' column")
    count = as_whole_number(answer, f"the answer should be a whole number of chunks, got a {type(answer).__name__}")
    label = f"{strategy}({', '.join(f'{key}={value}' for key, value in params.items())})"
    expected = len(chunk_documents(documents, strategy, **params))
    if count == expected:
        return right(f"{label} cuts these {len(documents)} documents into {count} chunks.")
    if params and count == len(chunk_documents(documents, strategy)):
        return not_yet(f"that is the count with the strategy's own sizes; pass {label[len(strategy) :]}")
    if params.get("overlap") and count == len(chunk_documents(documents, strategy, **{**params, "overlap": 0})):
        return not_yet("that is the count without overlap: overlapping windows start more often, so there are more")
    return not_yet(f"not the number of chunks {label} makes of these documents: chunk exactly these documents with "
                   "it and count")  # fmt: skip


@self_check
def check_prefix_gain(
    answer: object, documents: Sequence[Document], questions: Sequence[Question], embedder: Embedder
) -> bool:
    """Right when `answer` is recall@5 of `paragraph_window` with the contextual prefix minus recall@5 without it."""
    whole_row = "that is a whole row of the table: the answer is one number, a difference of two recall@5"
    require(answer_problem(answer, numbers.Real, "one number (a difference of recall@5)", [(dict, whole_row)]))
    plain = score_strategy("paragraph_window", documents, questions, embedder)
    prefixed = score_strategy("paragraph_window", documents, questions, embedder, contextual=True)
    gain = float(prefixed["recall@5"]) - float(plain["recall@5"])  # type: ignore[arg-type]
    budget = f"recall in {CONTEXT_BUDGET} tokens"
    budget_gain = float(prefixed[budget]) - float(plain[budget])  # type: ignore[arg-type]
    value = float(answer)

    def near(target: float) -> bool:
        return abs(value - target) <= GAIN_TOLERANCE

    if near(gain):
        return right("that is what the prefix changes in recall@5 for paragraph_window here.")
    if near(-gain):
        return not_yet("the sign is flipped: recall@5 *with* the prefix minus recall@5 without it")
    if near(budget_gain):
        return not_yet(f"that is the change of the '{budget}' column: the exercise asks for recall@5")
    if gain and abs(value - 100 * gain) <= 100 * GAIN_TOLERANCE:
        return not_yet("that looks like percentage points: give the difference as a share, like the table's columns")
    return not_yet(
        "not the difference of recall@5 between score_strategy('paragraph_window', …, contextual=True) and the same"
        " without it, on the notebook's documents, questions and embedder"
    )
