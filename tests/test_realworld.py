"""The real-document set checks itself: manifest and questions always, quotes once the documents are rebuilt."""

from __future__ import annotations

import importlib.util
import json
import re
from collections import Counter
from functools import cache

import pytest

from helpers.config import get_settings
from helpers.corpus import CATEGORIES
from helpers.corpus.attacks import read_jsonl
from helpers.corpus.pinned import REALWORLD
from helpers.parsing import parse

QUESTIONS = REALWORLD.load()
NEEDS_DOCS = pytest.mark.skipif(
    not REALWORLD.available(get_settings()),
    reason="real documents not rebuilt: run .venv/bin/python course_data/realworld/rebuild.py (see its README)",
)


def _rebuild_module():
    """course_data/realworld/rebuild.py imported as a module (it is a script, not part of the package)."""
    spec = importlib.util.spec_from_file_location("realworld_rebuild", REALWORLD.folder / "rebuild.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _fold(text: str) -> str:
    """Whitespace collapsed and case folded, the comparison the format promises."""
    return " ".join(text.split()).casefold()


@cache
def parsed_text(doc: str) -> str:
    """The folded text the kit's parser extracts from one rebuilt document (as the pipeline parses it)."""
    folder = REALWORLD.docs_dir(get_settings())
    return _fold(" ".join(d.text for d in parse(folder / doc, root=folder)))


def test_manifest_pins_every_file() -> None:
    manifest = REALWORLD.manifest()
    repositories = manifest["repositories"]
    assert len(repositories) >= 2, "the set needs documents from at least two universities"
    for entry in repositories:
        assert re.fullmatch(r"[\w.-]+/[\w.-]+", entry["repo"])
        assert re.fullmatch(r"[0-9a-f]{40}", entry["commit"]), f"{entry['repo']}: commit must be a full sha"
        assert entry["licence"], f"{entry['repo']}: say what the licence is (or that there is none)"
        short = entry["repo"].split("/")[1]
        for item in entry["files"]:
            assert item["doc"].startswith(f"{short}/"), item["doc"]
            assert re.fullmatch(r"[0-9a-f]{64}", item["sha256"]) and item["size"] > 0
    docs = [item["doc"] for item in REALWORLD.files()]
    assert len(docs) == len(set(docs)), "two files rebuild to the same path"
    assert json.loads(REALWORLD.manifest_path.read_text(encoding="utf-8")) == manifest


def test_questions_are_well_formed_and_split() -> None:
    assert len(QUESTIONS) >= 120
    assert len({q.id for q in QUESTIONS}) == len(QUESTIONS), "duplicate ids"
    assert all(re.fullmatch(r"rw-\d{3}", q.id) for q in QUESTIONS)
    splits = Counter(q.split for q in QUESTIONS)
    assert set(splits) == {"dev", "test"} and min(splits.values()) >= 55, splits
    assert {q.category for q in QUESTIONS} <= set(CATEGORIES)
    lines = read_jsonl(REALWORLD.questions_path)
    keys = {"id", "question", "answer", "answer_variants", "category", "extractive", "evidence", "history", "notes"}
    assert all(set(record) == keys | {"split"} for record in lines), "fields differ from the gold format"


def test_evidence_names_manifest_documents_and_unanswerables_have_none() -> None:
    docs = {item["doc"] for item in REALWORLD.files()}
    for q in QUESTIONS:
        if q.category == "unanswerable":
            assert not q.evidence and q.answer == "unknown", q.id
            continue
        assert q.evidence and q.answer, q.id
        assert all(e.doc in docs for e in q.evidence), f"{q.id}: evidence document not in the manifest"
    assert sum(q.category == "unanswerable" for q in QUESTIONS) >= 8


def test_questions_spread_over_repositories_and_documents() -> None:
    per_doc = Counter(e.doc for q in QUESTIONS for e in q.evidence)
    per_repo = Counter(doc.split("/")[0] for doc in per_doc.elements())
    assert len(per_repo) == len(REALWORLD.manifest()["repositories"]), "every repository gets questions"
    assert len(per_doc) >= 20
    # the Webster catalog is 282 web pages in one file, so it may carry a few more
    assert max(per_doc.values()) <= 12, per_doc.most_common(3)


def test_rebuild_names_what_is_missing(tmp_path) -> None:
    rebuild = _rebuild_module()
    problems = rebuild.rebuild(tmp_path / "no-mirrors", tmp_path / "out")
    assert len(problems) == len(REALWORLD.manifest()["repositories"])
    assert all("git clone https://github.com/" in p for p in problems)
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("*"))


@NEEDS_DOCS
@pytest.mark.parametrize("question", [q for q in QUESTIONS if q.evidence], ids=lambda q: q.id)
def test_quote_is_in_parsed_document_and_answer_in_quote(question) -> None:
    for evidence in question.evidence:
        text = parsed_text(evidence.doc)
        assert _fold(evidence.quote) in text, f"{question.id}: quote not in the parsed text of {evidence.doc}"
        if question.extractive:
            answers = [question.answer, *question.answer_variants]
            assert any(_fold(a) in _fold(evidence.quote) or _fold(a) in text for a in answers), question.id
