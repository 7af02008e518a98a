"""Shipped answers: the reader's outputs for the course's own prompts (`course_data/answers/<model>.jsonl.gz`, used
only when its header names the configured model file's sha256), so two cores need not spend hours recomputing them.
Each kernel recomputes a seeded sample (`live_check`); a difference is counted and the live output used.
What it leaves out: entries the notebooks do not ask for (a student's own questions go to the user cache).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from helpers.config import REPO_ROOT, Settings
from helpers.models import CHUNKED_MODELS

ANSWERS_DIR = REPO_ROOT / "course_data" / "answers"
FORMAT = "kit-shipped-answers 1"
NAMESPACES = ("answers", "outputs", "enrichments")  # CachedLLM, CachedCompleter and the judges, the e-mail Enricher
LIVE_STRIDE = 3  # one shipped entry in about three is eligible for the live sample (after the first)
TIMINGS = ("seconds",)  # fields of a stored output that measure its computation, not what it computed
RECORD_ENV = "KIT_RECORD_ANSWERS"  # a JSONL file every looked-up output is appended to (building the bundle)


def model_fingerprint(settings: Settings) -> str:
    """The sha256 of the configured model file when the kit knows it without reading the file, else ""."""
    if settings.llm.llm_backend != "local" or settings.llm.llm_gguf:
        return ""
    model = CHUNKED_MODELS.get(settings.llm.llm_model)
    return model.sha256 if model else ""


def bundle_path(settings: Settings, folder: Path | None = None) -> Path:
    """Where the shipped answers of the configured model live."""
    return (folder or ANSWERS_DIR) / f"{settings.llm.llm_model}.jsonl.gz"


def comparable(namespace: str, value: Any) -> Any:
    """The part of a stored value that must be identical for a live recomputation to count as a match."""
    if namespace == "answers" or (namespace == "outputs" and isinstance(value, dict) and "text" in value):
        return value["text"]
    if namespace == "enrichments" and isinstance(value, str):
        return json.loads(value).get("metadata")
    if isinstance(value, dict):  # e.g. the LLM reranker's {"p": ..., "seconds": ...}: the time is not the output
        return {key: item for key, item in value.items() if key not in TIMINGS}
    return value


@dataclass
class Ledger:
    """What one kernel took from the shipped answers and what its live sample found."""

    served: int = 0
    checked: int = 0
    live_seconds: float = 0.0  # model time the live sample took
    identical: int = 0
    different: list[str] = field(default_factory=list)  # keys whose live output differed

    def line(self) -> str:
        """One sentence for a notebook's output."""
        if not self.served and not self.checked:
            return "Shipped answers: none used in this kernel (every output was computed or read from your cache)."
        looked_up = self.served + self.checked
        live = f"{self.checked} recomputed live ({self.live_seconds:.0f} s)"
        text = f"Shipped answers: {looked_up:,} outputs looked up; {live}"
        if self.checked == self.identical:
            return f"{text}: {self.identical} identical to the shipped ones."
        return (
            f"{text}: {self.identical} identical, {len(self.different)} different (llama.cpp's sums round differently "
            "on another CPU or when the prompt is split into other batches; the live outputs were used for those)."
        )


LEDGER = Ledger()


@dataclass(eq=False)
class ShippedResults:
    """The shipped outputs of one model, by namespace and key; read-only, checked live on a seeded sample."""

    entries: dict[tuple[str, str], Any] = field(repr=False)
    live_check: int
    seed: int
    header: dict[str, Any]
    live_check_seconds: float = float("inf")
    ledger: Ledger = field(default_factory=lambda: LEDGER, repr=False)  # one per process, shared

    @classmethod
    def empty(cls) -> ShippedResults:
        """No shipped answers (another model, an endpoint, or switched off)."""
        return cls({}, 0, 0, {})

    def __len__(self) -> int:
        return len(self.entries)

    def __contains__(self, item: tuple[str, str]) -> bool:
        return item in self.entries

    def _sampled(self, key: str) -> bool:
        if self.ledger.checked >= self.live_check:
            return False
        if self.ledger.checked == 0:
            return True
        if self.ledger.live_seconds >= self.live_check_seconds:
            return False
        digest = hashlib.sha256(f"{self.seed}:{key}".encode()).hexdigest()
        return int(digest[:8], 16) % LIVE_STRIDE == 0

    def get(self, namespace: str, key: str) -> Any | None:
        """The shipped value, counted as served (no live check: for callers that cannot recompute)."""
        value = self.entries.get((namespace, key))
        if value is not None:
            self.ledger.served += 1
        return value

    def resolve(self, namespace: str, key: str, compute: Callable[[], Any]) -> Any | None:
        """The shipped value, or the live one when this key falls in the sample; None when nothing is shipped."""
        shipped = self.entries.get((namespace, key))
        if shipped is None:
            return None
        if not self._sampled(key):
            self.ledger.served += 1
            return shipped
        start = time.perf_counter()
        live = compute()
        self.ledger.live_seconds += time.perf_counter() - start
        self.ledger.checked += 1
        if comparable(namespace, live) == comparable(namespace, shipped):
            self.ledger.identical += 1
        else:
            self.ledger.different.append(key)
        return live


_LOADED: dict[tuple[Path, str, int, float, int], ShippedResults] = {}


def read_bundle(path: Path) -> tuple[dict[str, Any], dict[tuple[str, str], Any]]:
    """The header and the entries of a bundle file."""
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        header = json.loads(handle.readline())
        entries = {(row["ns"], row["key"]): row["value"] for row in map(json.loads, handle)}
    return header, entries


def shipped_results(settings: Settings, folder: Path | None = None) -> ShippedResults:
    """The shipped answers for the configured model (loaded once per process), or an empty set."""
    fingerprint = model_fingerprint(settings)
    path = bundle_path(settings, folder)
    if not settings.llm.shipped_answers or not fingerprint or not path.is_file():
        return ShippedResults.empty()
    cache_key = (path, fingerprint, settings.llm.live_check, settings.llm.live_check_seconds, settings.seed)
    if cache_key not in _LOADED:
        try:
            header, entries = read_bundle(path)
        except (OSError, ValueError, KeyError) as error:
            print(f"Shipped answers in {path.name} could not be read ({error}); every output is computed.")
            header, entries = {}, {}
        if header.get("format") != FORMAT or header.get("model_sha256") != fingerprint:
            entries = {}
        _LOADED[cache_key] = ShippedResults(
            entries, settings.llm.live_check, settings.seed, header, settings.llm.live_check_seconds
        )
    return _LOADED[cache_key]


def shipped_report() -> str:
    """What this kernel took from the shipped answers and whether its live sample matched."""
    return LEDGER.line()


def record(namespace: str, key: str, value: Any, model: str) -> None:
    """Append one looked-up output of `model` to the recording file, when one is set (building a bundle)."""
    target = os.environ.get(RECORD_ENV)
    if not target or value is None:
        return
    row = {"ns": namespace, "key": key, "value": value, "model": model}
    with open(target, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(row, ensure_ascii=False) + "\n")
