"""Dense search at scale: embedded Qdrant (qdrant-client local mode) against exact numpy brute force.

What it does: for each size (1k, 10k, 100k, 300k random unit vectors, 384-d, seeded) it times
- numpy: `X @ q`, then `argpartition` for the top 10 (exact; the reference, same process);
- embedded Qdrant as the kit creates it: an on-disk folder, cosine distance, WAL mode, batched upserts
  without payload (build time; a build that would pass BUILD_LIMIT_S is stopped and its projected time
  reported, and the search is then measured on an in-memory copy — local mode searches the same numpy
  arrays either way); query latency with `with_payload=False` and `with_payload=True`; reopening the folder
  (what an app pays at start) and the process's RSS;
- the fix found by profiling: local mode's cosine search re-normalises *every stored vector on every query*
  (`qdrant_client/local/distances.py: cosine_similarity`), then sorts all scores with a full `argsort`. The
  kit's vectors are unit length already, so a DOT collection returns the same ranking and scores;
  it is timed too (`qdrant_dot`).
Writes vector_scale.json and vector_scale.png (latency against size, log-log).
What it leaves out: a Qdrant server (HNSW; none can run on the reference machine), filters, recall of ANN.

    .venv/bin/python -m bench.vector_scale [--smoke] [--sizes 1000,10000]
"""

from __future__ import annotations

import cProfile
import gc
import io
import pstats
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.common import Record, arguments, latency, ratio

SIZES = (1_000, 10_000, 100_000, 300_000)
DIMENSION, TOP_K, UPSERT_BATCH = 384, 10, 1024
BUILD_LIMIT_S = 300.0  # a build projected past 5 minutes is stopped and reported as such


