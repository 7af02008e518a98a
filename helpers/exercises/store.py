"""The self-check of notebook 04's exercise: on how many questions two exact searches disagree at k = 10.

`check_disagreements(answer, questions, numpy_search, qdrant_search, k=10)` asks both searchers every question
again (query vectors come from the embedder's cache; the searches take milliseconds), counts the questions whose
ranked top-k ids differ, and compares. It recognises the count at another k, the count of questions that agree,
and a comparison of sets instead of ranked lists, and never prints the expected count.
What it leaves out: why they disagree (ties, the exercise's hint), which the student reads in the lists.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from helpers.exercises.base import STUB_HINT, as_count, not_yet, self_check, verdict

Search = Callable[[str, int], list[tuple[str, float]]]  # (question, k) in, ranked (point id, score) pairs out


def disagreeing(questions: Sequence[str], reference: Search, other: Search, k: int, as_sets: bool = False) -> list[str]:
    """The questions whose top-k ids differ between the two searchers (as ranked lists, or as sets)."""
    out = []
    for question in questions:
        ours, theirs = [i for i, _ in reference(question, k)], [i for i, _ in other(question, k)]
        if (set(ours) != set(theirs)) if as_sets else (ours != theirs):
            out.append(question)
    return out


@self_check
def check_disagreements(answer: object, questions: Sequence[str], reference: Search, other: Search, k: int) -> bool:
    """Right when `answer` is how many questions (or which) get different top-k id lists from the two searchers."""
    if answer is None:
        return not_yet(STUB_HINT)
    listed = None if isinstance(answer, str) or not isinstance(answer, Sequence | set) else list(answer)
    count = len(listed) if listed is not None else as_count(answer)
    if count is None:
        return not_yet(f"the answer should be a count of questions (or the list of them), got {type(answer).__name__}")
    expected = disagreeing(questions, reference, other, k)
    if listed is not None and (unknown := [q for q in listed if q not in questions]):
        return not_yet(f"{len(unknown)} of the listed questions are not among the questions searched")
    right = set(listed) == set(expected) if listed is not None else count == len(expected)
    if right:
        return verdict(True, f"{count} of {len(questions)} questions get different top-{k} lists.", "")
    if listed is None and count == len(questions) - len(expected) != len(expected):
        return not_yet("that counts the questions that agree; the exercise asks for the ones that differ")
    if count == len(disagreeing(questions, reference, other, k, as_sets=True)):
        return not_yet("compare the ranked lists of ids, not their sets: the same ids in another order differ too")
    if k != 5 and count == len(disagreeing(questions, reference, other, 5)):
        return not_yet(f"that is the count at k = 5: ask both searchers for the top {k}")
    if listed is not None:
        return not_yet("some listed questions agree, or some that differ are missing: compare the two lists of each")
    return not_yet(f"{'too many' if count > len(expected) else 'too few'}: compare the top-{k} ids of every question")
