"""Notebook 07 run first, on a fresh data folder (no index from notebooks 01–06): its setup cells build what
they need — the index, with progress bars — and the retriever answers. The cells are read from the notebook
itself, so this test follows the notebook when it changes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from reliability_kit import Record, write

import helpers.config
from helpers.config import Settings

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "07_prompting_generation.ipynb"


def setup_cells() -> list[str]:
    """The code cells up to and including the one that opens the index (`RAGPipeline()` … `.ingest(`)."""
    cells = ["".join(c["source"]) for c in json.loads(NOTEBOOK.read_text())["cells"] if c["cell_type"] == "code"]
    last = next(i for i, source in enumerate(cells) if "RAGPipeline(" in source and ".ingest(" in source)
    return cells[: last + 1]


def test_notebook_07_first_builds_its_index(
    rel_settings: Settings, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], record: Record
) -> None:
    write(rel_settings.paths.corpus_dir / "fees.md", "# Fees\n\nThe application fee is $90.\n")
    write(rel_settings.paths.corpus_dir / "capstone.md", "# Capstone\n\nCapstone teams have three to five students.\n")
    assert not rel_settings.paths.data_dir.exists()  # a fresh clone: no index, no caches
    monkeypatch.setattr(helpers.config, "_current", rel_settings)  # what KIT_DATA_DIR etc. would give the kernel
    namespace: dict[str, object] = {}
    try:
        for source in setup_cells():
            exec(compile(source, str(NOTEBOOK), "exec"), namespace)
        hits = namespace["retriever"].retrieve("How much is the application fee?", 2)  # type: ignore[attr-defined]
        points = namespace["pipeline"].store.count()  # type: ignore[attr-defined]
    finally:
        if "pipeline" in namespace:
            namespace["pipeline"].close()  # type: ignore[attr-defined]
    out = capsys.readouterr()
    assert "2 files → 2 documents" in out.out and "points in the collection" in out.out
    assert "parsing" in out.err and "100%" in out.err  # the progress bars of the build
    assert hits and hits[0].source == "fees.md"
    built = next(line for line in out.out.splitlines() if "points in the collection" in line)
    assert f"{points} points in the collection" in built
    record("notebook: 07 first, on an empty data folder", f"its setup cell built the index with progress bars: "
           f"“{built}”", 0, points)  # fmt: skip
