"""Rule-based query expansion: add the official term when a question uses the everyday one.

`course_data/synonyms.csv` (`phrase,adds`: "pass/fail" adds "S/U") is applied to whole words, any case; `Expanded`
wraps any retriever. What it leaves out: learned or LLM-written expansions (notebook 06) and stemming.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

from helpers.config import REPO_ROOT
from helpers.retrieval.base import Filters, Retriever
from helpers.types import Hit

SYNONYMS_PATH = REPO_ROOT / "course_data" / "synonyms.csv"


def load_synonyms(path: Path | None = None) -> dict[str, str]:
    """The table as {everyday phrase: words to add}."""
    with Path(path or SYNONYMS_PATH).open(encoding="utf-8", newline="") as handle:
        return {row["phrase"].strip(): row["adds"].strip() for row in csv.DictReader(handle) if row["phrase"].strip()}


def expand_query(query: str, synonyms: dict[str, str]) -> str:
    """`query` plus the official words of every phrase it contains (each added once)."""
    additions: list[str] = []
    for phrase, adds in synonyms.items():
        # Whole words only: "walking" must not fire inside "sleepwalking".
        found = re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", query, flags=re.IGNORECASE)
        if found and adds.lower() not in query.lower() and adds not in additions:
            additions.append(adds)
    return " ".join([query, *additions])


class Expanded:
    """Any retriever, asked with the expanded query."""

    def __init__(self, retriever: Retriever, synonyms: dict[str, str] | None = None) -> None:
        self.retriever, self.synonyms = retriever, load_synonyms() if synonyms is None else synonyms

    def __repr__(self) -> str:
        return f"Expanded({self.retriever!r})"

    def retrieve(self, query: str, k: int, filters: Filters | None = None) -> list[Hit]:
        """The inner retriever's hits for the expanded query."""
        return self.retriever.retrieve(expand_query(query, self.synonyms), k, filters)
