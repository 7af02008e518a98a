"""Rebuild the real-document set from public git repositories: `.venv/bin/python course_data/realworld/rebuild.py`.

What it does: for each repository in `manifest.json` it finds a local copy (a bare mirror under
`--mirror-root`, default /work/.mirror, laid out `<owner>+<name>/repo`, or a normal `git clone` under
that root named `<name>`, `<owner>/<name>` or `<owner>+<name>`), extracts each listed file at the pinned
commit with `git show`, checks its sha256 and writes it under `.kit_data/realworld/docs/` (the kit's
data folder, git-ignored). Files already in place with the right hash are left alone, so a second run
does nothing. What it leaves out: fetching (it never touches the network; it says which repository is
missing and the `git clone` line that gets it), and committing the documents, which it never does.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent.parent
MANIFEST_PATH = HERE / "manifest.json"
DEFAULT_MIRROR_ROOT = Path("/work/.mirror")


class RepoMissing(RuntimeError):
    """A repository (or its pinned commit, or a file in it) is not available locally."""


def default_docs_dir() -> Path:
    """`<data_dir>/realworld/docs`, where data_dir is the kit's setting (KIT_DATA_DIR or kit.toml), else .kit_data."""
    sys.path.insert(0, str(REPO_ROOT))
    try:
        from helpers.config import get_settings

        return Path(get_settings().data_dir) / "realworld" / "docs"
    except Exception:  # the kit is not importable here: fall back to its default folder
        return REPO_ROOT / ".kit_data" / "realworld" / "docs"
    finally:
        sys.path.remove(str(REPO_ROOT))


def _git(git_dir: Path, *args: str) -> bytes:
    """Run git on one repository and return its stdout; a failure raises CalledProcessError."""
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], check=True, capture_output=True).stdout


def _candidates(repo: str, root: Path) -> list[Path]:
    """Places a copy of owner/name may be: the fetch tool's mirror layout first, then plain clones."""
    owner, name = repo.split("/")
    places = [root / f"{owner}+{name}" / "repo", root / f"{owner}+{name}", root / owner / name, root / name]
    if root.name in (name, f"{name}.git"):  # --mirror-root given as the clone itself
        places.append(root)
    return [p / ".git" if (p / ".git").exists() else p for p in places]


def _is_git_dir(path: Path) -> bool:
    """True when path is a git directory (bare, or the .git of a clone)."""
    return (path / "HEAD").is_file() and (path / "objects").is_dir()


def _clone_hint(repo: str, root: Path) -> str:
    """The commands that get a missing repository."""
    name = repo.split("/")[1]
    return (
        f"  git clone https://github.com/{repo} {root / name}\n"
        f"then run again (or clone anywhere and pass --mirror-root to the folder that holds it)"
    )


def find_git_dir(repo: str, root: Path) -> Path:
    """The git directory of a local copy of owner/name under root; RepoMissing with a hint if there is none."""
    for place in _candidates(repo, root):
        if _is_git_dir(place):
            return place
    raise RepoMissing(f"no local copy of {repo} under {root}. Get it with:\n{_clone_hint(repo, root)}")


def git_head(git_dir: Path) -> str:
    """The commit sha HEAD points to."""
    return _git(git_dir, "rev-parse", "HEAD").decode().strip()


def git_bytes(git_dir: Path, commit: str, path: str) -> bytes:
    """The bytes of path at commit; RepoMissing when the commit or the file is not in this copy."""
    try:
        return _git(git_dir, "show", f"{commit}:{path}")
    except subprocess.CalledProcessError as error:
        reason = error.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["git show failed"]
        raise RepoMissing(
            f"{git_dir}: cannot read {path} at commit {commit[:12]} ({reason[0]}); "
            f"the copy may be shallow or older: `git --git-dir={git_dir} fetch origin {commit}`"
        ) from None


def _sha256(data: bytes) -> str:
    """Hex sha256 of bytes."""
    return hashlib.sha256(data).hexdigest()


def _write_atomically(target: Path, data: bytes) -> None:
    """Write data to target through a temporary file, so an interrupted run never leaves half a file."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    partial.write_bytes(data)
    os.replace(partial, target)


def rebuild_repo(entry: dict, root: Path, out: Path) -> tuple[int, int]:
    """Extract one repository's files into out; returns (written, already in place)."""
    git_dir = find_git_dir(entry["repo"], root)
    written = kept = 0
    for item in entry["files"]:
        target = out / item["doc"]
        if target.is_file() and _sha256(target.read_bytes()) == item["sha256"]:
            kept += 1
            continue
        data = git_bytes(git_dir, entry["commit"], item["path"])
        if _sha256(data) != item["sha256"]:
            raise RepoMissing(f"{entry['repo']}:{item['path']} at {entry['commit'][:12]} has the wrong sha256")
        _write_atomically(target, data)
        written += 1
    return written, kept


def rebuild(root: Path, out: Path, manifest_path: Path = MANIFEST_PATH) -> list[str]:
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


def main(argv: list[str] | None = None) -> int:
    """Command line: rebuild, print a summary, exit 1 naming what is missing."""
    parser = argparse.ArgumentParser(description="Rebuild the real-document set from pinned git commits.")
    parser.add_argument("--mirror-root", type=Path, default=DEFAULT_MIRROR_ROOT,
                        help="folder holding the repositories (fetch mirrors or git clones); default %(default)s")
    parser.add_argument("--out", type=Path, default=None, help="target folder; default <data_dir>/realworld/docs")
    args = parser.parse_args(argv)
    out = args.out or default_docs_dir()
    problems = rebuild(args.mirror_root, out)
    if problems:
        print("\nnot rebuilt:\n" + "\n".join(problems), file=sys.stderr)
        return 1
    files = [p for p in out.rglob("*") if p.is_file()]
    print(f"docs ready: {out} ({len(files)} files, {sum(p.stat().st_size for p in files) / 2**20:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