def unit_vectors(n: int, seed: int) -> np.ndarray:
    """n random float32 vectors of length 1."""
    x = np.random.default_rng(seed).standard_normal((n, DIMENSION), dtype=np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def rss_mb() -> float:
    """This process's resident memory now, in MB."""
    import psutil

    return round(psutil.Process().memory_info().rss / 1e6)


def numpy_search(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Exact top-k: every score, then the k best, ordered."""
    scores = matrix @ query
    top = np.argpartition(-scores, TOP_K)[:TOP_K]
    return top[np.argsort(-scores[top])]


def build(client, name: str, vectors: np.ndarray, distance, deadline_s: float | None) -> dict[str, object]:
    """Create a collection and upsert `vectors` in batches; stops at `deadline_s` (then `complete` is False)."""
    from qdrant_client import models

    from helpers.store.client import enable_fast_local_writes

    client.create_collection(name, vectors_config=models.VectorParams(size=DIMENSION, distance=distance))
    enable_fast_local_writes(client, name)  # the kit's setting: WAL (no effect in memory)
    start, done = time.perf_counter(), 0
    for first in range(0, len(vectors), UPSERT_BATCH):
        part = vectors[first : first + UPSERT_BATCH]
        client.upsert(name, models.Batch(ids=list(range(first, first + len(part))), vectors=part.tolist()))
        done += len(part)
        elapsed = time.perf_counter() - start
        if deadline_s and done < len(vectors) and elapsed * len(vectors) / done > deadline_s and elapsed > 20:
            projected = round(elapsed * len(vectors) / done)
            return {"complete": False, "points_written": done, "seconds": round(elapsed, 1),
                    "points_per_s": round(done / elapsed), "projected_s": projected}  # fmt: skip
    seconds = time.perf_counter() - start
    return {"complete": True, "points_written": done, "seconds": round(seconds, 2),
            "points_per_s": round(done / seconds)}  # fmt: skip


def qdrant_searcher(client, name: str, with_payload: bool):
    """A function query → top-k ids through qdrant-client's public API."""
    return lambda q: client.query_points(name, query=q.tolist(), limit=TOP_K, with_payload=with_payload).points


def profile_query(client, name: str, queries: np.ndarray) -> str:
    """The top of cProfile's cumulative listing for a few queries (where local mode spends its time)."""
    profiler = cProfile.Profile()
    profiler.enable()
    for q in queries:
        client.query_points(name, query=q.tolist(), limit=TOP_K, with_payload=False)
    profiler.disable()
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(6)
    lines = [line for line in text.getvalue().splitlines() if (line.strip() and "/" in line) or "tottime" in line]
    return "\n".join(line.replace(str(Path(np.__file__).parents[1]) + "/", "") for line in lines[:8])


def measure_size(n: int, queries: np.ndarray, folder: Path, profile: bool) -> dict[str, object]:
    """Everything for one collection size."""
    from qdrant_client import QdrantClient, models

    vectors = unit_vectors(n, seed=n)
    base_rss = rss_mb()
    row: dict[str, object] = {"points": n}
    # 1. the reference: exact numpy search (check it agrees with Qdrant below)
    row["numpy"] = latency(lambda q: numpy_search(vectors, q), list(queries))
    # 2. the kit's embedded store: on disk, cosine, WAL, batched
    client = QdrantClient(path=str(folder / f"n{n}"))
    row["build_on_disk"] = build(client, "bench", vectors, models.Distance.COSINE, BUILD_LIMIT_S)
    if not row["build_on_disk"]["complete"]:
        client.close()
        client = QdrantClient(":memory:")
        row["build_in_memory"] = build(client, "bench", vectors, models.Distance.COSINE, None)
        row["searched_in"] = "memory (the on-disk build was stopped)"
    else:
        row["searched_in"] = "on-disk folder"
    row["rss_mb_collection"] = rss_mb() - base_rss
    search = qdrant_searcher(client, "bench", with_payload=False)
    row["qdrant_cosine"] = latency(search, list(queries))
    payload_search = qdrant_searcher(client, "bench", with_payload=True)
    row["qdrant_cosine_with_payload"] = latency(payload_search, list(queries[:20]))
    expected = [set(numpy_search(vectors, q).tolist()) for q in queries[:5]]
    row["same_top_k_as_numpy"] = all({p.id for p in search(q)} == e for q, e in zip(queries[:5], expected, strict=True))
    if profile:
        row["profile_cosine"] = profile_query(client, "bench", queries[:5])
    client.close()
    del client
    gc.collect()
    # 3. reopening the folder: what the app and every notebook pay to load the collection
    if row["build_on_disk"]["complete"]:
        before, start = rss_mb(), time.perf_counter()
        client = QdrantClient(path=str(folder / f"n{n}"))
        client.count("bench")
        row["reopen_s"] = round(time.perf_counter() - start, 2)
        row["rss_mb_reopened"] = rss_mb() - before
        client.close()
        del client
        gc.collect()
    # 4. the fix: DOT on unit vectors, same ranking without re-normalising the collection per query
    client = QdrantClient(":memory:")
    build(client, "dot", vectors, models.Distance.DOT, None)
    dot = qdrant_searcher(client, "dot", with_payload=False)
    row["qdrant_dot"] = latency(dot, list(queries))
    row["dot_same_top_k_as_numpy"] = all(
        {p.id for p in dot(q)} == e for q, e in zip(queries[:5], expected, strict=True)
    )
    client.close()
    del client
    gc.collect()
    for variant in ("qdrant_cosine", "qdrant_cosine_with_payload", "qdrant_dot"):
        row[f"{variant}_over_numpy_p50"] = ratio(row[variant]["p50_ms"], row["numpy"]["p50_ms"], 1)
    print({k: v for k, v in row.items() if k != "profile_cosine"}, flush=True)
    return row


def plot(rows: list[dict[str, object]], path: Path) -> None:
    """Latency p50 (and p95, dashed) against collection size, log-log."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = [r["points"] for r in rows]
    figure, axes = plt.subplots(figsize=(7, 4.5))
    styles = {"numpy": ("exact numpy X @ q", "C0"), "qdrant_cosine": ("embedded Qdrant, cosine (kit)", "C3"),
              "qdrant_dot": ("embedded Qdrant, dot (unit vectors)", "C1")}  # fmt: skip
    for key, (label, colour) in styles.items():
        axes.plot(sizes, [r[key]["p50_ms"] for r in rows], "o-", color=colour, label=f"{label}, p50")
        axes.plot(sizes, [r[key]["p95_ms"] for r in rows], "--", color=colour, alpha=0.6, label=f"{label}, p95")
    axes.axhline(30, color="grey", linestyle=":", label="30 ms (hybrid budget, course corpus)")
    axes.set(xscale="log", yscale="log", xlabel="vectors in the collection (384-d)", ylabel="query latency (ms)",
             title="Dense top-10 search, one query at a time, same process")  # fmt: skip
    axes.legend(fontsize=7)
    axes.grid(True, which="both", alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


BLAS_PROBE = """
import time, numpy as np
x = np.random.default_rng(0).standard_normal((10000, 384), dtype=np.float32)
times = []
for q in x[:30]:
    start = time.perf_counter(); np.argpartition(-(x @ q), 10)[:10]; times.append(time.perf_counter() - start)
print(round(float(np.median(times)) * 1000, 3))
"""


def blas_thread_probe() -> dict[str, float | None]:
    """numpy search p50 (ms) at 10k in fresh processes: OpenBLAS's default threads vs one thread.

    On a shared, overloaded machine OpenBLAS's spinning threads slow `X @ q` down many times
    over (docs/decisions.md).
    """
    import os
    import subprocess
    import sys

    found = {}
    for label, threads in (("openblas default threads", None), ("OPENBLAS_NUM_THREADS=1", "1")):
        env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
        if threads:
            env["OPENBLAS_NUM_THREADS"] = threads
        out = subprocess.run([sys.executable, "-c", BLAS_PROBE], env=env, capture_output=True, text=True)
        found[label] = float(out.stdout.strip()) if out.returncode == 0 else None
    return found


def main() -> None:
    """Measure every size, plot, write vector_scale.json."""
    args = arguments(__doc__.splitlines()[0], lambda p: p.add_argument("--sizes", default=""))
    import helpers  # noqa: F401

    sizes = [int(s) for s in args.sizes.split(",") if s] or ([1000] if args.smoke else list(SIZES))
    queries = unit_vectors(5 if args.smoke else 50, seed=1)
    record = Record("vector_scale", args.out, args.smoke)
    record["dimension"], record["top_k"], record["upsert_batch"] = DIMENSION, TOP_K, UPSERT_BATCH
    record["queries"] = len(queries)
    if not args.smoke:  # two fresh processes: too slow for the smoke test
        record["numpy_10k_p50_ms_by_blas_threads"] = blas_thread_probe()
        print(record.data["numpy_10k_p50_ms_by_blas_threads"], flush=True)
    rows = []
    with tempfile.TemporaryDirectory(prefix="kit-bench-qdrant-") as folder:
        for n in sizes:
            rows.append(measure_size(n, queries, Path(folder), profile=n == max(sizes)))
            record["rows"] = rows
            record.save()  # after each size: a long run keeps what it measured
    args.out.mkdir(parents=True, exist_ok=True)
    plot(rows, args.out / "vector_scale.png")
    record["plot"] = "vector_scale.png"
    record.save()


if __name__ == "__main__":
    main()
