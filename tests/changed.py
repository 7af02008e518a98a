"""The unit tests of what changed, for the quick lane: `python tests/changed.py` prints their paths.

What changed: the files that differ from the branch's upstream (`origin/main` when it exists, else the last commit),
committed or not, plus new files; or the paths in `KIT_CHANGED` (space-separated), when it is set. A changed test
file is its own test; a changed module of `helpers/` or `bench/` selects every test file that imports it (or imports
the package it belongs to, whose `__init__` re-exports it); a change to the tests' conftest or the pins selects
every unit test. Notebooks, the browser test and the reliability suite are the whole suite's (`bash
scripts/test.sh`), not the quick lane's.

    $ python tests/changed.py          # e.g. "tests/test_store.py tests/test_store_edge.py"
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
UNIT_TESTS = ROOT / "tests"
SLOW_FOLDERS = ("browser", "reliability")  # the whole suite's, not the quick lane's
EVERYTHING = ("tests/conftest.py", "pyproject.toml", "requirements.lock")


def git(*arguments: str) -> list[str]:
    """The lines git prints (none when git fails)."""
    done = subprocess.run(["git", *arguments], cwd=ROOT, capture_output=True, text=True)
    return done.stdout.split() if done.returncode == 0 else []


def changed_files() -> set[str]:
    """Paths (repository-relative) that differ from the upstream, committed or not, and new files."""
    if "KIT_CHANGED" in os.environ:
        return set(os.environ["KIT_CHANGED"].split())
    base = "origin/main" if git("rev-parse", "--verify", "-q", "origin/main") else "HEAD"
    merge_base = git("merge-base", "HEAD", base) or [base]
    files = set(git("diff", "--name-only", merge_base[0]))
    files |= set(git("ls-files", "--others", "--exclude-standard"))
    return files


def module_name(path: str) -> str | None:
    """`helpers/store/edge.py` -> `helpers.store.edge`; `helpers/store/__init__.py` -> `helpers.store`."""
    if not path.endswith(".py") or not path.startswith(("helpers/", "bench/")):
        return None
    parts = path[: -len(".py")].split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(test_file: Path) -> set[str]:
    """Every module a test file imports, by dotted name (`from a.b import c` gives a.b and a.b.c)."""
    try:
        tree = ast.parse(test_file.read_text(encoding="utf-8"))
    except (OSError, SyntaxError):
        return set()
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return found


def unit_test_files() -> list[Path]:
    """The quick lane's candidates: tests/test_*.py outside the slow folders."""
    files = UNIT_TESTS.rglob("test_*.py")
    return sorted(p for p in files if not set(p.relative_to(UNIT_TESTS).parts) & set(SLOW_FOLDERS))


def selected(changed: set[str]) -> list[str]:
    """The unit test files that test what changed."""
    candidates = unit_test_files()
    if changed & set(EVERYTHING):
        return [str(p.relative_to(ROOT)) for p in candidates]
    modules = {name for path in changed if (name := module_name(path))}
    packages = {name.rsplit(".", 1)[0] for name in modules if "." in name}
    picked = {str(p.relative_to(ROOT)) for p in candidates if str(p.relative_to(ROOT)) in changed}
    for test_file in candidates:
        imports = imported_modules(test_file)
        if imports & modules or (imports & packages - {"helpers", "bench"}):
            picked.add(str(test_file.relative_to(ROOT)))
    return sorted(picked)


if __name__ == "__main__":
    tests = selected(changed_files())
    if not tests:
        print("no unit test imports what changed", file=sys.stderr)
    print(" ".join(tests))
