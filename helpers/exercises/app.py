"""The self-checks of notebooks 09 and 10, where the app is a lab bench: A/B, the two cosine floors, gold questions.

Each check recomputes the answer from what the student's cell used and says what is off without naming it.
What it leaves out: the prose questions; the instructor version carries their rubric.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from helpers.corpus import Question
from helpers.exercises.base import (
    STUB_HINT,
    answer_problem,
    as_count,
    as_whole_number,
    not_yet,
    require,
    require_answer,
    right,
    self_check,
    verdict,
)
from helpers.metrics import contains_answer
from helpers.types import Hit

HitsAt = Callable[[int], Sequence[Hit]]  # k → the retrieved passages
MAX_K = 10  # the app's k slider goes up to 10


def best_cosine(hits: Sequence[Hit]) -> float:
    """The best dense (cosine) similarity among the hits (-1 when none has one)."""
    return max((h.scores["dense"] for h in hits if "dense" in h.scores), default=-1.0)


def holds_answer(hits: Sequence[Hit], question: Question) -> bool:
    """Whether a passage holds a reference answer of the question (SQuAD-normalised, whole words)."""
    return any(contains_answer(hit.text, question.answers) for hit in hits)


@self_check
def check_shared_passages(answer: object, a_hits: Sequence[Hit], b_hits: Sequence[Hit]) -> bool:
    """Right when `answer` is the number of passages (chunk ids) both A and B retrieved."""
    count = as_whole_number(answer, f"the answer should be a whole number of passages, got {answer!r}")
    a_ids, b_ids = {h.node_id for h in a_hits}, {h.node_id for h in b_hits}
    shared = len(a_ids & b_ids)
    if count == shared:
        return right(f"A and B share {shared} of their passages; the rest is what the knob changed.")
    if count == len(a_ids | b_ids) and count != shared:
        return not_yet("that counts every passage either side found: count only the rows marked 'in both'")
    if count in (len(a_ids), len(b_ids)):
        return not_yet("that is how many passages one side retrieved: count those the two sides share")
    return not_yet("not the number of passages both sides retrieved: count the rows of the A/B table marked 'in both'")


@self_check
def check_separating_floor(floor: object, answerable_hits: Sequence[Hit], unanswerable_hits: Sequence[Hit]) -> bool:
    """Right when the floor keeps the answerable question's best passage and drops every unanswerable one."""
    require_answer(floor)
    if isinstance(floor, bool) or not isinstance(floor, (int, float)) or math.isnan(floor):
        return not_yet(f"the floor should be a cosine similarity, a number between 0 and 1, got {floor!r}")
    keep, drop = best_cosine(answerable_hits), best_cosine(unanswerable_hits)
    if drop >= keep:
        return not_yet("no floor separates these two questions: their best passages are equally close; pick others")
    if floor > keep or floor <= drop:
        return not_yet("this floor does not keep the answerable question's best passage and drop every passage of "
                       "the unanswerable one both: read the best cosine of each and choose between them")  # fmt: skip
    return right("the answerable question keeps its best passage, the unanswerable one gets none.")


def smallest_reaching_k(question: Question, hits_at: HitsAt, max_k: int = MAX_K) -> int | None:
    """The smallest k whose retrieved passages hold a reference answer (None up to `max_k`)."""
    return next((k for k in range(1, max_k + 1) if holds_answer(hits_at(k), question)), None)


@self_check
def check_smallest_k(answer: object, question: Question, hits_at: HitsAt) -> bool:
    """Right when `answer` is the smallest k at which a reference answer reaches the retrieved passages."""
    wrong = f"the answer should be a k between 1 and {MAX_K}, got {answer!r}"
    k = as_whole_number(answer, wrong)
    if not 1 <= k <= MAX_K:
        return not_yet(wrong)
    expected = smallest_reaching_k(question, hits_at)
    if expected is None:
        return not_yet(f"no k up to {MAX_K} brings the reference answer in: choose another gold question")
    if k == expected:
        return right(f"at k = {k} the evidence reaches the reader, and not below.")
    return not_yet(f"k = {k} is not the smallest k whose passages hold a reference answer: read the passages at "
                   "each k from 1 up")  # fmt: skip


def answer_in_top_k(questions: Sequence[Question], hits_at: Callable[[str, int], Sequence[Hit]], k: int) -> int:
    """On how many questions a passage among the top k holds a reference answer."""
    return sum(holds_answer(hits_at(q.question, k), q) for q in questions)


