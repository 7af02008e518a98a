"""What notebook 03 shows about faster embedders: the backends timed live, beside the committed recall@5.

What it does: `compare_backends(texts)` times every set-up of `helpers.embedding.backends.BACKENDS` (torch or
ONNX Runtime, float32 or int8) on the given chunks right now (alternating rounds, no cache, ratio to torch fp32
in the same run) and puts next to each the numbers `python -m bench.embedders` measured on the whole course:
chunks/s and recall@5 on the course gold dev split and on the real-document dev split, with the rule's verdict
(within 0.01 of torch fp32 on both) and the default it chose. A live speed-up that differs from the committed
one is the machine (its load, its cores), not the code. The first ONNX use exports the model (~10 s, once).
What it leaves out: recomputing recall (minutes per embedder and corpus: that is the benchmark's job).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from helpers.config import Settings
from helpers.embedding.backends import BACKENDS, committed_results, time_backends


def compare_backends(texts: Sequence[str], settings: Settings | None = None, rounds: int = 1) -> pd.DataFrame:
    """One row per backend: live chunks/s and ratio on `texts`, then the benchmark's chunks/s, ratio and recall@5."""
    live = time_backends(texts, tuple(BACKENDS), settings, rounds)
    live = live[["chunks/s", "× torch fp32"]].add_prefix("now: ")
    try:
        committed = committed_results()
    except FileNotFoundError:
        return live
    columns = ["chunks/s", "× torch fp32"] + [c for c in committed.columns if "recall@5" in c]
    if "within 0.01" in committed.columns:
        columns.append("within 0.01")
    table = live.join(committed[columns].add_prefix("bench: "), how="left")
    table.attrs.update(committed.attrs)
    table.attrs["load average"] = live.attrs.get("load average")
    return table
