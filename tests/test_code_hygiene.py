"""Comments say what the code does and why; measurements and history live in `docs/decisions.md`.

Two rules, checked on the source:
- nothing in `helpers/`, `bench/` or `notebooks/` cites a source write-up by its file number ("seed 00N"):
  `docs/lineage.md` names the five systems, and the code uses those names;
- no comment or docstring in `helpers/` holds a measured figure (a speed-up, a timing, a rate, a score, a
  before → after), an issue number, a date or a "was …" of history. Constants described in words pass
  ("384-d vectors", "top 4", "k 60", "a 1,500-token budget", "2 × `size`"); `bench/` states its budgets in
  seconds, so there only the history rules apply.
What it leaves out: Markdown documentation (the README and `docs/` are where the numbers belong) and, for
measured figures, strings the code prints (the seed-number rule reads every line).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SEED_NUMBER = re.compile(r"\bseeds? 00\d", re.IGNORECASE)

_NUM = r"\d(?:[\d,]*\d)?(?:\.\d+)?"  # 3, 1,631, 0.674
_TIME = r"(?:ms|s|sec|min|minutes?|seconds?|hours?|h)"
_RATE = r"(?:chunks|tokens|points|questions|texts|GFLOP)/s"
_METRIC = r"(?:recall(?:@\d+)?|F1|MRR|nDCG|EM|accuracy|hit@\d+)"
_VERB = r"(?:scored|rose|fell|dropped|took|cut|kept|raised|lowered|measured)"
MEASURED = [
    ("speed-up", rf"{_NUM}(?:[x×]|-fold)(?!\w)|×\s?\d+\.\d|\d\s?(?:times|x) (?:faster|slower)\b"),
    ("timing", rf"(?<![\w.]){_NUM}\s?{_TIME}(?![\w/])"),
    ("rate", rf"{_NUM}\s?{_RATE}\b|{_NUM}\s?(?:ms|s) (?:per|a|each)\b"),
    ("size", rf"~\s?{_NUM}\s?(?:[KMG]B|bytes)\b"),
    ("score", rf"(?<![\w.])\d\.\d{{3,}}\b|\b{_METRIC} (?:of )?\d?\.\d\d"),
    ("before → after", rf"{_NUM}\s?%?\s?(?:->|→)\s?{_NUM}"),
    ("result", rf"\b{_VERB}\b[^;:()]{{0,30}}?(?<![\w.])(?:{_NUM}\s?%|\d*\.\d+|\d+ \w+ (?:where|vs)\b)"),
    ("count", r"(?<![\w.-])\d+ of (?:the )?\d+\b"),
    ("history", r"\bwas \d|\(was\b|\bwas the default\b|\bissues? #?\d+|\bcommit [0-9a-f]{7,}\b"),
    ("date", r"\b20\d\d-\d\d-\d\d\b"),
    ("seed number", SEED_NUMBER.pattern),
]
RULES = [(name, re.compile(pattern, re.IGNORECASE if name == "seed number" else 0)) for name, pattern in MEASURED]


def measured_figures(text: str) -> list[str]:
    """The names of the rules a comment or docstring line breaks (empty: it says what the code does)."""
    return [name for name, pattern in RULES if pattern.search(text)]


def comments_and_docstrings(source: str) -> list[tuple[int, str]]:
    """(line, text) of every comment and every line of every docstring of a Python source."""
    found = [
        (tok.start[0], tok.string)
        for tok in tokenize.generate_tokens(io.StringIO(source).readline)
        if tok.type == tokenize.COMMENT
    ]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            value = first.value if isinstance(first, ast.Expr) else None
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                found += [(first.lineno + i, line) for i, line in enumerate(value.value.splitlines())]
    return found


def offences(paths: list[Path], only: set[str] | None = None) -> list[str]:
    """Every comment or docstring line that breaks a rule (of `only`, if given), as "path:line: rules: text"."""
    bad = []
    for path in paths:
        for line, text in comments_and_docstrings(path.read_text(encoding="utf-8")):
            rules = [rule for rule in measured_figures(text) if only is None or rule in only]
            if rules:
                bad.append(f"{path.relative_to(ROOT)}:{line}: {', '.join(rules)}: {text.strip()}")
    return bad


HELPERS_PY = sorted((ROOT / "helpers").rglob("*.py"))


@pytest.mark.parametrize(
    "text",
    [
        "# made it 3.2x faster",
        "# ran 3 times slower",
        "# spinning threads made torch 7-36× slower",
        "# the judge takes ~13 s each",
        "# MiniLM in ONNX Runtime: 136 vs 96-109 chunks/s",
        '"""Answer in context 0.674 -> 0.667 on the course."""',
        "# recall@5 0.93 on dev",
        "# candidates each side returns (was 30)",
        "# the rule (issue 17)",
        "# measured 2026-11-23",
        "# the TUM chatbot (seed 001: 0.6)",
        "# 128 cut 45% of course chunks",
    ],
)
def test_the_checker_catches_a_measured_figure(text: str) -> None:
    assert measured_figures(text), text


@pytest.mark.parametrize(
    "text",
    [
        "# 384-d vectors, rows of length 1",
        "# fuse the top 4 of each list with k 60",
        "# the most the passages may take: a 1,500-token budget (cl100k tokens)",
        "# a text up to 2 × `size` is kept whole",
        "# unless it is more than `max_slowdown` times slower",
        "# blocks in the top or bottom 6% of the page are running headers",
        "# the 95 % interval from 10,000 resamples",
        "# Qwen2.5-Coder-0.5B writes 3 paraphrases; search with all 4",
        "# sha256 of a file, read in 1 MB blocks",
        "# the UChicago assistant's threshold of 0.20; the TUM chatbot's 0.30",
    ],
)
def test_the_checker_lets_constants_in_words_pass(text: str) -> None:
    assert not measured_figures(text), measured_figures(text)


def test_no_source_write_up_is_cited_by_its_file_number() -> None:
    files = [*HELPERS_PY, *(ROOT / "bench").rglob("*.py"), *(ROOT / "notebooks").glob("*.ipynb"),
             *(ROOT / "notebooks" / "appendix").glob("*.ipynb")]
    cited = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in files
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if SEED_NUMBER.search(line)
    ]
    assert not cited, "name the system (docs/lineage.md), not its seed number:\n" + "\n".join(cited)


def test_no_comment_in_helpers_holds_a_measured_figure() -> None:
    bad = offences(HELPERS_PY)
    assert not bad, "move the measurement to docs/decisions.md, keep the reason:\n" + "\n".join(bad)


def test_no_comment_in_bench_holds_history() -> None:
    """Benchmarks state their budgets in seconds, so only history is checked there: issues, dates, "was"."""
    bad = offences(sorted((ROOT / "bench").rglob("*.py")), only={"history", "date", "seed number"})
    assert not bad, "history goes to docs/decisions.md:\n" + "\n".join(bad)
