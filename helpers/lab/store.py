"""What notebook 04 measures: exact numpy search against Qdrant, query latency, and embedded write speed.
What it leaves out: approximate (HNSW) search quality, which only a Qdrant server builds.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from qdrant_client import QdrantClient, models

from helpers.store.client import enable_fast_local_writes

Searcher = Callable[[str], list[tuple[str, float]]]  # a question in, ranked (point id, score) pairs out


def numpy_top_k(matrix: np.ndarray, query: np.ndarray, k: int) -> np.ndarray:
    """Row indices of the k rows of `matrix` most similar to `query` (rows and query of length 1)."""
    scores = matrix @ query
    top = np.argpartition(-scores, min(k, len(scores) - 1))[:k]  # the k best, unordered ...
    return top[np.argsort(-scores[top], kind="stable")]  # ... then ordered by score


def agreement_table(questions: Sequence[str], reference: Searcher, others: Mapping[str, Searcher]) -> pd.DataFrame:
    """Per searcher, the share of questions whose top-k equals the reference's: as lists, as sets, up to score ties."""
    expected = [reference(q) for q in questions]
    rows = []
    for name, search in others.items():
        pairs = list(zip([search(q) for q in questions], expected, strict=True))
        rows.append({
            "searcher": name,
            "questions": len(questions),
            "identical top-k lists": np.mean([[i for i, _ in g] == [i for i, _ in e] for g, e in pairs]),
            "same top-k sets": np.mean([{i for i, _ in g} == {i for i, _ in e} for g, e in pairs]),
            "identical up to ties": np.mean([_same_scores(g, e) for g, e in pairs]),
        })  # fmt: skip
    return pd.DataFrame(rows).set_index("searcher").round(3)


def _same_scores(got: list[tuple[str, float]], expected: list[tuple[str, float]]) -> bool:
    """Whether two rankings have the same length and the same score at every rank."""
    return len(got) == len(expected) and bool(np.allclose([s for _, s in got], [s for _, s in expected], atol=1e-5))


def latency_ms(function: Callable[[str], object], inputs: Sequence[str], warmup: int = 3) -> dict[str, float]:
    """p50, p95 and mean of `function(x)` in milliseconds over `inputs` (a few warm-up calls first)."""
    for x in inputs[:warmup]:
        function(x)
    times = []
    for x in inputs:
        start = time.perf_counter()
        function(x)
        times.append((time.perf_counter() - start) * 1000)
    p50, p95 = np.percentile(times, [50, 95])
    return {"p50 ms": float(p50), "p95 ms": float(p95), "mean ms": float(np.mean(times))}


def latency_table(functions: Mapping[str, Callable[[str], object]], inputs: Sequence[str]) -> pd.DataFrame:
    """One row of p50/p95/mean milliseconds per named function."""
    return pd.DataFrame({name: latency_ms(f, inputs) for name, f in functions.items()}).T.round(2)


def local_write_rate(folder: Path, points: int = 2000, dimension: int = 384, fast_writes: bool = True) -> float:
    """Points per second upserted into a new embedded collection in `folder`, with or without WAL mode."""
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((points, dimension)).astype(np.float32)
    client = QdrantClient(path=str(folder))
    try:
        config = models.VectorParams(size=dimension, distance=models.Distance.COSINE)
        client.create_collection("timed", vectors_config=config)
        if fast_writes:
            enable_fast_local_writes(client, "timed")
        start = time.perf_counter()
        for first in range(0, points, 256):
            batch = range(first, min(first + 256, points))
            client.upsert("timed", [models.PointStruct(id=i, vector=vectors[i].tolist(), payload={}) for i in batch])
        return points / (time.perf_counter() - start)
    finally:
        client.close()


def write_speed_table(folder: Path, points: int = 500, dimension: int = 384) -> pd.DataFrame:
    """Embedded upsert speed with SQLite's default journal and with WAL mode, on the same synthetic points."""
    rates = {
        "default journal (a synced commit per point)": local_write_rate(folder / "default", points, dimension, False),
        "WAL mode (enable_fast_local_writes)": local_write_rate(folder / "wal", points, dimension, True),
    }
    table = pd.DataFrame({"points": points, "points/s": rates}).round(0)
    table["speed-up"] = (table["points/s"] / table["points/s"].iloc[0]).round(1)
    return table


def ingest_runs(pipeline: Any, runs: Sequence[str] = ("cold", "warm")) -> pd.DataFrame:
    """Run `pipeline.ingest()` once per name in `runs`; one row each: counts, seconds per stage, embeddings computed."""
    rows = {}
    for run in runs:
        computed = pipeline.embedder.stats["computed"]
        report = pipeline.ingest(progress=False)
        rows[run] = {
            "chunks": report.chunks,
            "written": report.written,
            "unchanged": report.unchanged,
            "removed": report.removed_stale + report.removed_chunks,  # stale chunks, and those of files gone
            "points after": report.points,
            "embeddings computed": pipeline.embedder.stats["computed"] - computed,
            **{f"{stage} s": round(seconds, 2) for stage, seconds in report.timings.items()},
            "total s": round(report.seconds, 2),
        }
    return pd.DataFrame.from_dict(rows, orient="index")
