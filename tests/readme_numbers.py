"""One source of truth for numbers: every measured figure in the README and docs/ is checked against the file that
produced it (`pages()`: README.md and every docs/*.md there is).

The convention. An HTML comment names where the numbers of the block right below it come from:

    <!-- numbers: bench/results/story_ladder.json -->
    <!-- numbers: bench/results/realworld_final.csv, bench/results/realworld_test_retrieval.json -->
    <!-- numbers: reports/evaluation.md; stale: the old reader; regenerate with: python -m helpers report -->
    <!-- numbers: stale: a notebook's outputs, in no results file; regenerate with: jupyter nbconvert ... -->
    <!-- numbers: bench/results/waits.json; unsourced: 1.1 GB -->
    <!-- numbers: helpers/store/client.py -->                  (a constant of the code: its timeout in seconds)

The comment sits on its own line; its block starts at the next non-blank line and ends before the next blank line:
one Markdown table or one paragraph (a fenced code block or a heading cannot be marked). The comment's parts are
separated by ";": a comma-separated list of results files (paths from the repository root; a source file, `.py`,
`.sh` or `.toml`, for a constant of the code, which needs no date or commit), `stale: why` (the
numbers are true to their file but not to the current defaults, or no file holds them), `regenerate with:
command` (required with `stale`) and `unsourced: figure, figure` (figures of the block, as written, that no
results file holds: not checked, listed). Stale blocks and unsourced figures are listed apart (`Report.stale`),
so what remains to re-run or to measure is explicit; a stale block's figures are still checked against the
files it names, but a missing date or commit is listed with it instead of failing. A figure of a block that
names no file is either unsourced or in a stale block.

A table whose rows come from different runs (docs/decisions.md) is marked `<!-- numbers: per row -->`: each row
is then a block of its own, its files the results files it names in backticks (`realworld_final.json` is
bench/results/realworld_final.json, a name with a "/" a path from the root; `realworld_retrieval_*.json` and
`x_{course,real}.json` stand for every file they match; an ending alone, `_answers.csv` or `.csv`, for that
ending of each JSON file named before it), its date and commit its own or its files'. A row may carry its own
marker inside it, `<!-- numbers: ... -->` in its last cell, with the parts above: files named there replace
the backticked ones, `unsourced:` keeps them, and `stale:` without files says that no file holds the row's
figures (a run whose file a later run overwrote, a notebook's output).

What is a measured figure (`figures`): a number shown with decimals (0.675, 4.9), or one with a unit of time
(s, ms, min), of rate (chunks/s), of size (MB, GB), a percentage or a multiple (3.6x), or the two numbers of a
count ("25 of 30"); one of a range or a list ("12-19x", "6 / 46 / 331 ms") takes the unit of the last. Not
figures: bare integers (k 4, pool 50, 1,631 chunks), numbers inside names and versions (qwen2.5, Python 3.11,
1.5B, q8_0, recall@5), code spans, dates, commits, bounds or targets after <, >, <=, >= ("p < 0.001"), and a
confidence level ("a 95 % interval").

The rules, each a function tested on a planted mistake in tests/test_readme_numbers.py:
- a line outside every marked block holds no figure (nor one `test_code_hygiene.measured_figures` flags);
- each figure of a block marked with files equals a number in those files at the precision shown: shown with d
  decimals it matches a value v when |v - x| <= half a unit of its last digit (0.675 matches 0.6748, "1,254"
  matches 1254.3); the sign is not compared (a difference "+0.041" or "-0.073" matches the value in the file);
  a percentage also matches the share x/100 and the ratio 1 +- x/100 (a signed one only those), minutes match
  seconds, seconds match milliseconds and minutes, GB match MB;
- the numbers of a file: every number of a JSON file walked recursively (numbers inside strings too: a
  rendered table), every CSV cell, every number in a Markdown file; a per-question CSV (columns `corpus`, `id`,
  `f1` and `configuration` or `set-up`) also gives, per corpus, each pair of set-ups' mean F1 difference on the
  answerable questions and its two-sided p (`paired_bootstrap`, seed 0, as `helpers.evaluation.ladder.story_steps`
  computes them), so the gains and p-values of a table are rendered from the rows that produced them;
- each block has a date and a commit: named in the block or its heading, or in every file it names (a JSON
  file's "date" and "commit" keys, see `bench/common.py`; a CSV or Markdown file's JSON of the same run, named
  by its name or a prefix of it, or a date and "commit <hash>" in its text); a date the block or its heading
  names must be one of its files' dates.
What it leaves out: whether a figure is the right one of the file's numbers (a rule reads values, not their
meaning: a figure shown with few digits, such as 0.6 or "+5 %", matches many values), ratios the prose computes
from two stored values (list them as unsourced), and bare integers.

    .venv/bin/python tests/readme_numbers.py [README.md docs/instructors.md]   # prints every problem (default: all)
"""

