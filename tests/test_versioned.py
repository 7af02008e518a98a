"""The versioned real-document set checks itself: manifest and questions always, answers once the documents are rebuilt.

The set is `course_data/versioned/` (`helpers.corpus.pinned.VERSIONED`): the same kind of document of several
universities for several academic years, each file tagged in the manifest with the academic year and term it is
about, and questions whose answer depends on the year. A question that names no year means the newest year the
set holds for that university (the rule `course_data/versioned/README.md` states).
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from functools import cache

import pytest

from helpers.config import get_settings
from helpers.corpus import CATEGORIES
from helpers.corpus.attacks import read_jsonl
from helpers.corpus.pinned import VERSIONED, rebuild
from helpers.parsing import parse

QUESTIONS = VERSIONED.load()
RECORDS = read_jsonl(VERSIONED.questions_path)
NAMING = ("explicit", "relative", "none")
NEEDS_DOCS = pytest.mark.skipif(
    not VERSIONED.available(get_settings()),
    reason=f"versioned documents not rebuilt: run {VERSIONED.rebuild_command} (see course_data/versioned/README.md)",
)


def _fold(text: str) -> str:
    """Whitespace collapsed and case folded, the comparison the gold format promises."""
    return " ".join(text.split()).casefold()


@cache
def parsed_text(doc: str) -> str:
    """The folded text the kit's parser extracts from one rebuilt document."""
    folder = VERSIONED.docs_dir(get_settings())
    return _fold(" ".join(d.text for d in parse(folder / doc, root=folder)))


def _files_by_doc() -> dict[str, dict]:
    """Each manifest file by its rebuilt path, with the university of its repository."""
    return {
        item["doc"]: {**item, "university": entry["university"]}
        for entry in VERSIONED.manifest()["repositories"]
        for item in entry["files"]
    }


def _newest_year(doc: str) -> str:
    """The newest academic year the manifest holds for the university of one document ("2025-26" > "2024-25")."""
    files = _files_by_doc()
    university = files[doc]["university"]
    return max(item["academic_year"] for item in files.values() if item["university"] == university)


def test_manifest_pins_and_tags_every_file() -> None:
    manifest = VERSIONED.manifest()
    assert manifest["docs_dir"] == ".kit_data/versioned/docs"
    for entry in manifest["repositories"]:
        assert re.fullmatch(r"[0-9a-f]{40}", entry["commit"]), f"{entry['repo']}: commit must be a full sha"
        assert entry["licence"] and entry["university"], entry["repo"]
        for item in entry["files"]:
            assert item["doc"].startswith(entry["repo"].split("/")[1] + "/"), item["doc"]
            assert re.fullmatch(r"[0-9a-f]{64}", item["sha256"]) and item["size"] > 0
            assert re.fullmatch(r"20\d\d-\d\d", item["academic_year"]), item
            assert int(item["academic_year"][5:]) == (int(item["academic_year"][2:4]) + 1) % 100, item
            assert re.search(r"20\d\d", item["term"]), item
    docs = [item["doc"] for item in VERSIONED.files()]
    assert len(docs) == len(set(docs)), "two files rebuild to the same path"


def test_at_least_two_universities_have_four_academic_years() -> None:
    years = defaultdict(set)
    for item in _files_by_doc().values():
        years[item["university"]].add(item["academic_year"])
    assert sum(len(found) >= 4 for found in years.values()) >= 2, {u: sorted(y) for u, y in years.items()}


def test_questions_are_well_formed() -> None:
    assert len(QUESTIONS) >= 80
    ids = [q.id for q in QUESTIONS]
    assert len(set(ids)) == len(ids) and ids == sorted(ids), "ids must be unique and sorted"
    assert all(re.fullmatch(r"vs-\d{3}", i) for i in ids)
    assert {q.category for q in QUESTIONS} <= set(CATEGORIES)
    gold = {"id", "question", "answer", "answer_variants", "category", "extractive", "evidence", "history", "notes"}
    tags = {"split", "university", "kind", "academic_year", "term", "names_year", "answer_changes_across_years"}
    assert all(set(record) == gold | tags for record in RECORDS), "fields differ from the gold format plus the tags"
    for q in QUESTIONS:
        assert q.answer and q.evidence and q.extractive, q.id
        assert q.extra["names_year"] in NAMING, q.id


def test_every_question_points_at_a_manifest_file_tagged_with_its_year() -> None:
    files = _files_by_doc()
    for q in QUESTIONS:
        docs = q.evidence_docs
        assert len(docs) == 1 and docs[0] in files, f"{q.id}: evidence document not in the manifest"
        item = files[docs[0]]
        assert (q.extra["academic_year"], q.extra["term"]) == (item["academic_year"], item["term"]), q.id


def test_the_year_is_named_only_where_it_says_so() -> None:
    for q in QUESTIONS:
        names_a_year = re.search(r"\b20\d\d\b", q.question) is not None
        assert names_a_year == (q.extra["names_year"] == "explicit"), f"{q.id}: {q.question}"
        if names_a_year:
            term_year = re.search(r"20\d\d", q.extra["term"]).group()
            assert term_year in q.question or q.extra["academic_year"] in q.question, q.id


def test_a_question_without_a_year_means_the_newest_one() -> None:
    unnamed = [q for q in QUESTIONS if q.extra["names_year"] != "explicit"]
    assert len(QUESTIONS) / 8 <= len(unnamed) <= len(QUESTIONS) / 4, len(unnamed)
    for q in unnamed:
        assert q.extra["academic_year"] == _newest_year(q.evidence_docs[0]), q.id


def test_most_answers_depend_on_the_year() -> None:
    changing = [r for r in RECORDS if r["answer_changes_across_years"]]
    assert len(changing) >= 0.9 * len(RECORDS)
    for university in {r["university"] for r in RECORDS}:
        years = Counter(r["academic_year"] for r in RECORDS if r["university"] == university)
        assert len(years) >= 3, (university, years)


def test_splits_are_balanced_by_university_and_naming() -> None:
    strata = Counter((r["university"], r["names_year"] == "explicit", r["split"]) for r in RECORDS)
    assert {r["split"] for r in RECORDS} == {"dev", "test"}
    for university, explicit in {(u, e) for u, e, _ in strata}:
        dev, test = strata[(university, explicit, "dev")], strata[(university, explicit, "test")]
        assert abs(dev - test) <= 1, (university, explicit, dev, test)


def test_rebuild_names_what_is_missing(tmp_path) -> None:
    problems = rebuild(tmp_path / "no-mirrors", tmp_path / "out", VERSIONED.manifest_path)
    assert len(problems) == len(VERSIONED.manifest()["repositories"])
    assert all("git clone https://github.com/" in p for p in problems)
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("*"))


def test_manifest_file_is_what_make_manifest_writes() -> None:
    manifest = VERSIONED.manifest()
    assert json.loads(VERSIONED.manifest_path.read_text(encoding="utf-8")) == manifest
    assert VERSIONED.manifest_path.read_text(encoding="utf-8") == json.dumps(manifest, indent=2) + "\n"


@NEEDS_DOCS
@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: q.id)
def test_answer_and_quotes_are_in_the_parsed_document(question) -> None:
    for evidence in question.evidence:
        text = parsed_text(evidence.doc)
        assert _fold(evidence.quote) in text, f"{question.id}: quote not in the parsed text of {evidence.doc}"
        assert _fold(question.answer) in text, f"{question.id}: answer not in the parsed text of {evidence.doc}"
