"""The class leaderboard: a student's row as the capstone writes it, and the instructor's table of every row.

A row carries the chosen setting, the test numbers and which of the student's functions ran; `collect_leaderboard`
reads every `leaderboard.csv` under a folder — nbgrader's `submitted/<student>/<assignment>/` tree names the
student by the folder — keeps one row per student (the latest) and sorts by test F1; a broken file is skipped with a
warning. The command prints the table. What it leaves out: the notebook that writes the row (tests/test_capstone.py).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from helpers.__main__ import main
from helpers.byod.capstone import Setting
from helpers.classroom.leaderboard import COLUMNS, LEADERBOARD, collect_leaderboard, leaderboard_row, write_row
from helpers.config import Settings
from helpers.mechanisms import reset, use

REPORT = {"setting": "bm25, k=2", "questions": 18, "em": 0.5, "f1": 0.625, "f1_low": 0.5, "f1_high": 0.75,
          "vs_default": 0.125, "vs_low": -0.05, "vs_high": 0.3, "p": 0.1}  # fmt: skip


def _row(name: str, f1: float, written: str = "2026-01-01T00:00:00+00:00") -> dict:
    row = leaderboard_row(REPORT | {"f1": f1}, Setting("bm25", 2), Settings(profile="ci"), name=name)
    return row | {"written": written}


def _submit(root: Path, student: str, row: dict, step: str = "submitted") -> Path:
    folder = root / step / student / "capstone"
    folder.mkdir(parents=True)
    return write_row(row, folder)


def test_a_row_holds_the_setting_the_numbers_and_the_students_own_functions(monkeypatch) -> None:
    monkeypatch.delenv("KIT_STUDENT", raising=False)
    monkeypatch.delenv("JUPYTERHUB_USER", raising=False)

    def my_f1(prediction: str, reference: str) -> float:
        return 0.0

    use("f1", my_f1, quiet=True)
    try:
        row = leaderboard_row(REPORT, Setting("bm25", 2), Settings(profile="ci"))
    finally:
        reset("f1")
    assert list(row) == COLUMNS
    assert (row["student"], row["retriever"], row["k"], row["test_f1"]) == ("anonymous", "bm25", 2, 0.625)
    assert row["functions"] == "f1=my_f1" and row["profile"] == "ci"
    assert leaderboard_row(REPORT, Setting("bm25", 2), Settings())["functions"] == "the kit's own"


def test_the_name_given_comes_first_then_the_environment(monkeypatch) -> None:
    monkeypatch.setenv("JUPYTERHUB_USER", "hub-user")
    monkeypatch.setenv("KIT_STUDENT", "  ")
    assert _row("Ada", 0.5)["student"] == "Ada"
    assert _row("", 0.5)["student"] == "hub-user"
    monkeypatch.setenv("KIT_STUDENT", "Grace")
    assert _row("", 0.5)["student"] == "Grace"


def test_the_class_table_names_students_by_their_folders_keeps_the_latest_and_sorts_by_f1(tmp_path: Path) -> None:
    _submit(tmp_path, "alice", _row("anonymous", 0.4))
    _submit(tmp_path, "bob", _row("anonymous", 0.7))
    _submit(tmp_path, "alice", _row("anonymous", 0.9, written="2026-02-01T00:00:00+00:00"), step="autograded")
    loose = tmp_path / "elsewhere"
    loose.mkdir()
    write_row(_row("carol", 0.1), loose)
    table = collect_leaderboard(tmp_path)
    assert list(table.student) == ["alice", "bob", "carol"]
    assert list(table.test_f1) == [0.9, 0.7, 0.1] and list(table.columns) == COLUMNS
    only_submitted = collect_leaderboard(tmp_path / "submitted")
    assert list(only_submitted.student) == ["bob", "alice"]


def test_a_broken_file_is_skipped_with_a_warning_and_an_empty_folder_gives_an_empty_table(tmp_path: Path) -> None:
    _submit(tmp_path, "alice", _row("alice", 0.4))
    broken = tmp_path / "submitted" / "bob" / "capstone"
    broken.mkdir(parents=True)
    pd.DataFrame({"name": ["bob"]}).to_csv(broken / LEADERBOARD, index=False)
    with pytest.warns(UserWarning, match="no student, test_f1 column"):
        table = collect_leaderboard(tmp_path)
    assert list(table.student) == ["alice"]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert collect_leaderboard(empty).empty
    with pytest.raises(FileNotFoundError, match="not a folder"):
        collect_leaderboard(tmp_path / "missing")


def test_the_command_prints_the_table_and_writes_it(tmp_path: Path, capsys) -> None:
    _submit(tmp_path, "alice", _row("alice", 0.4))
    out = tmp_path / "class.csv"
    assert main(["leaderboard", str(tmp_path / "submitted"), "--out", str(out)]) == 0
    assert "alice" in capsys.readouterr().out and pd.read_csv(out).student.tolist() == ["alice"]
    assert main(["leaderboard", str(tmp_path / "nowhere")]) == 2
    assert "not a folder" in capsys.readouterr().err