from __future__ import annotations

import bisect
import csv
import functools
import itertools
import json
import math
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from test_code_hygiene import _RATE, _TIME, measured_figures

ROOT = Path(__file__).resolve().parents[1]
CODE = (".py", ".sh", ".toml")  # a source file named as a block's file: its constants, of this very commit

MARKER = re.compile(r"^\s*<!--\s*numbers:\s*(?P<spec>.*?)\s*-->\s*$")
PER_ROW = "per row"  # a marker whose rows each name their own files (see the module docstring)
ROW_MARKER = re.compile(r"<!--\s*numbers:\s*(?P<spec>.*?)\s*-->")  # a row's own marker, inside the row
ROW_FILE = re.compile(r"`([\w.*{][^`\s]*\.(?:json|csv|md))`")  # a row's backticked results files
HEADING = re.compile(r"^#{1,6}\s")
FENCE = re.compile(r"^\s*(```|~~~)")
DATE = re.compile(r"(?<!\d)20\d\d-\d\d-\d\d(?!\d)")
COMMIT = re.compile(r"\bcommit:? `?([0-9a-f]{7,40})\b")
NOT_FIGURES = [  # blanked before figures are read (same length, so columns and lines stay put)
    r"`[^`\n]*`",  # code spans
    r"<!--.*?-->",  # comments
    r"\]\([^)]*\)",  # link targets
    r"https?://\S+",
    r"\b20\d\d-\d\d-\d\d(?:T[\d:.]+(?:[+-]\d\d:\d\d|Z)?)?",  # dates and times
    COMMIT.pattern,
    r"\b[0-9a-f]{12,}\b",  # hashes
    r"\b(?:Python|CC BY|Apache|version|v)\s?\d+(?:\.\d+)+",  # versions and licences
    r"\bissues? #?\d+|#\d+",
    r"\b\d+\s?%(?=\s(?:confidence|interval|CI)\b)",  # a confidence level
]
BLANK = re.compile("|".join(f"(?:{pattern})" for pattern in NOT_FIGURES))
_UNIT = rf"%|×|x(?![\w])|s/MB|{_RATE}|[KMG]B\b|{_TIME}(?![\w/-])"
TOKEN = re.compile(rf"(?P<sign>[+±−-]\s?)?(?P<num>\d+(?:,\d{{3}})*(?:\.\d+)?)(?:\s?(?P<unit>{_UNIT}))?")
COUNT = re.compile(r"(?<![\w.-])(\d+) of (?:the )?(\d+)\b")
JOINED = re.compile(r"^\s?(?:[–-]|/|to)\s?$")  # between the numbers of a range or a list sharing one unit
BOUND = re.compile(r"(?:[<>≤≥]|<=|>=)\s?~?\s?$")
HISTORY_RULES = {"history", "date", "seed number"}  # measured_figures' rules that are not measured figures


