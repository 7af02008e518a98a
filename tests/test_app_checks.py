"""The self-checks of notebooks 09 and 10 (helpers/exercises/app.py): ✓ on the right answer, "not yet" without the
answer on stubs and typical slips, never a traceback (strict mode off, as a student runs them)."""

from __future__ import annotations

import pandas as pd
import pytest

from helpers.corpus import Question
from helpers.exercises.app import (
    check_answer_in_top_k,
    check_f1_split,
    check_reingest_counts,
    check_separating_floor,
    check_shared_passages,
    check_smallest_k,
)
from helpers.exercises.base import STRICT_ENV
from helpers.types import Hit

FEE = Question("q1", "What is the application fee?", "$90", "numerical", "dev", answer_variants=("90",))
TEAMS = Question("q2", "How big are capstone teams?", "three to five students", "direct_fact", "dev")


def hit(node_id: str, text: str = "filler words", dense: float = 0.5) -> Hit:
    return Hit(node_id, text, {"source": "doc.md"}, {"dense": dense})


RANKING = [hit("a"), hit("b"), hit("c", "The application fee is $90."), hit("d", "Teams have three to five students.")]


@pytest.fixture(autouse=True)
def lenient(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run the checks as a student does: a "not yet" prints and returns False."""
    monkeypatch.delenv(STRICT_ENV, raising=False)


def said(capsys: pytest.CaptureFixture[str]) -> str:
    return capsys.readouterr().out


def test_shared_passages(capsys: pytest.CaptureFixture[str]) -> None:
    a, b = [hit("a"), hit("b"), hit("c")], [hit("c"), hit("d"), hit("a")]
    assert check_shared_passages(2, a, b) and "✓" in said(capsys)
    for wrong, hint in ((None, "still None"), (4, "either side"), (3, "one side"), (1, "in both"), ("2", "whole")):
        assert not check_shared_passages(wrong, a, b)
        out = said(capsys)
        assert hint in out and "✗ Not yet" in out


def test_separating_floor(capsys: pytest.CaptureFixture[str]) -> None:
    answerable, unanswerable = [hit("a", dense=0.62)], [hit("b", dense=0.41), hit("c", dense=0.2)]
    assert check_separating_floor(0.5, answerable, unanswerable)
    assert check_separating_floor(0.62, answerable, unanswerable)  # the best passage itself is kept (>=)
    for wrong, hint in ((0.7, "between"), (0.41, "between"), (0.1, "between"), ("high", "a number"), (None, "None")):
        assert not check_separating_floor(wrong, answerable, unanswerable)
        assert hint in said(capsys)
    assert not check_separating_floor(0.7, answerable, unanswerable)
    above = said(capsys)
    assert not check_separating_floor(0.1, answerable, unanswerable) and said(capsys) == above  # no direction
    assert not check_separating_floor(0.5, [hit("a", dense=0.3)], unanswerable) and "pick others" in said(capsys)


def test_smallest_k(capsys: pytest.CaptureFixture[str]) -> None:
    def hits_at(k: int) -> list[Hit]:
        return RANKING[:k]

    assert check_smallest_k(3, FEE, hits_at) and "✓" in said(capsys)
    assert not check_smallest_k(2, FEE, hits_at) and "from 1 up" in said(capsys)
    assert not check_smallest_k(4, FEE, hits_at) and "k = 4 is not the smallest" in said(capsys)
    assert not check_smallest_k(11, FEE, hits_at) and "between 1 and" in said(capsys)
    assert not check_smallest_k(3, Question("q3", "?", "nowhere", "date", "dev"), hits_at) and "another" in said(capsys)


def test_answer_in_top_k(capsys: pytest.CaptureFixture[str]) -> None:
    def hits_at(question: str, k: int) -> list[Hit]:
        return RANKING[:k] if "fee" in question else RANKING[::-1][:k]  # teams: found at 1, fee: at 3

    questions = [FEE, TEAMS]
    assert check_answer_in_top_k({1: 1, 2: 1, 4: 2}, questions, hits_at) and "✓" in said(capsys)
    assert not check_answer_in_top_k({1: 1, 2: 1}, questions, hits_at) and "k = 4 is missing" in said(capsys)
    assert not check_answer_in_top_k({1: 0.5, 2: 1, 4: 2}, questions, hits_at) and "a share" in said(capsys)
    assert not check_answer_in_top_k({1: 1, 2: 2, 4: 2}, questions, hits_at) and "k = 2: not the count" in said(capsys)
    assert not check_answer_in_top_k([1, 1, 2], questions, hits_at) and "dict" in said(capsys)


def test_f1_split(capsys: pytest.CaptureFixture[str]) -> None:
    rows = pd.DataFrame(
        [("q1", "dense", 0.5), ("q1", "hybrid", 1.0), ("q2", "dense", 1.0), ("q2", "hybrid", 0.0),
         ("q3", "dense", 0.3), ("q3", "hybrid", 0.3)],
        columns=["id", "config", "f1"],
    )  # fmt: skip
    assert check_f1_split(["q1"], ["q2"], rows) and "✓" in said(capsys)
    assert not check_f1_split(["q2"], ["q1"], rows) and "swapped" in said(capsys)
    assert not check_f1_split(["q1", "q3"], ["q2"], rows) and "ties" in said(capsys)
    assert not check_f1_split(["q1"], [], rows) and "`worse`" in said(capsys)
    assert not check_f1_split(None, None, rows) and "None" in said(capsys)


def test_reingest_counts_are_the_new_files_chunks_and_the_rest(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    from helpers.config import ChunkingSettings
    from helpers.exercises.app import reingest_counts

    original, copy = tmp_path / "original", tmp_path / "copy"
    for folder in (original, copy):
        folder.mkdir()
        (folder / "rules.txt").write_text("Rules\n\nBadges are worn at all times in the workshop.\n")
    (copy / "pets.txt").write_text("Pets\n\nOnly assistance dogs may enter.\n")
    chunking = ChunkingSettings()
    written, unchanged = reingest_counts(original, copy, chunking)
    assert written >= 1 and unchanged >= 1
    assert check_reingest_counts((written, unchanged), original, copy, chunking)
    assert not check_reingest_counts(None, original, copy, chunking)
    assert not check_reingest_counts((unchanged, written), original, copy, chunking) or written == unchanged
    assert not check_reingest_counts((written + 1, unchanged), original, copy, chunking)
    assert not check_reingest_counts("two", original, copy, chunking)
    out = capsys.readouterr().out
    assert "Not yet" in out and str(written + 1) not in out.replace(str(written + 1) + " ", "")
