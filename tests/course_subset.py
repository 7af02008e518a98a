"""What several test modules share about the course: a small set of its documents and the dev questions they answer,
and each course file as the kit's parser reads it, parsed once per test run (the handbook PDF takes seconds).

A plain module, not a conftest: `from conftest import …` can resolve to another folder's conftest.
What it leaves out: fixtures (tests/conftest.py holds them).
"""

from __future__ import annotations

from functools import cache

from helpers.corpus import DOCS_DIR, Question, load_gold
from helpers.parsing import parse


@cache
def parsed_text(relative: str) -> str:
    """The whitespace-normalised text the kit's parser extracts from one course file (`web/faq.html`)."""
    return " ".join(" ".join(d.text for d in parse(DOCS_DIR / relative, root=DOCS_DIR)).split())

# Course documents long enough to be split, holding the evidence of a dozen dev questions.
SMALL_COURSE = (
    "articles/taking-a-leave-of-absence.md",
    "articles/how-i-picked-between-mle-and-adsc.md",
    "articles/surviving-your-first-autumn-quarter.md",
    "web/tuition-and-fees.html",
    "web/graduate-certificate.html",
    "web/faq.html",
)


def dev_questions_within(files: tuple[str, ...]) -> list[Question]:
    """The gold dev questions whose evidence lies wholly in `files` (paths under course_data/docs)."""
    return [q for q in load_gold(split="dev") if q.evidence and all(e.doc in files for e in q.evidence)]
