"""The self-checks of notebook 04's exercises: disagreements of two exact searches, and ids from content.

Each recomputes the count, recognises the usual slips (sets instead of lists, another k, a first ingestion) and
never prints it.
What it leaves out: why searches disagree and why one sentence can change several chunks (prose).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from llama_index.core.schema import BaseNode

from helpers.exercises.base import as_count, not_yet, require_answer, right, self_check

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
    require_answer(answer)
    listed = None if isinstance(answer, str) or not isinstance(answer, Sequence | set) else list(answer)
    count = len(listed) if listed is not None else as_count(answer)
    if count is None:
        return not_yet(f"the answer should be a count of questions (or the list of them), got {type(answer).__name__}")
    expected = disagreeing(questions, reference, other, k)
    if listed is not None and (unknown := [q for q in listed if q not in questions]):
        return not_yet(f"{len(unknown)} of the listed questions are not among the questions searched")
    if set(listed) == set(expected) if listed is not None else count == len(expected):
        return right(f"{count} of {len(questions)} questions get different top-{k} lists.")
    if listed is None and count == len(questions) - len(expected) != len(expected):
        return not_yet("that counts the questions that agree; the exercise asks for the ones that differ")
    if count == len(disagreeing(questions, reference, other, k, as_sets=True)):
        return not_yet("compare the ranked lists of ids, not their sets: the same ids in another order differ too")
    if k != 5 and count == len(disagreeing(questions, reference, other, 5)):
        return not_yet(f"that is the count at k = 5: ask both searchers for the top {k}")
    if listed is not None:
        return not_yet("some listed questions agree, or some that differ are missing: compare the two lists of each")
    return not_yet(f"not the count of questions whose top-{k} id lists differ: compare the two lists of every "
                   "question")  # fmt: skip


def id_changes(old_nodes: Sequence[BaseNode], new_nodes: Sequence[BaseNode]) -> dict[str, int]:
    """What upserting `new_nodes` over a store holding `old_nodes` (one document's two versions) writes and removes."""
    old, new = {n.node_id for n in old_nodes}, {n.node_id for n in new_nodes}
    return {"written": len(new - old), "unchanged": len(new & old), "removed_stale": len(old - new)}


@self_check
def check_changed_document(counts: object, old_nodes: Sequence[BaseNode], new_nodes: Sequence[BaseNode]) -> bool:
    """Right when `counts` holds what the second upsert wrote and removed after the document changed."""
    require_answer(counts)
    if not isinstance(counts, Mapping) or not {"written", "removed_stale"} <= set(counts):
        return not_yet("the answer should be the second upsert's counts: a dict with 'written' and 'removed_stale'")
    given = {key: as_count(value) for key, value in counts.items() if key in ("written", "unchanged", "removed_stale")}
    if any(value is None for value in given.values()):
        return not_yet("each count should be a whole number of chunks")
    expected = id_changes(old_nodes, new_nodes)
    if expected["written"] == expected["removed_stale"] == 0:
        return not_yet("both versions cut into the very same chunks: the sentence you changed is not in the text "
                       "(did the replacement find it?)")  # fmt: skip
    if all(given[key] == expected[key] for key in given):
        changed = "one chunk" if expected["written"] == 1 else "more than one chunk"
        return right(f"the changed sentence gave {changed} a new id: written, and the old ones removed.")
    if given["written"] == len(new_nodes) and given["removed_stale"] == 0:
        return not_yet("those are the counts of a first ingestion: the second upsert writes only ids not stored yet")
    wrong = next(key for key in given if given[key] != expected[key])
    return not_yet(f"{wrong!r} is off: compare the chunk ids of the two versions (node.node_id)")
