"""The real-document set: public university documents (rebuilt locally, never committed) and its gold questions.

What it does: `load_realworld(split)` reads `course_data/realworld/questions.jsonl` (the gold format of
`course_data/gold/FORMAT.md`; unanswerable questions carry the answer "unknown"); `realworld_docs_dir(settings)`
is the folder `course_data/realworld/rebuild.py` fills from pinned commits of public git repositories;
`realworld_available(settings)` says whether every file of the manifest is there with its sha256. Each is the
set's `PinnedSet` (`helpers.corpus.pinned.REALWORLD`) under the name the notebooks and benchmarks use.

    >>> if realworld_available(settings):
    ...     docs = ingest_folder(realworld_docs_dir(settings))
    >>> questions = load_realworld("dev")

What it leaves out: fetching the repositories (see `course_data/realworld/README.md`) and any evaluation.
"""

from __future__ import annotations

from pathlib import Path

from helpers.config import Settings
from helpers.corpus import Question
from helpers.corpus.pinned import REALWORLD


def realworld_docs_dir(settings: Settings) -> Path:
    """The rebuilt documents: `<data_dir>/realworld/docs` (default `.kit_data/realworld/docs`)."""
    return REALWORLD.docs_dir(settings)


def realworld_available(settings: Settings) -> bool:
    """True when every document of the set has been rebuilt intact (run `rebuild.py` otherwise)."""
    return REALWORLD.available(settings)


def load_realworld(split: str | None = None) -> list[Question]:
    """The real-document questions, optionally one split (`dev` for tuning, `test` for reported numbers)."""
    return REALWORLD.load(split)
