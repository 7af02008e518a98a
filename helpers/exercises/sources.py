"""The self-checks of notebook 11's exercises: a planner rule, OCR's lost words, a stricter filter, the list field.

Each recomputes the answer, recognises the usual slips, and never prints an expected value.
What it leaves out: which words break first and why the LLM does better or worse: the student answers in prose.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from helpers.exercises.base import (
    NotYet,
    as_count,
    function_problem,
    not_yet,
    require,
    require_answer,
    result_of,
    right,
    self_check,
)
from helpers.parsing import ocr
from helpers.sources import ACTIONS, KeywordPlanner
from helpers.sources.aggregate import FIELDS
from helpers.sources.scope import list_field
from helpers.testset.generate import Generated

Record = Mapping[str, Any]
SCHEDULE_FIELDS = tuple(name.lower() for name in FIELDS)
OCR_DPI = 72  # the exercise's resolution, well below the 300 dpi Tesseract wants
MIN_WORDS = 6

# ----------------------------------------------------------------------------------------------- a planner rule


def _plans(planner: Any, records: Sequence[Record], where: str = "") -> dict[str, frozenset[str]]:
    """The planner's plan of every record, by id; what is wrong with one of them (after `where`) ends the check."""
    plans = {}
    for record in records:
        got = result_of(planner.plan, record["question"], before=where)
        if not isinstance(got, set | frozenset) or not all(action in ACTIONS for action in got):
            raise NotYet(f"{where}plan() should return a set of actions ({', '.join(ACTIONS)}), got {got!r} "
                         f"for {record['question']!r}")  # fmt: skip
        plans[str(record["id"])] = frozenset(got)
    return plans


def _accuracy(plans: Mapping[str, frozenset[str]], records: Sequence[Record]) -> float:
    """Share of the records whose plan equals the labelled set of actions."""
    return sum(plans[str(r["id"])] == frozenset(r["actions"]) for r in records) / max(len(records), 1)


def _about_me_only(record: Record) -> bool:
    """Whether the labelled plan needs the student's own sources and not the program's documents."""
    actions = frozenset(record["actions"])
    return "search_kb" not in actions and bool(actions & {"search_student_docs", "use_profile"})


@self_check
def check_me_only_planner(planner: object, routing: Sequence[Record]) -> bool:
    """Right when `planner` beats `KeywordPlanner` on dev, breaks none, and skips search_kb for questions on me only."""
    require_answer(planner)
    if isinstance(planner, type):
        return not_yet("pass an instance of your planner (YourPlanner()), not the class itself")
    if not callable(getattr(planner, "plan", None)):
        return not_yet(f"a planner has a plan(question) method, like KeywordPlanner; got a {type(planner).__name__}")
    dev, test = ([r for r in routing if r["split"] == split] for split in ("dev", "test"))
    plans = _plans(planner, dev)
    keyword = _plans(KeywordPlanner(), dev)
    labels = {str(r["id"]): frozenset(r["actions"]) for r in dev}
    broken = [i for i in labels if keyword[i] == labels[i] != plans[i]]
    if broken:
        return not_yet(f"{len(broken)} dev question(s) the keyword planner routed right are wrong now: narrow the "
                       "rule (a question about the program still needs search_kb)")  # fmt: skip
    about_me = [str(r["id"]) for r in dev if _about_me_only(r) and "search_kb" in keyword[str(r["id"])]]
    if all("search_kb" in plans[i] for i in about_me):
        return not_yet("every question about the student alone still searches the knowledge base: drop search_kb "
                       "when a question is about me and my documents only")  # fmt: skip
    fixed = [i for i in labels if plans[i] == labels[i] != keyword[i]]
    if not fixed:
        return not_yet("some plans changed, but none equals its label yet: compare each plan with the label "
                       "(\"What was my GPA?\" needs only search_student_docs)")  # fmt: skip
    test_plans = _plans(planner, test, where="on a held-out test question: ")
    test_keyword = _plans(KeywordPlanner(), test)
    dev_change = f"{_accuracy(keyword, dev):.3f} → {_accuracy(plans, dev):.3f}"
    test_change = f"{_accuracy(test_keyword, test):.3f} → {_accuracy(test_plans, test):.3f}"
    return right(f"dev accuracy {dev_change} ({len(fixed)} more routed right, none broken); "
                 f"held-out test {test_change}.")  # fmt: skip


# ----------------------------------------------------------------------------------------------- OCR's lost words


def lost_words(source_text: str, ocr_text: str) -> list[str]:
    """The source's words (split on white space) that are not among the OCR's words, in order, repeats kept."""
    read = set(ocr_text.split())
    return [word for word in source_text.split() if word not in read]


def _folded_words(text: str) -> str:
    """Lower case, punctuation stripped from each word's ends."""
    return " ".join(word.strip(".,;:!?()\"'").lower() for word in text.split())