@dataclass
class Figure:
    """One measured figure as the text shows it."""

    line: int
    text: str
    value: float
    decimals: int
    unit: str = ""

    def candidates(self) -> list[tuple[float, float]]:
        """(value, tolerance) pairs a file value may match: the figure at its shown precision, in related units."""
        x, tol = abs(self.value), 0.5 * 10.0**-self.decimals + 1e-9
        unit, signed = self.unit.strip(), self.text[:1] in "+-−±"
        found = [] if unit == "%" and signed else [(x, tol)]  # a change in per cent is a ratio, never a count
        if unit == "%":
            found += [(x / 100, tol / 100), (1 + x / 100, tol / 100), (1 - x / 100, tol / 100)]
        elif unit.startswith("min"):
            found.append((x * 60, tol * 60))
        elif unit == "ms":
            found.append((x / 1000, tol / 1000))
        elif unit in ("s", "sec") or unit.startswith("second"):
            found += [(x * 1000, tol * 1000), (x / 60, tol / 60)]
        elif unit.startswith("h"):
            found += [(x * 3600, tol * 3600), (x * 60, tol * 60)]
        elif unit == "GB":
            found += [(x * 1000, tol * 1000), (x * 1024, tol * 1024), (x * 1e9, tol * 1e9), (x * 2**30, tol * 2**30)]
        elif unit == "MB":
            found += [(x / 1000, tol / 1000), (x * 1e6, tol * 1e6), (x * 2**20, tol * 2**20)]
        return found


def _plain(figure: str) -> str:
    return figure.replace(" ", "").replace("−", "-")


@dataclass
class Block:
    """A marked table or paragraph: lines `start`..`end` (1-based) and what its marker says."""

    marker_line: int
    start: int
    end: int
    lines: list[str]
    heading: str
    files: list[str] = field(default_factory=list)
    stale: str | None = None
    command: str | None = None
    unsourced: list[str] = field(default_factory=list)
    row: bool = False  # a row of a `per row` table: the files are the row's own


@dataclass
class Report:
    """What a check found: problems and what remains (stale blocks, unsourced figures), each "name:line: what"."""

    problems: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    blocks: int = 0
    figures: int = 0


def figures(line: str, number: int = 0) -> list[Figure]:
    """The measured figures of one line of Markdown (see the module docstring for what counts)."""
    text = BLANK.sub(lambda match: " " * len(match.group()), line)
    tokens = []
    for match in TOKEN.finditer(text):
        sign, num, unit = match.group("sign") or "", match.group("num"), match.group("unit") or ""
        start, end = match.start(), match.end()
        before = text[start - 1] if start else " "
        if sign == "-" and before.isdigit():  # "12-21 s": a range, not a negative number
            sign, start, before = "", match.start("num"), "-"
        after = text[end : end + 2] or " "
        if before.isalnum() or before in "._@/:#$^":
            continue  # part of a name, a version, a path, a ratio of constants ("500/50")
        if (after[:1].isalnum() or after[:1] in "_²") or re.match(r"[./]\d", after) or re.match(r"-[A-Za-z]", after):
            continue  # "1.5B", "2.13.0", "2-core", "1,500-token"
        if before == "×":
            unit = "×"
        if BOUND.search(text[:start]):
            continue  # a bound or a target, not a measurement
        tokens.append([start, end, sign, num, unit])
    for i in range(len(tokens) - 2, -1, -1):  # a range or a list shares its last unit
        if not tokens[i][4] and tokens[i + 1][4] and JOINED.match(text[tokens[i][1] : tokens[i + 1][0]]):
            tokens[i][4] = tokens[i + 1][4]
    counted = {m.start(g) for m in COUNT.finditer(text) for g in (1, 2)}
    found = []
    for start, _end, sign, num, unit in tokens:
        decimals = len(num.partition(".")[2])
        if decimals or unit or start in counted or start + len(sign) in counted:
            value = float(num.replace(",", "")) * (-1 if sign in ("-", "−") else 1)
            unit = unit.strip()
            shown = sign.strip() + num + ("" if unit in ("", "%", "×", "x") else " ") + unit
            found.append(Figure(number, shown, value, decimals, unit))
    return found


