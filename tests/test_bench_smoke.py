"""The benchmark runner works end to end at tiny sizes (the real run: `bash scripts/bench.sh`)."""

from __future__ import annotations

import json
from pathlib import Path

from bench.__main__ import main


def test_bench_smoke_writes_json_and_table(tmp_path: Path) -> None:
    """Vector scale at 1k (Qdrant vs numpy) in a fresh process, then the Markdown page from its JSON."""
    assert main(["--smoke", "--only", "vector_scale", "--out", str(tmp_path)]) == 0
    result = json.loads((tmp_path / "vector_scale.json").read_text())
    assert result["smoke"] and result["machine"]["cores"] >= 1 and "load_average_end" in result["machine"]
    row = result["rows"][0]
    assert row["points"] == 1000 and row["same_top_k_as_numpy"] and row["dot_same_top_k_as_numpy"]
    assert (tmp_path / "vector_scale.png").stat().st_size > 0
    page = (tmp_path / "README.md").read_text()
    assert "embedded Qdrant vs exact numpy" in page and "QDRANT_URL" in page
