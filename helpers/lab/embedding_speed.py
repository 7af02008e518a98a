"""The ways the kit can run its packaged MiniLM (torch or ONNX Runtime, float32 or int8), and how fast each embeds:
alternating uncached rounds after a warm-up, so a busy moment of a shared machine hits them all.
What it leaves out: retrieval quality (that needs the evaluation stage: bench/embedders.py), OpenAI embeddings.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from helpers.config import Settings, get_settings
from helpers.embedding.embedder import Embedder

BACKENDS: dict[str, dict[str, str]] = {
    "torch fp32": {"embed_backend": "local", "embed_precision": "fp32"},
    "torch int8": {"embed_backend": "local", "embed_precision": "int8"},
    "onnx fp32": {"embed_backend": "onnx", "embed_precision": "fp32"},
    "onnx int8": {"embed_backend": "onnx", "embed_precision": "int8"},
}


def backend_embedder(name: str, settings: Settings | None = None) -> Embedder:
    """An embedder of one named set-up with no cache (every text computed), its model loaded."""
    embedder = Embedder((settings or get_settings()).replace(**BACKENDS[name]), use_cache=False, shipped_dir=None)
    embedder.load()
    return embedder


def time_embedders(texts: Sequence[str], embedders: Mapping[str, Any], rounds: int = 2) -> pd.DataFrame:
    """chunks/s of each embedder on `texts` (fastest of `rounds` alternating rounds) and its ratio to the first."""
    texts, names = list(texts), list(embedders)
    for embedder in embedders.values():  # warm-up: first-call allocations, thread pools
        embedder.embed_texts(texts[:32])
    best = dict.fromkeys(names, float("inf"))
    for _ in range(rounds):
        for name, embedder in embedders.items():
            start = time.perf_counter()
            embedder.embed_texts(texts)
            best[name] = min(best[name], time.perf_counter() - start)
    table = pd.DataFrame({"chunks": len(texts), "seconds": pd.Series(best)})
    table["chunks/s"] = table["chunks"] / table["seconds"]
    table[f"× {names[0]}"] = table["chunks/s"] / table.loc[names[0], "chunks/s"]
    table.attrs["load average"] = [round(x, 2) for x in os.getloadavg()]
    return table


def committed_results(path: Path) -> pd.DataFrame:
    """The table `python -m bench.embedders` wrote: one row per embedder (speed, ratios, recall@5 on both dev sets)."""
    if not path.exists():
        raise FileNotFoundError(f"no {path.name} yet: run .venv/bin/python -m bench.embedders")
    record = json.loads(path.read_text(encoding="utf-8"))
    table = pd.DataFrame(record["rows"]).set_index("embedder")
    if "within_tolerance" in record:  # the rule: dense recall@5 within the tolerance of torch fp32 on both dev sets
        tested = table[[c for c in table.columns if "recall@5" in c]].notna().all(axis=1)
        table[f"within {record['tolerance']}"] = table.index.isin(record["within_tolerance"]).astype(object)
        table.loc[~tested, f"within {record['tolerance']}"] = "–"
    machine = record["machine"]
    table.attrs["measured"] = (
        f"{record['date'][:10]}, load {machine['load_average_start'][0]:.1f} → {machine['load_average_end'][0]:.1f}"
    )
    table.attrs["default"] = record.get("default", "")
    return table


def compare_backends(
    texts: Sequence[str], settings: Settings | None = None, rounds: int = 1, results: Path | None = None
) -> pd.DataFrame:
    """One row per backend: live chunks/s and ratio on `texts`, and the benchmark's beside them (`results`)."""
    live = time_embedders(texts, {name: backend_embedder(name, settings) for name in BACKENDS}, rounds)
    live = live[["chunks/s", "× torch fp32"]].round({"chunks/s": 1, "× torch fp32": 2}).add_prefix("now: ")
    if results is None or not results.exists():
        return live
    committed = committed_results(results)
    columns = ["chunks/s", "× torch fp32"] + [c for c in committed.columns if "recall@5" in c]
    if "within 0.01" in committed.columns:
        columns.append("within 0.01")
    table = live.join(committed[columns].add_prefix("bench: "), how="left")
    table.attrs.update(committed.attrs)
    table.attrs["load average"] = live.attrs.get("load average")
    return table
