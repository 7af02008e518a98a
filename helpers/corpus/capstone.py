"""The capstone's corpus: a program the course never showed, and its questions in the gold format.

What it leaves out: indexing the folder and evaluating on it (`helpers.byod.capstone`).
"""

from __future__ import annotations

from helpers.config import REPO_ROOT
from helpers.corpus import Question, load_gold

CAPSTONE_DIR = REPO_ROOT / "course_data" / "capstone"
CAPSTONE_DOCS = CAPSTONE_DIR / "docs"
CAPSTONE_QUESTIONS = CAPSTONE_DIR / "questions.jsonl"


def load_capstone(split: str | None = None) -> list[Question]:
    """The capstone's questions, optionally one split (`dev` or `test`)."""
    return load_gold(split, path=CAPSTONE_QUESTIONS)
