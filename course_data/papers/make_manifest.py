"""Write manifest.json: which PDFs of which public repository make the paper collection.

Run once by the collection's maintainer, from a fetched copy of the repository (see README.md):
`.venv/bin/python course_data/papers/make_manifest.py [--mirror-root DIR]`. It pins the repository to the
commit it finds and records every PDF there (path, rebuilt path, sha256, size in bytes), after checking that
each one starts with `%PDF` (a Git LFS pointer or an HTML error page would not). Students never run it; they
run `rebuild.py`, which reads the manifest this writes. The git work and the command line are shared with the
real-document set (`course_data/pinning.py`).
What it leaves out: fetching, and any choice inside the volume: every PDF it holds is taken, papers and
supplements alike.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the kit, when this runs as a script
from course_data.pinning import doc_path, git_head, git_paths, make_manifest_main, pin_repo
from helpers.corpus.pinned import PAPERS, RepoMissing, find_git_dir, git_bytes

# (owner/name, what it is, licence note): every PDF of each repository's tree at HEAD is pinned.
SOURCES = [
    (
        "mlresearch/v22",
        "Proceedings of Machine Learning Research, volume 22: AISTATS 2012 (the Fifteenth International "
        "Conference on Artificial Intelligence and Statistics, La Palma, 21-23 April 2012), as PMLR publishes "
        "it from this repository: one folder per paper with its PDF and, for some, a supplementary PDF",
        "no licence file in the repository; PMLR is an open-access proceedings series and this is its own "
        "repository of the volume (the site proceedings.mlr.press/v22 is built from it); the papers' copyright "
        "stays with their authors; used here only for local evaluation, never redistributed",
    ),
]


def pdf_paths(git_dir: Path, commit: str) -> list[str]:
    """The PDFs of the tree at commit; RepoMissing when one of them is not a PDF (an LFS pointer, say)."""
    paths = [path for path in git_paths(git_dir, commit) if path.lower().endswith(".pdf")]
    for path in paths:
        if not git_bytes(git_dir, commit, path).startswith(b"%PDF"):
            raise RepoMissing(f"{git_dir}: {path} at {commit[:12]} is not a PDF (a Git LFS pointer?)")
    return paths


def repositories(mirror_root: Path) -> list[dict]:
    """The manifest entries for SOURCES, each repository pinned at its current HEAD with all its PDFs."""
    entries = []
    for repo, what, licence in SOURCES:
        git_dir = find_git_dir(repo, mirror_root)
        commit = git_head(git_dir)
        about = {"collection": what, "licence": licence}
        entries.append(pin_repo(repo, git_dir, commit, pdf_paths(git_dir, commit), doc_path, about))
    return entries


if __name__ == "__main__":
    sys.exit(make_manifest_main(PAPERS, repositories, description=__doc__.splitlines()[0]))