def parse_marker(spec: str) -> tuple[list[str], str | None, str | None, list[str]]:
    """(files, stale reason, regenerate command, unsourced figures) of a marker's text."""
    files, stale, command, unsourced = [], None, None, []
    for part in (part.strip() for part in spec.split(";")):
        if part.startswith("unsourced"):
            unsourced += [name for name in re.split(r",\s+", part[len("unsourced") :].lstrip(": ")) if name.strip()]
        elif part.startswith("stale"):
            stale = part[len("stale") :].lstrip(":, ").strip() or "stale"
        elif part.startswith("regenerate with"):
            command = part[len("regenerate with") :].lstrip(": ").strip()
        elif part:
            files += [name.strip() for name in part.split(",") if name.strip()]
    return files, stale, command, unsourced


def scan(text: str, root: Path = ROOT) -> tuple[list[Block], list[tuple[int, str]], list[tuple[int, str]]]:
    """The marked blocks (a `per row` table's rows each one), the unmarked prose lines (number, line) and malformed
    markers (number, why)."""
    lines = text.splitlines()
    blocks, unmarked, bad = [], [], []
    heading, fenced, i = "", False, 0
    while i < len(lines):
        line = lines[i]
        if FENCE.match(line):
            fenced = not fenced
        elif fenced:
            pass
        elif HEADING.match(line):
            heading = line
            unmarked.append((i + 1, line))
        elif match := MARKER.match(line):
            start = i + 1
            while start < len(lines) and not lines[start].strip():
                start += 1
            if start == len(lines) or HEADING.match(lines[start]) or FENCE.match(lines[start]):
                bad.append((i + 1, "the marker is followed by no table or paragraph"))
                i += 1
                continue
            end = start
            while end + 1 < len(lines) and lines[end + 1].strip():
                end += 1
            if match.group("spec").strip().lower() == PER_ROW:
                blocks += [row_block(lines, number, heading, root) for number in range(start, end + 1)]
                i = end + 1
                continue
            files, stale, command, unsourced = parse_marker(match.group("spec"))
            if not files and not stale and not unsourced:
                bad.append((i + 1, "the marker names no results file and says neither `stale` nor `unsourced`"))
            if stale and not command:
                bad.append((i + 1, "a stale block must say `regenerate with: <command>`"))
            block = Block(i + 1, start + 1, end + 1, lines[start : end + 1], heading, files, stale, command, unsourced)
            blocks.append(block)
            i = end + 1
            continue
        else:
            unmarked.append((i + 1, line))
        i += 1
    return blocks, unmarked, bad


def row_files(row: str, root: Path = ROOT) -> list[str]:
    """The results files a row names in backticks: a path from the root, or a name in bench/results/; a
    `*` or `{a,b}` in a name stands for every file it matches, and an ending alone (`_answers.csv`, `.csv`) for
    that ending of each JSON file named before it, where there is one (a page under docs/ or the README is no
    results file)."""
    found: list[str] = []
    for name in ROW_FILE.findall(row):
        if name[0] in "_.":
            stems = [file.removesuffix(".json") for file in found if file.endswith(".json")]
            endings = [stem + name for stem in stems if (root / f"{stem}{name}").is_file()]
            found += [file for file in endings if file not in found]
            continue
        name = name if "/" in name else f"bench/results/{name}"
        if name.startswith("docs/") or name == "README.md":
            continue
        head, brace, rest = name.partition("{")
        options, _, tail = rest.partition("}")
        for each in [head + option + tail for option in options.split(",")] if brace else [name]:
            matched = sorted(str(path.relative_to(root)) for path in root.glob(each)) if "*" in each else [each]
            found += [file for file in matched if file not in found]
    return found


def row_block(lines: list[str], index: int, heading: str, root: Path = ROOT) -> Block:
    """Row `index` (0-based) of a `per row` table as a block of one line: what its own marker (a
    `<!-- numbers: ... -->` inside the row) says, the results files it names in backticks unless that marker names
    files or says `stale` (then no file holds the row's figures)."""
    row = lines[index]
    own = ROW_MARKER.search(row)
    files, stale, command, unsourced = parse_marker(own.group("spec")) if own else ([], None, None, [])
    files = files or ([] if stale else row_files(row, root))
    return Block(index + 1, index + 1, index + 1, [row], heading, files, stale, command, unsourced, row=True)


