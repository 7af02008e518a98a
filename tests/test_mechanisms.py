"""helpers.mechanisms: a student's function takes a slot, `reset` gives it back, mistakes get a clear message."""

from __future__ import annotations

import pytest

from helpers import mechanisms
from helpers.mechanisms import SlotError, chosen, in_use, reset, use


def kit_split(text: str, size: int, overlap: int) -> list[str]:
    return [text]


def test_use_puts_a_function_in_the_slot_and_reset_takes_it_back(capsys: pytest.CaptureFixture[str]) -> None:
    def my_split(text: str, size: int, overlap: int) -> list[str]:
        return text.split()

    try:
        assert chosen("split", kit_split) is kit_split
        use("split", my_split)
        assert "now runs on your my_split" in capsys.readouterr().out
        assert chosen("split", kit_split)("a b", 1, 0) == ["a", "b"] and mechanisms.calls() == {"split": 1}
        assert in_use() == {"split": "my_split"}
        reset("split")
        assert chosen("split", kit_split) is kit_split and in_use() == {}
    finally:
        reset()


def test_unknown_slots_and_non_functions_are_refused_with_the_slot_list() -> None:
    with pytest.raises(SlotError, match="the slots are: split"):
        use("splitter", kit_split)
    with pytest.raises(SlotError, match="needs a function"):
        use("split", "recursive")  # type: ignore[arg-type]
    assert mechanisms.in_use() == {}
