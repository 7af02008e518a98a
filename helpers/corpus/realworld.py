"""The real-document set: public university documents (rebuilt locally, never committed) and its gold questions.

What it does: `load_realworld(split)` reads `course_data/realworld/questions.jsonl` (the gold format of
`course_data/gold/FORMAT.md`; unanswerable questions carry the answer "unknown"); `realworld_docs_dir(settings)`
is the folder `course_data/realworld/rebuild.py` fills from pinned commits of public git repositories;
`realworld_available(settings)` says whether every file of the manifest is there with its sha256.

    >>> if realworld_available(settings):
    ...     docs = ingest_folder(realworld_docs_dir(settings))
    >>> questions = load_realworld("dev")

What it leaves out: fetching the repositories (see `course_data/realworld/README.md`) and any evaluation.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from helpers.config import REPO_ROOT, Settings
from helpers.corpus import Question, load_gold

REALWORLD_DIR = REPO_ROOT / "course_data" / "realworld"
MANIFEST_PATH = REALWORLD_DIR / "manifest.json"
QUESTIONS_PATH = REALWORLD_DIR / "questions.jsonl"
REBUILD_COMMAND = ".venv/bin/python course_data/realworld/rebuild.py"


def realworld_docs_dir(settings: Settings) -> Path:
    """The rebuilt documents: `<data_dir>/realworld/docs` (default `.kit_data/realworld/docs`)."""
    return Path(settings.data_dir) / "realworld" / "docs"


def realworld_manifest() -> dict:
    """The manifest: repositories, pinned commits, and per file its path, rebuilt path, sha256 and size."""
    return json.loads(MANIFEST_PATH.read_text(encoding="utf-8"))


def manifest_files() -> list[dict]:
    """Every file of the manifest, each with the repository it comes from under the key `repo`."""
    repositories = realworld_manifest()["repositories"]
    return [{**item, "repo": entry["repo"]} for entry in repositories for item in entry["files"]]


def _intact(path: Path, item: dict) -> bool:
    """True when path exists with the manifest's size and sha256."""
    if not path.is_file() or path.stat().st_size != item["size"]:
        return False
    return hashlib.sha256(path.read_bytes()).hexdigest() == item["sha256"]


def missing_docs(settings: Settings) -> list[str]:
    """Rebuilt paths of the manifest that are absent or differ from their pinned hash (empty when all are in place)."""
    folder = realworld_docs_dir(settings)
    return [item["doc"] for item in manifest_files() if not _intact(folder / item["doc"], item)]


def realworld_available(settings: Settings) -> bool:
    """True when every document of the set has been rebuilt intact (run `rebuild.py` otherwise)."""
    return not missing_docs(settings)


def load_realworld(split: str | None = None) -> list[Question]:
    """The real-document questions, optionally one split (`dev` for tuning, `test` for reported numbers)."""
    return load_gold(split, path=QUESTIONS_PATH)
