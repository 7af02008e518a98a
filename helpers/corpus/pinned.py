"""Document sets pinned to commits of public git repositories: their manifests, rebuilds and questions.

A `PinnedSet` (`REALWORLD`, `PAPERS`, `VERSIONED`) is a folder `course_data/<name>/` whose documents `rebuild`
extracts into `<data_dir>/<name>/docs` from a local copy at their pinned commits, checking each file's hash.
What it leaves out: fetching (a missing repository is named with the lines that get it), writing the manifests
(each set's `make_manifest.py`), and committing the documents: only the manifests are committed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from helpers.config import REPO_ROOT, Settings
from helpers.corpus import Question, load_gold

DEFAULT_MIRROR_ROOT = Path("/work/.mirror")


@dataclass(frozen=True)
class PinnedSet:
    """One pinned document set, named by its folder under `course_data/`."""

    name: str
    what: str

    @property
    def folder(self) -> Path:
        """`course_data/<name>/`: the manifest, the questions and the two scripts."""
        return REPO_ROOT / "course_data" / self.name

    @property
    def manifest_path(self) -> Path:
        return self.folder / "manifest.json"

    @property
    def questions_path(self) -> Path:
        return self.folder / "questions.jsonl"

    @property
    def rebuild_command(self) -> str:
        return f".venv/bin/python course_data/{self.name}/rebuild.py"

    def docs_dir(self, settings: Settings) -> Path:
        """The rebuilt documents: `<data_dir>/<name>/docs` (default `.kit_data/<name>/docs`)."""
        return Path(settings.paths.data_dir) / self.name / "docs"

    def manifest(self) -> dict:
        """The manifest: repositories, pinned commits, and per file its path, rebuilt path, sha256 and size."""
        return json.loads(self.manifest_path.read_text(encoding="utf-8"))

    def files(self) -> list[dict]:
        """Every file of the manifest, each with the repository it comes from under the key `repo`."""
        return [{**item, "repo": entry["repo"]} for entry in self.manifest()["repositories"] for item in entry["files"]]

    def missing(self, settings: Settings) -> list[str]:
        """Rebuilt paths that are absent or differ from their pinned hash (empty when all are in place)."""
        folder = self.docs_dir(settings)
        return [item["doc"] for item in self.files() if not _intact(folder / item["doc"], item)]

    def available(self, settings: Settings) -> bool:
        """True when every document of the set has been rebuilt intact (run its `rebuild.py` otherwise)."""
        return not self.missing(settings)

    def load(self, split: str | None = None) -> list[Question]:
        """The set's questions, optionally one split (`dev` for tuning, `test` for reported numbers)."""
        return load_gold(split, path=self.questions_path)


REALWORLD = PinnedSet("realworld", "the real-document set")
PAPERS = PinnedSet("papers", "the paper collection")
VERSIONED = PinnedSet("versioned", "the versioned real-document set")


class RepoMissing(RuntimeError):
    """A repository (or its pinned commit, or a file in it) is not available locally."""


def _intact(path: Path, item: dict) -> bool:
    """True when path exists with the manifest's size and sha256."""
    if not path.is_file() or path.stat().st_size != item["size"]:
        return False
    return sha256(path.read_bytes()) == item["sha256"]


def sha256(data: bytes) -> str:
    """Hex sha256 of bytes."""
    return hashlib.sha256(data).hexdigest()


def run_git(git_dir: Path, *args: str) -> bytes:
    """Run git on one repository and return its stdout; a failure raises CalledProcessError."""
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], check=True, capture_output=True).stdout


def _candidates(repo: str, root: Path) -> list[Path]:
    """Places a copy of owner/name may be: the fetch tool's mirror layout first, then plain clones."""
    owner, name = repo.split("/")
    places = [root / f"{owner}+{name}" / "repo", root / f"{owner}+{name}", root / owner / name, root / name]
    if root.name in (name, f"{name}.git"):  # --mirror-root given as the clone itself
        places.append(root)
    return [p / ".git" if (p / ".git").exists() else p for p in places]


