"""Rebuild the real-document set from public git repositories: `.venv/bin/python course_data/realworld/rebuild.py`.

What it does: for each repository in `manifest.json` it finds a local copy (a bare mirror under
`--mirror-root`, default /work/.mirror, laid out `<owner>+<name>/repo`, or a normal `git clone` under
that root named `<name>`, `<owner>/<name>` or `<owner>+<name>`), extracts each listed file at the pinned
commit with `git show`, checks its sha256 and writes it under `.kit_data/realworld/docs/` (the kit's
data folder, git-ignored). Files already in place with the right hash are left alone, so a second run
does nothing. What it leaves out: fetching (it never touches the network; it says which repository is
missing and the `fetch` or `git clone` line that gets it), and committing the documents, which it never does.
The work is done by `helpers.corpus.pinned`, which the paper collection's `rebuild.py` shares.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the kit, when this runs as a script
from helpers.config import get_settings
from helpers.corpus import pinned

MANIFEST_PATH = pinned.REALWORLD.manifest_path


def rebuild(root: Path, out: Path, manifest_path: Path = MANIFEST_PATH) -> list[str]:
    """Rebuild every repository it can; returns the problems (empty when the whole set is in place)."""
    return pinned.rebuild(root, out, manifest_path)


if __name__ == "__main__":
    sys.exit(pinned.rebuild_main(pinned.REALWORLD, get_settings()))
