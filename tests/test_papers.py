"""The paper collection checks itself: manifest and questions always, evidence once the PDFs are rebuilt.

The collection is its own set beside the real-document one (`course_data/papers/`, `helpers.corpus.pinned.PAPERS`);
what the two share is checked once, here with the same helpers as `test_realworld.py`.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from functools import cache

import pytest
from test_realworld import _fold

from helpers.config import get_settings
from helpers.corpus import CATEGORIES
from helpers.corpus.pinned import PAPERS, rebuild
from helpers.parsing import parse

QUESTIONS = PAPERS.load()
ANSWERABLE = [q for q in QUESTIONS if q.category != "unanswerable"]
FIELDS = {
    "id",
    "question",
    "answer",
    "answer_variants",
    "category",
    "extractive",
    "evidence",
    "history",
    "notes",
    "split",
}
NEEDS_PDFS = pytest.mark.skipif(
    not PAPERS.available(get_settings()),
    reason=f"paper collection not rebuilt: run {PAPERS.rebuild_command} (see course_data/papers/README.md)",
)


@cache
def paper_text(doc: str) -> str:
    """The folded text the kit's parser reads from one rebuilt PDF, all pages."""
    folder = PAPERS.docs_dir(get_settings())
    return _fold(" ".join(page.text for page in parse(folder / doc, root=folder)))


def test_manifest_pins_every_pdf_of_one_volume() -> None:
    manifest = PAPERS.manifest()
    assert manifest["format"] == "papers-manifest 1.0" and manifest["docs_dir"] == ".kit_data/papers/docs"
    for entry in manifest["repositories"]:
        assert re.fullmatch(r"[0-9a-f]{40}", entry["commit"]), entry["repo"]
        assert entry["licence"] and entry["collection"], entry["repo"]
    files = PAPERS.files()
    assert 150 <= len(files) <= 450, len(files)
    assert all(
        item["path"].endswith(".pdf") and item["doc"] == f"{item['repo'].split('/')[1]}/{item['path']}"
        for item in files
    )
    assert all(re.fullmatch(r"[0-9a-f]{64}", item["sha256"]) and item["size"] > 0 for item in files)
    assert len({item["doc"] for item in files}) == len(files), "two PDFs rebuild to the same path"
    assert json.loads(PAPERS.manifest_path.read_text(encoding="utf-8")) == manifest


def test_questions_follow_the_gold_format_and_split_in_halves() -> None:
    records = [json.loads(line) for line in PAPERS.questions_path.read_text(encoding="utf-8").splitlines()]
    assert all(set(record) == FIELDS for record in records), "fields differ from the gold format"
    assert [q.id for q in QUESTIONS] == [f"pp-{n:03d}" for n in range(1, len(QUESTIONS) + 1)], "ids pp-001 … in order"
    assert len(ANSWERABLE) >= 36 and len(QUESTIONS) - len(ANSWERABLE) >= 4
    assert {q.category for q in QUESTIONS} <= set(CATEGORIES)
    dev, test = (sum(q.split == split for q in QUESTIONS) for split in ("dev", "test"))
    assert dev + test == len(QUESTIONS) and abs(dev - test) <= 2, (dev, test)
    unanswerable_splits = Counter(q.split for q in QUESTIONS if q.category == "unanswerable")
    assert set(unanswerable_splits) == {"dev", "test"}, unanswerable_splits


def test_each_question_names_one_paper_and_has_a_short_answer() -> None:
    pdfs = {item["doc"] for item in PAPERS.files()}
    for q in QUESTIONS:
        if q.category == "unanswerable":
            assert q.answer == "unknown" and not q.evidence and q.notes, q.id
            continue
        assert len({e.doc for e in q.evidence}) == 1 and q.evidence[0].doc in pdfs, q.id
        assert len(q.answer.split()) <= 6, f"{q.id}: a short answer (a number, a name, a method)"
    per_paper = Counter(q.evidence[0].doc.split("/")[1] for q in ANSWERABLE)
    assert len(per_paper) >= 30 and max(per_paper.values()) <= 2, per_paper.most_common(3)


def test_a_missing_mirror_is_named_with_the_fetch_that_gets_it(tmp_path) -> None:
    problems = rebuild(tmp_path / "no-mirrors", tmp_path / "out", PAPERS.manifest_path)
    repos = [entry["repo"] for entry in PAPERS.manifest()["repositories"]]
    assert len(problems) == len(repos)
    assert all(
        f"fetch github:{repo}" in p and f"git clone https://github.com/{repo}" in p
        for repo, p in zip(repos, problems, strict=True)
    )
    assert not (tmp_path / "out").exists()


@NEEDS_PDFS
@pytest.mark.parametrize("question", ANSWERABLE, ids=lambda q: q.id)
def test_evidence_is_in_the_parsed_paper_and_holds_the_answer(question) -> None:
    quote = question.evidence[0]
    assert _fold(quote.quote) in paper_text(quote.doc), f"{question.id}: quote not in the parsed {quote.doc}"
    if question.extractive:
        assert any(_fold(answer) in _fold(quote.quote) for answer in [question.answer, *question.answer_variants])
