"""What several test modules share about the course: a small set of its documents and the dev questions they answer.

A plain module, not a conftest: `from conftest import …` can resolve to another folder's conftest.
What it leaves out: fixtures (tests/conftest.py holds them).
"""

from __future__ import annotations

from helpers.corpus import Question, load_gold

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
