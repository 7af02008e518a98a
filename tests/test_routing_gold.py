"""The labelled routing questions check themselves: fields, splits, actions, and answers found in their evidence."""

from __future__ import annotations

import json
import re
from collections import Counter
from functools import cache

import pytest
from course_subset import parsed_text

from helpers.config import REPO_ROOT
from helpers.sources.aggregate import expected_values, schedule_rows
from helpers.sources.planner import ACTIONS
from helpers.sources.students import Profile

ROUTING = REPO_ROOT / "course_data" / "gold" / "routing.jsonl"
DOCS = REPO_ROOT / "course_data" / "docs"
DATA = REPO_ROOT / "course_data"  # "students/s01/cv.md" is relative to this folder
FIELDS = {"id", "split", "question", "student_id", "actions", "answer", "evidence", "notes"}
LINES = [json.loads(line) for line in ROUTING.read_text(encoding="utf-8").splitlines() if line.strip()]
IDS = [line.get("id", "?") for line in LINES]


def _fold(text: str) -> str:
    return " ".join(text.split()).lower()


@cache
def evidence_text(source: str) -> str:
    """Whitespace-normalised, lower-cased text of one evidence file.

    Program documents as the kit's parser extracts them; a student's .md files as written; a profile.json as
    its raw JSON plus the profile's own rendering for the prompt (`Profile.as_text`).
    """
    if source.startswith("students/"):
        path = DATA / source
        text = path.read_text(encoding="utf-8")
        if path.name == "profile.json":
            text += "\n" + Profile(**json.loads(text)).as_text()
        return _fold(text)
    return parsed_text(source).lower()


def _action_set(line: dict) -> str:
    return " + ".join(sorted(line["actions"]))


def test_every_line_has_the_fields_and_a_unique_id() -> None:
    assert LINES, "routing.jsonl is empty"
    for line in LINES:
        missing = FIELDS - set(line)
        assert not missing, f"{line.get('id')}: missing {sorted(missing)}"
        extra = set(line) - FIELDS - {"list"}
        assert not extra, f"{line['id']}: unknown fields {sorted(extra)}"
        assert re.fullmatch(r"rt-\d{2,}", line["id"]), line["id"]
        for key in ("question", "student_id", "answer", "notes"):
            assert isinstance(line[key], str), f"{line['id']}: {key} is not a string"
        assert line["question"].strip(), line["id"]
        assert isinstance(line["evidence"], list), line["id"]
    duplicates = [i for i, n in Counter(IDS).items() if n > 1]
    assert not duplicates, f"duplicate ids: {duplicates}"
    questions = Counter(_fold(line["question"]) for line in LINES)
    assert not [q for q, n in questions.items() if n > 1], "the same question twice"


def test_splits_are_dev_and_test_with_42_each_and_the_same_mix_of_labels() -> None:
    assert Counter(line["split"] for line in LINES) == {"dev": 42, "test": 42}
    dev = Counter(_action_set(line) for line in LINES if line["split"] == "dev")
    test = Counter(_action_set(line) for line in LINES if line["split"] == "test")
    assert dev == test, f"dev {dict(dev)} != test {dict(test)}"


def test_students_exist_and_each_split_uses_both() -> None:
    students = {p.parent.name for p in (DATA / "students").glob("*/profile.json")}
    for line in LINES:
        assert line["student_id"] in students, f"{line['id']}: unknown student {line['student_id']}"
    for split in ("dev", "test"):
        assert {line["student_id"] for line in LINES if line["split"] == split} == students, split


@pytest.mark.parametrize("line", LINES, ids=IDS)
def test_actions_are_valid_and_ask_followup_stands_alone(line: dict) -> None:
    actions = line["actions"]
    assert actions and isinstance(actions, list), line["id"]
    assert len(set(actions)) == len(actions), f"{line['id']}: repeated action"
    assert set(actions) <= set(ACTIONS), f"{line['id']}: unknown action in {actions}"
    if "ask_followup" in actions:
        assert actions == ["ask_followup"], f"{line['id']}: ask_followup must stand alone"
        assert line["answer"] == "" and line["evidence"] == [], f"{line['id']}: a follow-up has no answer"
    else:
        assert line["answer"].strip() and line["evidence"], f"{line['id']}: needs an answer and evidence"
    assert ("list" in line) == ("list_values" in actions), f"{line['id']}: 'list' goes with list_values only"


@pytest.mark.parametrize("line", [x for x in LINES if x["answer"]], ids=lambda x: x["id"])
def test_answer_occurs_in_its_evidence(line: dict) -> None:
    for source in line["evidence"]:
        if source.startswith("students/"):
            assert source.startswith(f"students/{line['student_id']}/"), f"{line['id']}: another student's {source}"
            assert (DATA / source).is_file(), f"{line['id']}: no file {source}"
        else:
            assert (DOCS / source).is_file(), f"{line['id']}: no document {source}"
    values = line["answer"].split(", ") if "list_values" in line["actions"] else [line["answer"]]
    texts = [evidence_text(source) for source in line["evidence"]]
    for value in values:
        assert any(_fold(value) in text for text in texts), f"{line['id']}: {value!r} not in {line['evidence']}"


@pytest.mark.parametrize("line", [x for x in LINES if x.get("list")], ids=lambda x: x["id"])
def test_list_spec_reproduces_the_answer_from_the_schedule(line: dict) -> None:
    rows = schedule_rows()
    spec = line["list"]
    assert set(spec) - {"count"} == {"field", "where"}, line["id"]
    keys = {key for row in rows for key in row}
    assert spec["field"] in keys and set(spec["where"]) <= keys, f"{line['id']}: not a payload key"
    values = expected_values(rows, spec["field"], spec["where"])
    assert values, f"{line['id']}: the spec matches no row"
    if spec.get("count"):  # "how many": the number of matching rows
        matching = [r for r in rows if expected_values([r], spec["field"], spec["where"])]
        assert str(len(matching)) == line["answer"], line["id"]
    else:
        assert ", ".join(values) == line["answer"], line["id"]
