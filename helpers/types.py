"""The shared types every stage passes along: `Hit` (one retrieved chunk with its scores) and `hits_frame`.

At the bottom of the package, so any stage and any metric can name it without reaching up.
What it leaves out: documents and nodes (LlamaIndex's own types) and the gold questions (`helpers.corpus`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd


@dataclass
class Hit:
    """One retrieved chunk, with its score from every stage that saw it."""

    node_id: str
    text: str
    metadata: dict[str, Any]
    scores: dict[str, float] = field(default_factory=dict)

    @property
    def score(self) -> float:
        """The score of the last stage (rerank > fused > dense/sparse)."""
        for stage in ("rerank", "fused", "dense", "sparse"):
            if stage in self.scores:
                return self.scores[stage]
        return 0.0

    @property
    def source(self) -> str:
        """The course file this chunk comes from."""
        return str(self.metadata.get("source", "?"))


def hits_frame(hits: Sequence[Hit], text_chars: int = 90) -> pd.DataFrame:
    """One row per hit: rank, source, page, chunk, every stage's score, and the start of the text."""
    import pandas as pd

    rows = []
    for rank, hit in enumerate(hits, start=1):
        meta = hit.metadata
        row = {"rank": rank, "source": hit.source, "page": meta.get("page", ""), "chunk": meta.get("chunk")}
        row.update({f"{stage} score": round(score, 3) for stage, score in hit.scores.items()})
        row["text"] = " ".join(hit.text.split())[:text_chars] + "…"
        rows.append(row)
    return pd.DataFrame(rows).set_index("rank")
