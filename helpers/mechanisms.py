"""Your functions in the kit's place: `use("fusion", my_fusion)` and the pipeline runs on your code.

Each stage's core is a short function with a fixed signature, a *slot*. The kit ships its own
implementation of every slot (the reference, and the default); a notebook asks you to write the same
function, and `use` puts yours in its place for this Python process, so the notebook's later cells, the
pipeline and the app all run on it, and a bug in it shows up in the numbers the notebook measures.

    >>> use("fusion", my_fusion)      # from now on every hybrid retriever fuses with my_fusion
    >>> in_use()                      # {'fusion': 'my_fusion'}
    >>> reset("fusion")               # back to the kit's own

A stage looks its slot up at call time with `chosen(slot, kit_function)`, so a change takes effect at once.
What it leaves out: checking that your function is right (the exercises' checks do that) and keeping it
across kernels (a new kernel starts with the kit's functions).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# slot → the signature a student's function must have (the kit's reference has the same)
SLOTS: dict[str, str] = {
    "split": "split(text: str, size: int, overlap: int) -> list[str]  (recursive character splitting, notebook 02)",
    "top_k": "top_k(matrix: ndarray, query: ndarray, k: int) -> list[tuple[int, float]]  (cosine top-k, notebook 03)",
    "bm25": "bm25(query: list[str], documents: list[list[str]], k1: float, b: float) -> ndarray  (notebook 05)",
    "fusion": "fusion(dense: dict[str, float], sparse: dict[str, float], alpha: float) -> dict[str, float]  (05)",
    "rrf": "rrf(rankings: list[list[str]], k: int) -> dict[str, float]  (reciprocal rank fusion, notebook 05)",
    "prompt": "prompt(question: str, passages: list[str]) -> str  (the numbered context and question, notebook 07)",
    "budget": "budget(passages: list[str], room: int, count: Callable[[str], int]) -> list[str]  (notebook 07)",
    "f1": "f1(prediction: str, reference: str) -> float  (SQuAD token F1, notebook 08)",
    "exact_match": "exact_match(prediction: str, reference: str) -> float  (SQuAD EM, notebook 08)",
    "bootstrap": "bootstrap(a: ndarray, b: ndarray, resamples: int, seed: int) -> ndarray  (the resampled mean"
    " differences b - a, notebook 08)",
}

_chosen: dict[str, Callable[..., Any]] = {}


class SlotError(ValueError):
    """An unknown slot, or something that is not a function."""


def use(slot: str, function: Callable[..., Any], quiet: bool = False) -> None:
    """Run the kit on `function` wherever it needs `slot`, for the rest of this process."""
    if slot not in SLOTS:
        raise SlotError(f"no slot {slot!r}; the slots are: {', '.join(SLOTS)}")
    if not callable(function):
        raise SlotError(f"use({slot!r}, …) needs a function with the signature {SLOTS[slot]}")
    _chosen[slot] = function
    if not quiet:
        print(f"'{slot}' now runs on your {getattr(function, '__name__', 'function')}: {SLOTS[slot]}")


def chosen(slot: str, kit_function: Callable[..., Any]) -> Callable[..., Any]:
    """The function in force for `slot`: the one given to `use`, else the kit's own."""
    return _chosen.get(slot, kit_function)


def reset(slot: str | None = None) -> None:
    """Back to the kit's own function for `slot` (every slot when None)."""
    if slot is None:
        _chosen.clear()
    else:
        _chosen.pop(slot, None)


def in_use() -> dict[str, str]:
    """The slots that run on a function of yours, with its name."""
    return {slot: getattr(function, "__name__", repr(function)) for slot, function in _chosen.items()}