def _get_hint(repo: str, root: Path) -> str:
    """The lines that get a missing repository: the fetch tool's mirror, or a plain clone."""
    owner, name = repo.split("/")
    return (
        f"  fetch github:{repo}   (the fetch tool: it mirrors to {root / f'{owner}+{name}' / 'repo'})\n"
        f"or\n  git clone https://github.com/{repo} {root / name}\n"
        f"then run again (or clone anywhere and pass --mirror-root to the folder that holds it)"
    )


def find_git_dir(repo: str, root: Path) -> Path:
    """The git directory of a local copy of owner/name under root; RepoMissing with a hint if there is none."""
    for place in _candidates(repo, root):
        if (place / "HEAD").is_file() and (place / "objects").is_dir():  # a git directory, bare or a clone's .git
            return place
    raise RepoMissing(f"no local copy of {repo} under {root}. Get it with:\n{_get_hint(repo, root)}")


def git_bytes(git_dir: Path, commit: str, path: str) -> bytes:
    """The bytes of path at commit; RepoMissing when the commit or the file is not in this copy."""
    try:
        return run_git(git_dir, "show", f"{commit}:{path}")
    except subprocess.CalledProcessError as error:
        reason = error.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["git show failed"]
        raise RepoMissing(
            f"{git_dir}: cannot read {path} at commit {commit[:12]} ({reason[0]}); "
            f"the copy may be shallow or older: `git --git-dir={git_dir} fetch origin {commit}`"
        ) from None


def rebuild_repo(entry: dict, root: Path, out: Path) -> tuple[int, int]:
    """Extract one repository's files into out; returns (written, already in place)."""
    git_dir = find_git_dir(entry["repo"], root)
    written = kept = 0
    for item in entry["files"]:
        target = out / item["doc"]
        if target.is_file() and sha256(target.read_bytes()) == item["sha256"]:
            kept += 1
            continue
        data = git_bytes(git_dir, entry["commit"], item["path"])
        if sha256(data) != item["sha256"]:
            raise RepoMissing(f"{entry['repo']}:{item['path']} at {entry['commit'][:12]} has the wrong sha256")
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + ".partial")  # an interrupted run never leaves half a file
        partial.write_bytes(data)
        os.replace(partial, target)
        written += 1
    return written, kept


def rebuild(root: Path, out: Path, manifest_path: Path) -> list[str]:
    """Rebuild every repository it can; returns the problems (empty when the whole set is in place)."""
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    problems = []
    for entry in manifest["repositories"]:
        try:
            written, kept = rebuild_repo(entry, root, out)
        except RepoMissing as error:
            problems.append(str(error))
            continue
        print(f"{entry['repo']} @ {entry['commit'][:12]}: {written} written, {kept} already in place")
    return problems


def rebuild_main(pinned: PinnedSet, settings: Settings, argv: list[str] | None = None) -> int:
    """A set's `rebuild.py` command line: rebuild, print a summary, exit 1 naming what is missing."""
    parser = argparse.ArgumentParser(description=f"Rebuild {pinned.what} from pinned git commits.")
    parser.add_argument(
        "--mirror-root",
        type=Path,
        default=DEFAULT_MIRROR_ROOT,
        help="folder holding the repositories (fetch mirrors or git clones); default %(default)s",
    )
    parser.add_argument("--out", type=Path, default=None, help=f"target folder; default <data_dir>/{pinned.name}/docs")
    args = parser.parse_args(argv)
    out = args.out or pinned.docs_dir(settings)
    problems = rebuild(args.mirror_root, out, pinned.manifest_path)
    if problems:
        print("\nnot rebuilt:\n" + "\n".join(problems), file=sys.stderr)
        return 1
    files = [p for p in out.rglob("*") if p.is_file()]
    print(f"docs ready: {out} ({len(files)} files, {sum(p.stat().st_size for p in files) / 2**20:.1f} MB)")
    return 0
