"""Rebuild the paper collection from its public git repository: `.venv/bin/python course_data/papers/rebuild.py`.

What it does: finds a local copy of each repository in `manifest.json` (a fetch mirror under `--mirror-root`,
default /work/.mirror, laid out `<owner>+<name>/repo`, or a plain `git clone` under that root), extracts
every listed PDF at the pinned commit, checks its sha256 and writes it under `.kit_data/papers/docs/` (the
kit's data folder, git-ignored); PDFs already in place with the right hash are left alone. The work is
`helpers.corpus.pinned`, shared with the real-document set's `rebuild.py`.
What it leaves out: fetching (it never touches the network; when the copy is missing it says so, with the
`fetch github:<owner>/<name>` and the `git clone` line that get it), and committing the PDFs.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the kit, when this runs as a script
from helpers.config import get_settings
from helpers.corpus.pinned import PAPERS, rebuild_main

if __name__ == "__main__":
    sys.exit(rebuild_main(PAPERS, get_settings()))