def _numbers_in(text: str) -> list[float]:
    return [float(m.replace(",", "")) for m in re.findall(r"-?\d+(?:,\d{3})*(?:\.\d+)?(?:[eE][+-]?\d+)?", text)]


def _walk(value: object) -> list[float]:
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, (int, float)):
        return [float(value)] if math.isfinite(value) else []
    if isinstance(value, str):
        return _numbers_in(value)
    if isinstance(value, dict):  # keys too: a table keyed by a size or a thread count
        return [n for key, item in value.items() for n in (*_numbers_in(str(key)), *_walk(item))]
    return [n for item in value for n in _walk(item)] if isinstance(value, list) else []


def paired_differences(path: Path) -> list[float]:
    """Of a per-question CSV: each pair of set-ups' mean F1 difference and two-sided p, per corpus (else nothing)."""
    import pandas as pd

    from helpers.evaluation.bootstrap import paired_bootstrap

    rows = pd.read_csv(path)
    setup = next((column for column in ("configuration", "set-up") if column in rows), None)
    if setup is None or not {"corpus", "id", "f1"} <= set(rows.columns):
        return []
    rows = rows[rows["kind"] == "answerable"] if "kind" in rows else rows
    found = []
    for _corpus, group in rows.groupby("corpus", sort=False):
        scores = {name: part.set_index("id")["f1"] for name, part in group.groupby(setup, sort=False)}
        for below, above in itertools.combinations(list(dict.fromkeys(group[setup])), 2):
            base = scores[below]
            result = paired_bootstrap(base.to_numpy(), scores[above].reindex(base.index).to_numpy(), seed=0)
            found += [result.mean_diff, result.p_two_sided]
    return found


@functools.cache
def file_numbers(path: Path) -> list[float]:
    """Every number in a results file (JSON walked recursively, CSV cells and pairs, Markdown), as absolute values."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        found = _walk(json.loads(text))
    elif path.suffix == ".csv":
        found = [n for row in csv.reader(text.splitlines()) for cell in row for n in _numbers_in(cell)]
        found += paired_differences(path)
    else:
        found = _numbers_in(text)
    return sorted(abs(n) for n in found if math.isfinite(n))


def provenance(path: Path) -> tuple[set[str], set[str]]:
    """The dates (YYYY-MM-DD) and commits a results file carries (a CSV or Markdown file: its run's JSON too)."""
    dates, commits = set(), set()
    if path.suffix == ".json":
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict):
            dates |= set(DATE.findall(str(data.get("date", ""))))
            commits |= {str(data["commit"])} if data.get("commit") not in (None, "", "?") else set()
        return dates, commits
    text = path.read_text(encoding="utf-8")
    dates |= set(DATE.findall(text)) if path.suffix == ".md" else set()
    commits |= set(COMMIT.findall(text)) if path.suffix == ".md" else set()
    stem = path.stem  # realworld_final_answers.csv: realworld_final.json wrote it
    while stem and not (path.parent / f"{stem}.json").exists():
        stem = stem.rpartition("_")[0]
    if stem:
        more = provenance(path.parent / f"{stem}.json")
        dates, commits = dates | more[0], commits | more[1]
    return dates, commits


def matches(figure: Figure, numbers: list[float]) -> bool:
    """Whether a number of the (sorted) list equals the figure at its shown precision."""
    for value, tol in figure.candidates():
        i = bisect.bisect_left(numbers, value - tol)
        if i < len(numbers) and numbers[i] <= value + tol:
            return True
    return False


