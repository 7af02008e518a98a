"""Fixtures of the reliability suite: isolated settings, the `record` fixture and the results table.

Every test writes only under its own `tmp_path` (its own Qdrant folder and caches), never the course index.
The `record` fixture keeps one row per case (what happened, points before/after); with
`KIT_RELIABILITY_TABLE=<file>` the session writes those rows as a Markdown table (into README.md: between
its two marker comments).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from reliability_kit import ROWS, Record, isolated_settings

import helpers  # noqa: F401  (sets the offline environment first)
from helpers.config import Settings


@pytest.fixture
def rel_settings(tmp_path: Path) -> Settings:
    """Default settings with data, caches and corpus in tmp_path: the embedded store and the tiny local LLM."""
    return isolated_settings(tmp_path)


@pytest.fixture
def record(request: pytest.FixtureRequest) -> Record:
    """record(case, what_happened, before="", after=""): one row of the results table."""

    def add(case: str, happened: str, before: object = "", after: object = "") -> None:
        ROWS.append((case, happened, str(before), str(after)))

    return add


START, END = "<!-- results table: generated -->", "<!-- end of results table -->"
AREAS = ("file", "fuzz", "ingest", "store", "kernels", "query", "guard", "LLM", "config", "notebook")  # table order


def by_area(row: list[str]) -> tuple[int, str]:
    area = row[0].split(":")[0]
    return (AREAS.index(area) if area in AREAS else len(AREAS), row[0])


@pytest.fixture(scope="session", autouse=True)
def results_table() -> Iterator[None]:
    """At the end of the session, write the rows as a Markdown table when KIT_RELIABILITY_TABLE names a file."""
    yield
    target = os.environ.get("KIT_RELIABILITY_TABLE")
    if target and ROWS:
        lines = ["| case | what happened | points before | points after |", "| --- | --- | --- | --- |"]
        cells = [[re.sub(r"/tmp/pytest-of-[^/]+/pytest-\d+/[^/]+/", "TMP/", c).replace("|", "/") for c in row]
                 for row in ROWS]  # fmt: skip
        lines += [f"| {' | '.join(cell or '—' for cell in row)} |" for row in sorted(cells, key=by_area)]
        table, path = "\n".join(lines) + "\n", Path(target)
        old = path.read_text(encoding="utf-8") if path.exists() else ""
        if START in old and END in old:  # README.md: replace the table between its markers, keep the prose
            table = old[: old.index(START) + len(START)] + "\n" + table + old[old.index(END) :]
        path.write_text(table, encoding="utf-8")
