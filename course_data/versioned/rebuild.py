"""Rebuild the versioned real-document set from git: `.venv/bin/python course_data/versioned/rebuild.py`.

What it does: for each repository in `manifest.json` it finds a local copy (a bare mirror under
`--mirror-root`, default /work/.mirror, laid out `<owner>+<name>/repo`, or a normal `git clone` under that
root named `<name>`, `<owner>/<name>` or `<owner>+<name>`), extracts each listed file at the pinned commit
with `git show`, checks its sha256 and writes it under `.kit_data/versioned/docs/` (git-ignored). Files
already in place with the right hash are left alone, so a second run does nothing. What it leaves out:
fetching (it names a missing repository and the line that gets it) and committing the documents.
The work is done by `helpers.corpus.pinned`, which the other pinned sets' `rebuild.py` share.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the kit, when this runs as a script
from helpers.config import get_settings
from helpers.corpus import pinned

if __name__ == "__main__":
    sys.exit(pinned.rebuild_main(pinned.VERSIONED, get_settings()))
