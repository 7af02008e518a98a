"""Every measured figure in the README and docs/ is checked against the results file that produced it (readme_numbers).

The real tests run the checker on every page (`pages()`: README.md and each docs/*.md, a page added to docs/ is
checked with no change here); the others plant a mistake (a changed number, an unmarked figure, a marker without a
file or a date) and show that each rule reports it, and the course map's times are read row by row against the
notebook each row names. The stale blocks and the figures no results file holds are one strict xfail per page: it
lists what remains to re-run, and turns into a failure once nothing does, so that the mark is taken off.
docs/decisions.md, the history of every default, marks its tables `per row`: each row is checked against the
results files it names.
`python tests/readme_numbers.py` prints the same lists.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from readme_numbers import ROOT, Figure, check, figures, matches, pages, scan

TEXTS = {name: (ROOT / name).read_text(encoding="utf-8") for name in pages()}
README = TEXTS["README.md"]
RESULTS = TEXTS["docs/results.md"]
WAITS = "<!-- numbers: bench/results/waits.json, bench/results/waits.md -->\n| what the user waits for |"
STUDENT = "bench/results/notebooks_student.json"
UNMARKED: set[str] = set()  # pages not marked yet: each a strict xfail
# pages with stale blocks or unsourced figures (python tests/readme_numbers.py lists them)
WITH_STALE = {"README.md", "docs/results.md", "docs/instructors.md", "docs/decisions.md"}


def _marked(names):
    return [
        pytest.param(name, marks=pytest.mark.xfail(strict=True, reason="no numbers markers yet"))
        if name in UNMARKED
        else name
        for name in names
    ]


@pytest.fixture(scope="module")
def reports():
    return {name: check(text, name) for name, text in TEXTS.items()}


@pytest.mark.parametrize("name", _marked(pages()))
def test_every_figure_of_a_page_is_marked_and_in_its_results_file(reports, name: str) -> None:
    assert not reports[name].problems, "\n".join(reports[name].problems)


def test_the_pages_are_the_readme_and_every_doc() -> None:
    assert {"README.md", "docs/results.md", "docs/instructors.md", "docs/decisions.md"} <= set(pages())
    assert set(pages()) == {"README.md", *(f"docs/{path.name}" for path in (ROOT / "docs").glob("*.md"))}


def test_the_checked_pages_hold_the_measured_figures(reports) -> None:
    assert reports["README.md"].blocks >= 5 and reports["docs/results.md"].figures >= 200, (
        {name: (r.blocks, r.figures) for name, r in reports.items()}
    )


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=pytest.mark.xfail(strict=True, reason="stale blocks and unsourced figures remain"))
        if name in WITH_STALE
        else name
        for name in pages()
        if name not in UNMARKED
    ],
)
def test_no_block_is_stale_and_every_figure_has_a_file(reports, name: str) -> None:
    assert not reports[name].stale, "to re-run or to measure:\n" + "\n".join(reports[name].stale)


def course_map_problems(text: str) -> list[str]:
    """Rows of the course map (the table marked with notebooks_student.json) whose "runs in, cold" cell is not that
    notebook's `seconds_cold` ("—" when the file has no row for it), and notebooks missing from the map."""
    rows = {row["notebook"][:2]: row["seconds_cold"] for row in json.loads((ROOT / STUDENT).read_text())["rows"]}
    notebooks = sorted(path.name[:2] for path in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    blocks, _, _ = scan(text)
    table = next(block for block in blocks if block.lines[0].startswith("| notebook |") and STUDENT in block.files)
    cells = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in table.lines[2:]]
    shown = {match.group(1): row[-1] for row in cells if (match := re.match(r"`(\d\d)_", row[0]))}
    problems = [f"notebook {number} is not in the course map" for number in notebooks if number not in shown]
    for number, cell in sorted(shown.items()):
        expected = f"{rows[number]:.1f} s" if number in rows else "—"
        if cell != expected:
            problems.append(f"notebook {number}: the course map shows {cell!r}, {STUDENT} says {expected!r}")
    return problems


def test_the_course_map_shows_each_notebooks_own_time() -> None:
    assert course_map_problems(README) == []


def test_a_time_in_the_wrong_row_of_the_course_map_is_reported() -> None:
    row = next(line for line in README.splitlines() if line.startswith("| `00_"))
    time = row.rstrip(" |").rpartition("| ")[2]
    wrong, _ = planted(README, row, row.replace(f"| {time} |", "| 1.0 min |"))
    assert course_map_problems(wrong) == [f"notebook 00: the course map shows '1.0 min', {STUDENT} says {time!r}"]


# --- each rule can fail ------------------------------------------------------------------------------------------


def planted(text: str, old: str, new: str) -> tuple[str, int]:
    """`text` with its one `old` replaced by `new`, and the 1-based line of the change."""
    assert text.count(old) == 1, old
    return text.replace(old, new), text[: text.index(old)].count("\n") + 1


