"""Small tables for notebooks: hits and timings as pandas DataFrames."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from helpers.store import Hit


def hits_frame(hits: Sequence[Hit], text_chars: int = 90) -> pd.DataFrame:
    """One row per hit: rank, source, page, chunk, every stage's score, and the start of the text."""
    rows = []
    for rank, hit in enumerate(hits, start=1):
        row = {
            "rank": rank,
            "source": hit.source,
            "page": hit.metadata.get("page", ""),
            "chunk": hit.metadata.get("chunk"),
        }
        row.update({f"{stage} score": round(score, 3) for stage, score in hit.scores.items()})
        row["text"] = " ".join(hit.text.split())[:text_chars] + "…"
        rows.append(row)
    return pd.DataFrame(rows).set_index("rank")
