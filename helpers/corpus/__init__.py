"""The course corpus and its question sets: the shared `Question` type and every loader of `course_data/` (the gold
file's format: `course_data/gold/FORMAT.md`). It sits at the bottom of the package with `config`, so every stage can
name a `Question`.
What it leaves out: parsing the documents (`helpers.parsing`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from helpers.config import REPO_ROOT

DOCS_DIR = REPO_ROOT / "course_data" / "docs"
GOLD_PATH = REPO_ROOT / "course_data" / "gold" / "gold.jsonl"
ROUTING_PATH = REPO_ROOT / "course_data" / "gold" / "routing.jsonl"
SPLITS = ("dev", "test")
CATEGORIES = ("direct_fact", "numerical", "date", "table_lookup", "comparative", "multi_hop", "email", "conversational",
              "unanswerable", "injection")  # fmt: skip
DOC_SUFFIXES = {".pdf", ".html", ".htm", ".md", ".markdown", ".eml", ".csv", ".txt"}


@dataclass(frozen=True)
class Evidence:
    """A verbatim quote from one document that supports an answer."""

    doc: str
    quote: str


@dataclass(frozen=True)
class Question:
    """One gold question with its reference answer, evidence and split."""

    id: str
    question: str
    answer: str
    category: str
    split: str
    evidence: tuple[Evidence, ...] = ()
    answer_variants: tuple[str, ...] = ()
    extractive: bool = False
    history: tuple[dict[str, str], ...] = ()
    notes: str = ""
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def answers(self) -> list[str]:
        """The reference answer followed by its acceptable variants."""
        return [a for a in (self.answer, *self.answer_variants) if a]

    @property
    def answerable(self) -> bool:
        """Whether the corpus holds an answer (unanswerable questions expect a refusal)."""
        return self.category != "unanswerable" and bool(self.answer)

    @property
    def evidence_docs(self) -> list[str]:
        """The documents that hold the evidence, in order, without repeats."""
        return list(dict.fromkeys(e.doc for e in self.evidence))


def course_files(root: Path | None = None) -> list[Path]:
    """All corpus documents (sorted), as paths."""
    root = root or DOCS_DIR
    return sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in DOC_SUFFIXES)


def question_from_dict(record: dict[str, Any]) -> Question:
    """Build a `Question` from one JSON object of the gold file."""
    known = {item.name for item in fields(Question)} - {"extra"}
    return Question(
        id=record["id"],
        question=record["question"],
        answer=record.get("answer", ""),
        category=record["category"],
        split=record["split"],
        evidence=tuple(Evidence(e["doc"], e["quote"]) for e in record.get("evidence", [])),
        answer_variants=tuple(record.get("answer_variants", [])),
        extractive=bool(record.get("extractive", False)),
        history=tuple(record.get("history", [])),
        notes=record.get("notes", ""),
        extra={k: v for k, v in record.items() if k not in known},
    )


def load_gold(split: str | None = None, path: Path | None = None, category: str | None = None) -> list[Question]:
    """Gold questions, optionally only one split (`dev` or `test`) and/or one category."""
    if split is not None and split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS} or None, got {split!r}")
    if category is not None and category not in CATEGORIES:
        raise ValueError(f"category must be one of {CATEGORIES} or None, got {category!r}")
    path = path or GOLD_PATH
    questions = []
    with path.open(encoding="utf-8") as handle:
        for line_number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                question = question_from_dict(json.loads(line))
            except (json.JSONDecodeError, KeyError) as err:
                raise ValueError(f"{path}:{line_number}: not a valid gold record ({err})") from None
            if (split is None or question.split == split) and (category is None or question.category == category):
                questions.append(question)
    return questions


def load_routing(path: Path = ROUTING_PATH) -> list[dict]:
    """The labelled routing questions: id, question, student_id, actions."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