def test_a_changed_number_in_a_copy_of_a_marked_block_is_reported() -> None:
    blocks, _, _ = scan(RESULTS)
    table = next(block for block in blocks if "what the user waits for" in block.lines[0])
    copy = "\n".join([f"<!-- numbers: {', '.join(table.files)} -->", *table.lines])
    assert check(copy, "copy").problems == []
    wrong, line = planted(copy, "| 13.37 s in a fresh process", "| 13.73 s in a fresh process")
    assert check(wrong, "copy").problems == [
        f"copy:{line}: 13.73 s is in none of bench/results/waits.json, bench/results/waits.md"
    ]


def test_a_changed_number_is_reported_with_its_line() -> None:
    assert WAITS in RESULTS
    wrong, line = planted(RESULTS, "0.199 s for 2.83 MB", "0.199 s for 3.28 MB")
    assert [problem for problem in check(wrong, "docs/results.md").problems if "3.28" in problem] == [
        f"docs/results.md:{line}: 3.28 MB is in none of bench/results/waits.json, bench/results/waits.md"
    ]


def test_a_figure_outside_a_marked_block_is_reported() -> None:
    text = "# Results\n\nHybrid recall@5 rose to 0.913 and search took 4.2 s.\n\nA plain sentence, top 4, k 60.\n"
    assert check(text, "x.md").problems == ["x.md:3: measured figures outside a marked block: 0.913, 4.2 s"]


def test_markers_that_say_too_little_are_reported(tmp_path: Path) -> None:
    text = (
        "<!-- numbers: stale: old reader -->\nF1 0.5.\n\n"
        "<!-- numbers: bench/results/not_there.json -->\nF1 0.6.\n\n"
        "<!-- numbers: bench/results/waits.json -->\n\n## A heading\n"
    )
    problems = check(text, "x.md").problems
    assert problems == [
        "x.md:1: a stale block must say `regenerate with: <command>`",
        "x.md:7: the marker is followed by no table or paragraph",
        "x.md:4: no results file not_there.json".replace("not_there", "bench/results/not_there"),
    ]


def test_a_block_without_date_and_commit_or_with_another_date_is_reported(tmp_path: Path) -> None:
    (tmp_path / "plain.csv").write_text("setting,F1\na,0.512\n", encoding="utf-8")
    (tmp_path / "run.json").write_text('{"date": "2026-11-25T10:00:00+00:00", "commit": "abc1234", "f1": 0.512}')
    undated = check("<!-- numbers: plain.csv -->\nF1 0.512.\n", "x.md", tmp_path).problems
    assert undated == [
        "x.md:1: no date in the block, its heading or every file it names",
        "x.md:1: no commit in the block, its heading or every file it names",
    ]
    assert check("<!-- numbers: run.json -->\nF1 0.512.\n", "x.md", tmp_path).problems == []
    assert check("<!-- numbers: run.json -->\nF1 0.512 (2026-11-20).\n", "x.md", tmp_path).problems == [
        "x.md:1: it names 2026-11-20, its files are of 2026-11-25"
    ]


def test_stale_blocks_and_unsourced_figures_are_listed_not_failed(tmp_path: Path) -> None:
    (tmp_path / "run.json").write_text('{"date": "2026-11-25", "commit": "abc1234", "f1": 0.512}')
    text = (
        "<!-- numbers: stale: the old reader; regenerate with: python -m bench.story -->\nF1 0.5.\n\n"
        "<!-- numbers: run.json; unsourced: 1.1 GB -->\nF1 0.512 with 1.1 GB of wheels.\n"
    )
    found = check(text, "x.md", tmp_path)
    assert found.problems == [] and found.figures == 1
    assert found.stale == [
        "x.md:2-2 (): stale: the old reader; regenerate with: python -m bench.story",
        "x.md:5: 1.1 GB: in no results file",
    ]


@pytest.mark.parametrize(
    ("shown", "value", "expected"),
    [
        ("F1 0.675", 0.6748, True),
        ("F1 0.675", 0.6744, False),
        ("1,254 s", 1254.3, True),
        ("(+0.041, p 0.67)", -0.0412, True),
        ("4.9 s", 4900.0, True),
        ("6.2 min", 372.0, True),
        ("92 %", 0.922, True),
        ("+24 %", 24.0, False),
        ("+24 %", 1.235, True),
        ("16 ms", 0.016, True),
    ],
)
def test_a_figure_matches_at_the_precision_it_shows(shown: str, value: float, expected: bool) -> None:
    first = figures(shown)[0]
    assert matches(first, [abs(value)]) is expected, first


def test_names_versions_dates_and_bounds_are_not_figures() -> None:
    line = (
        "qwen2.5-coder-1.5b, Python 3.11, the 1.5B reader, q8_0, recall@5, all-MiniLM-L6-v2, 2026-11-25, "
        "commit 1d99e74, `0.123 s`, k 4 of pool 50, 500/50, a 1,500-token cap, p < 0.001, first token ≤ 3 s, 10k"
    )
    assert figures(line) == []


