"""The real-document set (public university documents, rebuilt locally) under the names notebooks and benchmarks use.

What it leaves out: fetching the repositories (see `course_data/realworld/README.md`) and any evaluation.
"""

from __future__ import annotations

from helpers.corpus.pinned import REALWORLD

realworld_docs_dir = REALWORLD.docs_dir  # (settings) -> `<data_dir>/realworld/docs`
realworld_available = REALWORLD.available  # (settings) -> every document rebuilt intact (run `rebuild.py` otherwise)
load_realworld = REALWORLD.load  # (split=None) -> the questions (`dev` for tuning, `test` for reported numbers)