@self_check
def check_lost_words(answer: object, handbook: str | Path, page: int, source_text: str, dpi: int = OCR_DPI) -> bool:
    """Right when `answer` lists the words of `source_text` missing from the OCR of `page` at `dpi`."""
    if not ocr.ocr_available():
        print("OCR is not available on this machine (no Tesseract language data): nothing to check.")
        return False
    require_answer(answer)
    if as_count(answer) is not None:
        return not_yet("a number: the exercise asks for the lost words themselves (a list of str)")
    if isinstance(answer, str) or not isinstance(answer, Sequence | set):
        return not_yet(f"the answer should be a list of words, got a {type(answer).__name__}")
    given, ocr_text = Counter(map(str, answer)), ocr.ocr_page_text(handbook, page, dpi=dpi)
    expected = Counter(lost_words(source_text, ocr_text))
    if given == expected:
        return right(f"{sum(given.values())} source words are lost at {dpi} dpi; look at what they share.")
    if given == Counter(lost_words(ocr_text, source_text)):
        return not_yet("those are words the OCR wrote that the source does not have; the exercise asks for the "
                       "source's words that the OCR lost")  # fmt: skip
    if set(given) == set(expected):
        return not_yet("the right words, but repeats count: keep every lost occurrence, as often as the source has it")
    if given == Counter(lost_words(_folded_words(source_text), _folded_words(ocr_text))):
        return not_yet("compare the words exactly as split() gives them: case and punctuation included")
    if not given:
        return not_yet(f"nothing lost? At {dpi} dpi some words break: read the page with ocr_page_text(…, dpi={dpi})")
    extra, missing = given - expected, expected - given
    parts = [f"{sum(extra.values())} listed word(s) were read fine" if extra else "",
             f"{sum(missing.values())} lost word(s) missing" if missing else ""]  # fmt: skip
    return not_yet(", ".join(p for p in parts if p) + f": compare source_text.split() with the {dpi}-dpi words")


# ----------------------------------------------------------------------------------------------- a stricter filter


def pairs_left(pairs: Sequence[Generated], min_words: int = MIN_WORDS, kept_only: bool = True) -> int:
    """How many (kept) pairs have a question of at least `min_words` words."""
    return sum((p.kept or not kept_only) and len(p.question.split()) >= min_words for p in pairs)


@self_check
def check_pairs_left(answer: object, pairs: Sequence[Generated], min_words: int = MIN_WORDS) -> bool:
    """Right when `answer` is how many kept pairs (or which) also pass "at least `min_words` words"."""
    require_answer(answer)
    listed = isinstance(answer, list | tuple)
    count = len(answer) if listed else as_count(answer)  # type: ignore[arg-type]
    if count is None:
        return not_yet(f"the answer should be a count of pairs (or the list of them), got a {type(answer).__name__}")
    expected, kept = pairs_left(pairs, min_words), sum(p.kept for p in pairs)
    if count == expected:
        return right(f"{count} of the {kept} kept pairs have questions of at least {min_words} words.")
    if count == pairs_left(pairs, min_words, kept_only=False):
        return not_yet("that counts the pairs the filters had already rejected too: start from the kept ones")
    if count == pairs_left(pairs, min_words + 1):
        return not_yet(f"only questions *shorter* than {min_words} words go: one of exactly {min_words} words stays")
    if count == kept - expected != expected:
        return not_yet("that counts the pairs the new rule removes; the exercise asks how many are left")
    return not_yet(f"not the count: count the kept pairs whose question has at least {min_words} words "
                   "(question.split())")  # fmt: skip


# ----------------------------------------------------------------------------------------------- the list field


def _hits(picks: Mapping[str, str | None], records: Sequence[Record], split: str) -> str:
    """How many picks equal the labelled field on one split, as "right/total"."""
    rows = [r for r in records if r["split"] == split]
    return f"{sum(picks[str(r['id'])] == r['list']['field'] for r in rows)}/{len(rows)}"


@self_check
def check_list_field(function: Callable[[str], str] | None, routing: Sequence[Record]) -> bool:
    """Right when `function(question)` names a field of the class schedule for every labelled list question."""
    require(function_problem(function, "llm_list_field"))
    records = [r for r in routing if r.get("list")]
    picks: dict[str, str | None] = {}
    for record in records:
        got = result_of(function, record["question"])  # type: ignore[arg-type]
        if not isinstance(got, str):
            return not_yet(f"return the field's name (a str), got a {type(got).__name__} for {record['question']!r}")
        if got.strip().lower() not in SCHEDULE_FIELDS:
            return not_yet(f"{got!r} (for {record['question']!r}) is not a field of the class schedule; "
                           f"the fields: {', '.join(SCHEDULE_FIELDS)}")  # fmt: skip
        picks[str(record["id"])] = got.strip().lower()
    if len(set(picks.values())) == 1 and len({r["list"]["field"] for r in records}) > 1:
        return not_yet(f"it picks {next(iter(picks.values()))!r} for every question, but they ask for different "
                       "fields: does the model see the question?")  # fmt: skip
    regex = {str(r["id"]): list_field(r["question"]) for r in records}
    scores = ", ".join(f"{split} {_hits(picks, records, split)} (regular expression {_hits(regex, records, split)})"
                       for split in ("dev", "test"))  # fmt: skip
    return right(f"a schedule field for each of the {len(records)} list questions; the labelled one on "
                 f"{scores}.")  # fmt: skip