def test_a_range_or_a_list_takes_the_unit_of_its_last_number() -> None:
    assert [f.text for f in figures("local mode 6 / 46 / 331 ms (12–19× numpy), 25 of 30 answers")] == [
        "6 ms", "46 ms", "331 ms", "12×", "19×", "25", "30",
    ]  # fmt: skip
    assert figures("−0.073")[0] == Figure(0, "−0.073", -0.073, 3)


def test_a_stale_figure_planted_in_the_instructors_page_is_reported() -> None:
    text = (ROOT / "docs" / "instructors.md").read_text(encoding="utf-8")
    assert check(text, "docs/instructors.md").problems == []
    wrong, line = planted(text, "1493 s cold", "1439 s cold")
    assert check(wrong, "docs/instructors.md").problems == [
        f"docs/instructors.md:{line}: 1439 s is in none of bench/results/notebooks_student.json"
    ]


def test_a_constant_of_the_code_is_checked_against_its_source_file(tmp_path: Path) -> None:
    (tmp_path / "client.py").write_text("CONNECT_TIMEOUT_S = 10\n", encoding="utf-8")
    assert check("<!-- numbers: client.py -->\nA request times out after 10 s.\n", "x.md", tmp_path).problems == []
    assert check("<!-- numbers: client.py -->\nA request times out after 30 s.\n", "x.md", tmp_path).problems == [
        "x.md:2: 30 s is in none of client.py"
    ]


def test_a_confidence_level_and_a_hyphenated_word_are_not_figures() -> None:
    assert figures("a bootstrap 95 % interval; exercise 2 min-max fusion") == []
    assert [f.text for f in figures("95 % of the answers in 2 min")] == ["95%", "2 min"]


PER_ROW = """<!-- numbers: per row -->
| decision | measurement | where |
| --- | --- | --- |
| hybrid | recall 0.812 in 4.2 s | `a.json` |
| pool 50 | F1 0.655 and 0.701 | `b_{x,y}.json` and their `_answers.csv` |
| k 8 | F1 0.640, p 0.31 | `c.json` <!-- numbers: unsourced: 0.31 --> |
| tokenizer | recall 0.59 | `c.json` <!-- numbers: stale: c.json run again; regenerate with: python -m bench.c --> |
| a probe | 0.77 in a console run | — <!-- numbers: unsourced: 0.77 --> |
"""


@pytest.fixture
def per_row_root(tmp_path: Path) -> Path:
    results = tmp_path / "bench" / "results"
    results.mkdir(parents=True)
    run = '"date": "2026-11-25T10:00:00+00:00", "commit": "abc1234"'
    (results / "a.json").write_text(f'{{{run}, "recall": 0.8116, "seconds": 4.21}}')
    (results / "b_x.json").write_text(f'{{{run}, "f1": 0.6549}}')
    (results / "b_y.json").write_text(f'{{{run}, "f1": 0.5}}')
    (results / "b_y_answers.csv").write_text("id,f1\\nq1,0.701\\n")
    (results / "c.json").write_text(f'{{{run}, "f1": 0.6401}}')
    return tmp_path


def test_a_per_row_table_checks_each_row_against_its_own_files(per_row_root: Path) -> None:
    found = check(PER_ROW, "x.md", per_row_root)
    assert found.problems == [] and found.blocks == 7 and found.figures == 5
    assert found.stale == [
        "x.md:6: 0.31: in no results file",
        "x.md:7-7 (): stale: c.json run again; regenerate with: python -m bench.c",
        "x.md:8: 0.77: in no results file",
    ]
    wrong, line = planted(PER_ROW, "F1 0.655 and", "F1 0.656 and")
    assert check(wrong, "x.md", per_row_root).problems == [
        f"x.md:{line}: 0.656 is in none of bench/results/b_x.json, bench/results/b_y.json, "
        "bench/results/b_y_answers.csv"
    ]
    wrong, line = planted(PER_ROW, "recall 0.812 in 4.2 s | `a.json`", "recall 0.812 in 4.2 s | `c.json`")
    assert check(wrong, "x.md", per_row_root).problems == [
        f"x.md:{line}: 0.812 is in none of bench/results/c.json",
        f"x.md:{line}: 4.2 s is in none of bench/results/c.json",
    ]


def test_a_figure_of_a_row_or_block_that_names_no_file_is_reported(per_row_root: Path) -> None:
    wrong, line = planted(PER_ROW, "0.77 in a console run | — <!-- numbers: unsourced: 0.77 -->", "0.77 in a run | —")
    assert check(wrong, "x.md", per_row_root).problems == [f"x.md:{line}: 0.77 is in a row that names no results file"]
    block = "<!-- numbers: unsourced: 1.1 GB -->\n1.1 GB of wheels, 0.4 s to import.\n"
    assert check(block, "x.md").problems == ["x.md:2: 0.4 s is in a block that names no results file"]
