"""The capstone (notebook 12): its corpus and questions, the kit's rule and report, the hidden tests' tables, and
nbgrader's round trip on the notebook.

The corpus is new (no file of the course corpus, no word of its university) and every evidence quote is in its
document as the kit parses it; the splits are disjoint and about even, a few questions unanswerable. On small made-up
tables: the rule picks by dev F1 only, the rigged and decoy tables catch a hard-coded choice and one that reads test
rows, and the report's intervals hold their estimates. The round trip: nbgrader generates the assignment from the
marked notebook (the hidden tests gone from the release), then autogrades the instructor version (full marks), the
release (zero) and the release with exercise 1 solved (that exercise's points), in the ci profile.
What it leaves out: the prose answer (graded by hand) and nbval's run of the notebook (scripts/test.sh).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd
from test_grading import _marks, graded_points, graded_three_ways

from helpers.byod.capstone import REPORT_KEYS, Setting, reference_choice, report_on_test, shortlist
from helpers.classroom.grading import BEGIN_HIDDEN
from helpers.classroom.leaderboard import collect_leaderboard
from helpers.corpus import DOCS_DIR, course_files
from helpers.corpus.capstone import CAPSTONE_DOCS, load_capstone
from helpers.exercises.capstone import check_choice, report_mismatches, rigged_dev_rows, with_decoy_test_rows
from helpers.metrics import chunk_supports
from helpers.parsing import parse

NOTEBOOK = "12_capstone"
ASSIGNMENT = "capstone"


def test_the_corpus_is_new_and_every_evidence_quote_is_in_its_document() -> None:
    ours, course = course_files(CAPSTONE_DOCS), course_files(DOCS_DIR)
    assert len(ours) >= 8 and not {p.read_bytes() for p in ours} & {p.read_bytes() for p in course}
    assert not any("Lakeside" in p.read_text(encoding="utf-8") for p in ours)  # another program, another school
    assert {p.suffix for p in ours} >= {".md", ".html", ".csv", ".eml", ".txt"}
    texts = {p.name: " ".join(d.text for d in parse(p, root=CAPSTONE_DOCS)) for p in ours}
    for question in load_capstone():
        for evidence in question.evidence:
            assert chunk_supports(texts[evidence.doc], evidence.doc, evidence), (question.id, evidence.quote)


def test_the_splits_are_disjoint_about_even_and_hold_unanswerable_questions() -> None:
    dev, test = load_capstone("dev"), load_capstone("test")
    assert not {q.id for q in dev} & {q.id for q in test} and abs(len(dev) - len(test)) <= 2
    unanswerable = [q for q in dev + test if not q.answerable]
    assert 3 <= len(unanswerable) <= 4 and all(not q.evidence for q in unanswerable)
    assert all(q.evidence and q.answers for q in dev + test if q.answerable)


def _rows(f1: dict[str, list[float]], split: str = "dev", found: float = 1.0) -> pd.DataFrame:
    """Made-up reader rows: per setting name ("bm25, k=2"), the F1 of questions q0, q1, …"""
    rows = []
    for name, scores in f1.items():
        retriever, k = name.split(", k=")
        for i, score in enumerate(scores):
            rows.append({"setting": name, "retriever": retriever, "k": int(k), "id": f"q{i}", "split": split,
                         "answer_in_top_k": found, "recall": found, "em": float(score == 1), "f1": score})  # fmt: skip
    return pd.DataFrame(rows)


def test_the_rule_reads_dev_f1_then_answer_in_top_k_then_the_smaller_k() -> None:
    rows = _rows({"bm25, k=2": [1, 0.5, np.nan], "hybrid, k=8": [1, 1, np.nan], "dense, k=4": [0, 0, np.nan]})
    assert reference_choice(rows) == Setting("hybrid", 8)
    tie = _rows({"bm25, k=2": [1, 0], "hybrid, k=8": [0, 1]})
    assert reference_choice(tie) == Setting("bm25", 2)
    assert shortlist(tie, 1, Setting("dense", 8)) == [Setting("bm25", 2), Setting("dense", 8)]
    decoys = pd.concat([rows, _rows({"dense, k=4": [1, 1, 1]}, split="test")])
    assert reference_choice(decoys) == Setting("hybrid", 8)


def test_the_hidden_tests_tables_catch_a_hard_coded_choice_and_one_that_reads_test_rows() -> None:
    rows = _rows({"bm25, k=2": [1, 0.5], "hybrid, k=8": [1, 1]})

    def fixed(table: pd.DataFrame) -> Setting:
        return Setting("hybrid", 8)

    def every_row(table: pd.DataFrame) -> Setting:
        return reference_choice(table.assign(split="dev"))

    assert check_choice(fixed, rows) and check_choice(every_row, rows)  # the visible check cannot tell
    rigged = rigged_dev_rows(rows)
    assert fixed(rigged) != reference_choice(rigged) == Setting("bm25", 2)
    chosen = reference_choice(rows)
    decoys = with_decoy_test_rows(rows, chosen)
    assert every_row(decoys) != chosen == reference_choice(decoys)


def test_the_report_holds_its_estimates_and_names_what_differs() -> None:
    chosen, default = Setting("bm25", 2), Setting("hybrid", 8)
    rows = _rows({chosen.name: [1, 0.5, 1, np.nan, 0], default.name: [0.5, 0.5, 1, np.nan, 0]}, split="test")
    report = report_on_test(rows, chosen, default)
    assert list(report) == list(REPORT_KEYS) and report["questions"] == 4
    assert report["f1"] == 0.625 and report["f1_low"] <= report["f1"] <= report["f1_high"]
    assert report["vs_default"] == 0.125 and report["vs_low"] <= 0.125 <= report["vs_high"]
    assert report_mismatches(report, report) == []
    assert report_mismatches(report | {"f1": 0.6}, report) == ["f1"]
    assert report_mismatches({k: v for k, v in report.items() if k != "p"}, report) == ["p"]


def test_nbgrader_grades_the_capstone_with_its_hidden_tests(tmp_path: Path) -> None:
    start = time.perf_counter()
    course = tmp_path / "course"
    source, scores, total = graded_three_ways(course, NOTEBOOK, ASSIGNMENT)
    assert any(BEGIN_HIDDEN in cell.source for cell in source.cells)
    hidden = sum(BEGIN_HIDDEN in cell.source and not meta["solution"] for cell, meta in zip(
        source.cells, _marks(source), strict=True))  # fmt: skip
    assert total == graded_points(source) and hidden >= 2
    assert scores["instructor"] == total and scores["release"] == 0, scores
    assert 0 < scores["partial"] < total, scores
    assert collect_leaderboard(course / "autograded").student.tolist() == ["instructor"]  # a stub writes no row
    print(f"nbgrader round trip on {NOTEBOOK}: {scores} of {total} in {time.perf_counter() - start:.0f} s")