def check(text: str, name: str = "README.md", root: Path = ROOT) -> Report:
    """Check one Markdown text: unmarked figures, figures that match no number of their files, provenance."""
    report = Report()
    blocks, unmarked, bad = scan(text, root)
    report.problems += [f"{name}:{line}: {why}" for line, why in bad]
    for number, line in unmarked:
        found = figures(line, number)
        flagged = [rule for rule in measured_figures(BLANK.sub(" ", line)) if rule not in HISTORY_RULES]
        if found or flagged:
            shown = ", ".join(f.text for f in found) or ", ".join(flagged)
            report.problems.append(f"{name}:{number}: measured figures outside a marked block: {shown}")
    for block in blocks:
        report.blocks += 1
        where = f"{name}:{block.start}-{block.end} ({block.heading.lstrip('# ').strip()})"
        found = [figure for offset, line in enumerate(block.lines) for figure in figures(line, block.start + offset)]
        unsourced = {_plain(figure) for figure in block.unsourced}
        report.problems += [
            f"{name}:{block.marker_line}: unsourced {figure} is no figure of its block"
            for figure in block.unsourced
            if _plain(figure) not in {_plain(f.text) for f in found}
        ]
        listed = dict.fromkeys(
            f"{name}:{f.line}: {f.text}: in no results file" for f in found if _plain(f.text) in unsourced
        )
        report.stale += list(listed)
        missing = [file for file in block.files if not (root / file).is_file()]
        report.problems += [f"{name}:{block.marker_line}: no results file {file}" for file in missing]
        paths = [root / file for file in block.files if file not in missing]
        measured = [path for path in paths if path.suffix not in CODE]
        gaps = provenance_problems(block, measured) if measured else []
        if block.stale:
            also = f" (also: {'; '.join(gaps)})" if gaps else ""
            report.stale.append(f"{where}: stale: {block.stale}; regenerate with: {block.command}{also}")
        else:
            report.problems += [f"{name}:{block.marker_line}: {gap}" for gap in gaps]
        if block.row and block.stale and not block.command:
            report.problems.append(f"{name}:{block.start}: a stale row must say `regenerate with: <command>`")
        if not paths:
            report.problems += [
                f"{name}:{f.line}: {f.text} is in a {'row' if block.row else 'block'} that names no results file"
                for f in found
                if not block.files and not block.stale and _plain(f.text) not in unsourced
            ]
            continue
        numbers = sorted(n for path in paths for n in file_numbers(path))
        for figure in found:
            if _plain(figure.text) in unsourced:
                continue
            report.figures += 1
            if not matches(figure, numbers):
                report.problems.append(f"{name}:{figure.line}: {figure.text} is in none of {', '.join(block.files)}")
    return report


def provenance_problems(block: Block, paths: list[Path]) -> list[str]:
    """A block without a date or a commit (in itself, its heading or every file), or naming a date no file has."""
    said = "\n".join([block.heading, *block.lines])
    each = [provenance(path) for path in paths]
    file_dates = set().union(*(dates for dates, _ in each))
    problems = []
    if not DATE.search(said) and not all(dates for dates, _ in each):
        problems.append("no date in the block, its heading or every file it names")
    if not COMMIT.search(said) and not all(commits for _, commits in each):
        problems.append("no commit in the block, its heading or every file it names")
    named = set(DATE.findall(said))
    if named and file_dates and not named & file_dates:
        problems.append(f"it names {', '.join(sorted(named))}, its files are of {', '.join(sorted(file_dates))}")
    return problems


def pages(root: Path = ROOT) -> list[str]:
    """The pages whose figures are checked: README.md and every docs/*.md there is (paths from the root)."""
    found = [root / "README.md", *sorted((root / "docs").glob("*.md"))]
    return [str(path.relative_to(root)) for path in found if path.is_file()]


def main(argv: list[str]) -> int:
    """Print the problems and the stale blocks of each file named (default: every page)."""
    failed = 0
    for name in argv or pages():
        report = check((ROOT / name).read_text(encoding="utf-8"), name)
        print(f"{name}: {report.blocks} marked blocks, {report.figures} figures checked against their files")
        print("\n".join(report.problems) or "no problems")
        print("stale or unsourced:\n  " + "\n  ".join(report.stale) if report.stale else "nothing stale")
        failed += len(report.problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
