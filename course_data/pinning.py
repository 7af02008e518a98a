"""What the pinned sets' `make_manifest.py` scripts share: pinning files of a git repository, and their command line.

What it does: `git_head`, `git_paths`, `doc_path`, `pin_repo` (a repository's files with their sha256 and size at
one commit), `manifest_document` (the manifest around the entries) and `make_manifest_main` (pin and write it).
Only a set's maintainer runs these; students rebuild from the manifest with `helpers.corpus.pinned`.
What it leaves out: fetching (a missing repository is named with the lines that get it) and choosing the files
(each set's `make_manifest.py`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

from helpers.corpus.pinned import DEFAULT_MIRROR_ROOT, PinnedSet, RepoMissing, git_bytes, run_git, sha256


def git_head(git_dir: Path) -> str:
    """The commit sha HEAD points to."""
    return run_git(git_dir, "rev-parse", "HEAD").decode().strip()


def git_paths(git_dir: Path, commit: str) -> list[str]:
    """Every file path of the tree at commit, sorted."""
    return sorted(run_git(git_dir, "ls-tree", "-r", "--name-only", "-z", commit).decode().split("\0")[:-1])


def doc_path(repo: str, path: str) -> str:
    """Where a file of a repository is rebuilt, relative to the set's docs folder: `<repository name>/<path>`."""
    return f"{repo.split('/')[1]}/{path}"


def pin_repo(
    repo: str, git_dir: Path, commit: str, paths: list[str], doc_of: Callable[[str, str], str], about: dict
) -> dict:
    """A manifest entry: the repository at commit, `about` (what it is, its licence), every path pinned."""
    files = []
    for path in paths:
        data = git_bytes(git_dir, commit, path)
        files.append({"path": path, "doc": doc_of(repo, path), "sha256": sha256(data), "size": len(data)})
    return {"repo": repo, "url": f"https://github.com/{repo}", "commit": commit, **about, "files": files}


def manifest_document(pinned: PinnedSet, repositories: list[dict]) -> dict:
    """The whole manifest around its repository entries (as `make_manifest.py` writes it)."""
    return {
        "format": f"{pinned.name}-manifest 1.0",
        "docs_dir": f".kit_data/{pinned.name}/docs",
        "repositories": repositories,
    }


def make_manifest_main(
    pinned: PinnedSet, repositories: Callable[[Path], list[dict]], argv: list[str] | None = None, description: str = ""
) -> int:
    """A set's `make_manifest.py` command line: pin `repositories(mirror_root)` and write the manifest."""
    parser = argparse.ArgumentParser(description=description or f"Write the manifest of {pinned.what}.")
    parser.add_argument("--mirror-root", type=Path, default=DEFAULT_MIRROR_ROOT)
    args = parser.parse_args(argv)
    try:
        data = manifest_document(pinned, repositories(args.mirror_root))
    except RepoMissing as error:
        print(error, file=sys.stderr)
        return 1
    pinned.manifest_path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    count = sum(len(r["files"]) for r in data["repositories"])
    print(f"wrote {pinned.manifest_path.name}: {len(data['repositories'])} repositories, {count} files")
    return 0