@self_check
def check_answer_in_top_k(
    answer: object, questions: Sequence[Question], hits_at: Callable[[str, int], Sequence[Hit]]
) -> bool:
    """Right when `answer` maps each k (1, 2 and 4 at least) to the count of questions with the answer in the top k."""
    require(answer_problem(answer, Mapping, "a dict {k: count}"))
    if missing := [k for k in (1, 2, 4) if k not in answer]:
        return not_yet(f"k = {missing[0]} is missing: give a count for k = 1, 2 and 4")
    for k, value in sorted(answer.items()):
        count = as_count(value)
        if count is None:
            share = isinstance(value, float) and 0 < value < 1
            return not_yet(f"k = {k}: {'a share: give the number of questions' if share else 'not a whole number'}")
        expected = answer_in_top_k(questions, hits_at, k)
        if count != expected:
            return not_yet(f"k = {k}: not the count; a question counts once when any of its top-k passages holds "
                           "one of its answers")  # fmt: skip
    return right(f"answer-in-top-k for k = {', '.join(str(k) for k in sorted(answer))} over "
                 f"{len(questions)} questions.")  # fmt: skip


def f1_split(rows: pd.DataFrame, better_config: str = "hybrid", base: str = "dense") -> tuple[set[str], set[str]]:
    """The question ids whose F1 under `better_config` is above, and below, their F1 under `base`."""
    f1 = rows.pivot(index="id", columns="config", values="f1")
    return set(f1.index[f1[better_config] > f1[base]]), set(f1.index[f1[better_config] < f1[base]])


def _ids(answer: object) -> set[str] | None:
    """A list (or set) of ids as a set of strings; None when it is not one."""
    if isinstance(answer, str) or not isinstance(answer, Iterable):
        return None
    return {str(item) for item in answer}


@self_check
def check_f1_split(better: object, worse: object, rows: pd.DataFrame) -> bool:
    """Right when `better` and `worse` list the ids whose hybrid F1 is above, and below, the dense F1."""
    if better is None or worse is None:
        return not_yet(STUB_HINT)
    got_better, got_worse = _ids(better), _ids(worse)
    if got_better is None or got_worse is None:
        return not_yet("give two lists of question ids (the `id` column of result.rows)")
    up, down = f1_split(rows)
    if (got_better, got_worse) == (up, down):
        return right(f"hybrid raises F1 on {len(up)} questions and lowers it on {len(down)}; the rest tie.")
    if (got_better, got_worse) == (down, up):
        return not_yet("the two lists are swapped: `better` holds the ids where hybrid's F1 is the higher")
    if got_better >= up and got_worse >= down:
        return not_yet("ties are in a list: a question whose two F1 are equal is neither better nor worse")
    which = "better" if got_better != up else "worse"
    return not_yet(f"the `{which}` list is not right yet: compare the f1 of config 'hybrid' and 'dense' per id")


def reingest_counts(original: Path, copy: Path, chunking: Any) -> tuple[int, int]:
    """(written, unchanged) chunks when `copy` is ingested over `original` (same name and bytes: unchanged)."""
    from helpers.chunking import chunk_for_settings
    from helpers.parsing import parse_folder

    def same(source: str) -> bool:
        before = Path(original) / source
        return before.is_file() and before.read_bytes() == (Path(copy) / source).read_bytes()

    documents = parse_folder(copy, progress=False).documents
    kept = [doc for doc in documents if same(str(doc.metadata.get("source")))]
    new = [doc for doc in documents if not same(str(doc.metadata.get("source")))]
    return len(chunk_for_settings(new, chunking)), len(chunk_for_settings(kept, chunking))


@self_check
def check_reingest_counts(answer: object, original: Path, copy: Path, chunking: Any) -> bool:
    """Right when `answer` is the (written, unchanged) pair the ingestion of `copy` reports."""
    require_answer(answer)
    if not isinstance(answer, tuple | list) or len(answer) != 2 or any(as_count(n) is None for n in answer):
        return not_yet("the answer is a pair of whole numbers: (chunks written, chunks unchanged)")
    written, unchanged = (as_count(n) for n in answer)
    want_written, want_unchanged = reingest_counts(original, copy, chunking)
    if (written, unchanged) == (want_unchanged, want_written) != (want_written, want_unchanged):
        return not_yet("the two numbers are the right way round? the first is what was written, the second unchanged")
    if written != want_written:
        return not_yet("count the chunks written again: only the files that are new in the copy make new points")
    return verdict(unchanged == want_unchanged, "the new file was written, everything else was already there",
                   "count the unchanged chunks again: every chunk of a file with the same name and text")  # fmt: skip
