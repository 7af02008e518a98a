"""The embedded store at scale: qdrant-client local mode and qdrant-edge beside exact numpy, 10k-300k points.

What it does: for each size and backend, a fresh process builds an on-disk store of MiniLM-like vectors
(384-d, unit length, clustered so neighbours have the cosine spread of real chunks) with the kit's payload
fields (`doc_type`, `source`, a 300-character `text`), then times top-10 search one query at a time,
unfiltered and with a payload filter (`doc_type == "email"`, 10 % of the points), checks its top 10 against
numpy's exact one, and upserts the first 1,024 points again by the same ids (the count must not change). A
second fresh process reopens the folder (time and resident memory to the first answer) and runs the same
queries again (the ids must be the ones found before closing: persistence). Every figure stands beside the
floor measured in the same run, exact numpy (`X @ q` on the same vectors; reopening = `np.load` of the matrix
and the payload codes), as a ratio; the load average is recorded with each size.

Backends: `numpy` (the floor), `local` (qdrant-client's embedded mode as the kit opens it: a folder, cosine,
SQLite in WAL mode), `edge` (qdrant-edge-py: Qdrant's Rust engine in-process, one shard, cosine, payload
indexes on the filter fields, no HNSW built: exact search). A local-mode build projected past BUILD_LIMIT_S
is stopped and reported as such.
What it leaves out: HNSW (approximate) search in edge (`EdgeShard.optimize()`), a Qdrant server, concurrency.

    nice -n 10 .venv/bin/python -m bench.store_scale [--smoke] [--sizes 10000,30000] [--backends numpy,edge]
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import Record, arguments, latency, load_average, ratio

SIZES = (10_000, 30_000, 100_000, 300_000)
BACKENDS = ("numpy", "local", "edge")
DIMENSION, TOP_K, BATCH, QUERIES, CLUSTERS = 384, 10, 1024, 40, 400
DOC_TYPES = ("pdf", "html", "markdown", "email", "schedule")  # email is 10 % of the points
DOC_TYPE_WEIGHTS = (0.45, 0.25, 0.15, 0.10, 0.05)
FILTER_TYPE = "email"
BUILD_LIMIT_S = 300.0  # a local-mode build projected past 5 minutes is stopped
WORDS = ("program", "course", "credit", "deadline", "application", "student", "faculty", "thesis", "fee", "term")


# -- the data: the same in every process (seeded) --------------------------------------------------------------
def dataset(n: int) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """n clustered unit vectors, their doc_type codes, their point ids (UUID strings, as the kit's)."""
    rng = np.random.default_rng(17)
    centres = rng.standard_normal((CLUSTERS, DIMENSION), dtype=np.float32)
    rng = np.random.default_rng(n)
    x = centres[rng.integers(0, CLUSTERS, n)] + 1.2 * rng.standard_normal((n, DIMENSION), dtype=np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    codes = rng.choice(len(DOC_TYPES), size=n, p=DOC_TYPE_WEIGHTS).astype(np.int8)
    ids = [str(uuid.uuid5(uuid.NAMESPACE_URL, f"kit-bench/{i}")) for i in range(n)]
    return x, codes, ids


def queries(vectors: np.ndarray) -> np.ndarray:
    """Questions near stored chunks: a stored vector plus noise, unit length."""
    rng = np.random.default_rng(1)
    q = vectors[rng.integers(0, len(vectors), QUERIES)] + 0.8 * rng.standard_normal((QUERIES, DIMENSION),
                                                                                   dtype=np.float32)  # fmt: skip
    return q / np.linalg.norm(q, axis=1, keepdims=True)


def payload(i: int, code: int) -> dict[str, str]:
    """The kit's filter fields plus a chunk-sized text."""
    text = " ".join(WORDS[(i * 7 + j) % len(WORDS)] for j in range(40))[:300]
    return {"doc_type": DOC_TYPES[code], "source": f"doc{i // 20}.{DOC_TYPES[code]}", "text": text}


def query_count(backend: str, n: int) -> int:
    """Fewer queries where one takes seconds (local mode's filtered search at 100k-300k)."""
    if backend == "local" and n >= 100_000:
        return 10 if n >= 300_000 else 20
    return QUERIES


def rss_mb() -> float:
    import psutil

    return round(psutil.Process().memory_info().rss / 1e6)


def numpy_top(matrix: np.ndarray, q: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """Exact top-k row numbers (within `rows` if given)."""
    sub = matrix if rows is None else matrix[rows]
    scores = sub @ q
    top = np.argpartition(-scores, TOP_K)[:TOP_K]
    top = top[np.argsort(-scores[top])]
    return top if rows is None else rows[top]


# -- the backends: open, write, search, count -----------------------------------------------------------------
class NumpyStore:
    """The floor: the matrix and the doc_type codes as .npy files."""

    def __init__(self, folder: Path, create: bool) -> None:
        self.folder = folder
        if not create:
            self.x, self.codes = np.load(folder / "x.npy"), np.load(folder / "codes.npy")

    def write_all(self, x: np.ndarray, codes: np.ndarray, ids: list[str]) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        np.save(self.folder / "x.npy", x)
        np.save(self.folder / "codes.npy", codes)
        self.x, self.codes = x, codes

    def search(self, q: np.ndarray, flt: bool, ids: list[str]) -> list[str]:
        rows = np.flatnonzero(self.codes == DOC_TYPES.index(FILTER_TYPE)) if flt else None
        return [ids[i] for i in numpy_top(self.x, q, rows)]

    def count(self) -> int:
        return len(self.x)

    def close(self) -> None:
        pass


class LocalStore:
    """qdrant-client's embedded mode on a folder, as the kit opens it (cosine, WAL)."""

    def __init__(self, folder: Path, create: bool) -> None:
        from qdrant_client import QdrantClient, models

        self.models = models
        self.client = QdrantClient(path=str(folder))
        if create:
            from helpers.store.client import enable_fast_local_writes

            self.client.create_collection("bench", vectors_config=models.VectorParams(
                size=DIMENSION, distance=models.Distance.COSINE))  # fmt: skip
            enable_fast_local_writes(self.client, "bench")
        condition = models.FieldCondition(key="doc_type", match=models.MatchValue(value=FILTER_TYPE))
        self.filter = models.Filter(must=[condition])

    def write(self, x: np.ndarray, codes: np.ndarray, ids: list[str], first: int) -> None:
        points = [self.models.PointStruct(id=ids[first + j], vector=v.tolist(), payload=payload(first + j, int(c)))
                  for j, (v, c) in enumerate(zip(x, codes, strict=True))]  # fmt: skip
        self.client.upsert("bench", points)

    def search(self, q: np.ndarray, flt: bool, ids: list[str]) -> list[str]:
        found = self.client.query_points("bench", query=q.tolist(), limit=TOP_K, with_payload=True,
                                         query_filter=self.filter if flt else None).points  # fmt: skip
        return [str(p.id) for p in found]

    def count(self) -> int:
        return self.client.count("bench", exact=True).count

    def close(self) -> None:
        self.client.close()


class EdgeStore:
    """qdrant-edge: one shard in the folder, cosine, keyword indexes on the filter fields."""

    def __init__(self, folder: Path, create: bool) -> None:
        import qdrant_edge as qe

        self.qe = qe
        if create:
            config = qe.EdgeConfig(vectors=qe.EdgeVectorParams(size=DIMENSION, distance=qe.Distance.Cosine))
            self.shard = qe.EdgeShard.create(str(folder), config)
            for key in ("doc_type", "source"):
                self.shard.update(qe.UpdateOperation.create_field_index(key, qe.PayloadSchemaType.Keyword))
        else:
            self.shard = qe.EdgeShard.load(str(folder))
        self.filter = qe.Filter(must=[qe.FieldCondition(key="doc_type", match=qe.MatchValue(value=FILTER_TYPE))])

    def write(self, x: np.ndarray, codes: np.ndarray, ids: list[str], first: int) -> None:
        points = [self.qe.Point(ids[first + j], v.tolist(), payload(first + j, int(c)))
                  for j, (v, c) in enumerate(zip(x, codes, strict=True))]  # fmt: skip
        self.shard.update(self.qe.UpdateOperation.upsert_points(points))

    def search(self, q: np.ndarray, flt: bool, ids: list[str]) -> list[str]:
        request = self.qe.QueryRequest(query=self.qe.Query.Nearest(q.tolist()), limit=TOP_K, with_payload=True,
                                       filter=self.filter if flt else None)  # fmt: skip
        return [str(p.id) for p in self.shard.query(request)]

    def count(self) -> int:
        return self.shard.count(self.qe.CountRequest(exact=True))

    def close(self) -> None:
        self.shard.flush()
        self.shard.close()


class EdgeKitStore(LocalStore):
    """qdrant-edge as the kit uses it: `QdrantClient` API over `helpers.store.edge.EdgeLocal` (models converted)."""

    def __init__(self, folder: Path, create: bool) -> None:
        from qdrant_client import models

        from helpers.store import open_edge_folder
        from helpers.store.payload_filters import create_payload_indexes

        self.models = models
        self.client = open_edge_folder(folder)
        if create:
            self.client.create_collection("bench", vectors_config=models.VectorParams(
                size=DIMENSION, distance=models.Distance.COSINE))  # fmt: skip
            create_payload_indexes(self.client, "bench")  # as KitStore does on every engine but local mode
        condition = models.FieldCondition(key="doc_type", match=models.MatchValue(value=FILTER_TYPE))
        self.filter = models.Filter(must=[condition])


STORES = {"numpy": NumpyStore, "local": LocalStore, "edge": EdgeStore, "edge_kit": EdgeKitStore}


# -- one process per (backend, size, phase) ---------------------------------------------------------------------
def build_phase(backend: str, n: int, folder: Path) -> dict[str, Any]:
    """Build, search, check against numpy, upsert again; the answers kept for the reopen phase."""
    x, codes, ids = dataset(n)
    qs = queries(x)
    base = rss_mb()
    out: dict[str, Any] = {"backend": backend, "points": n}
    start = time.perf_counter()
    store = STORES[backend](folder, create=True)
    if backend == "numpy":
        store.write_all(x, codes, ids)
    else:
        for first in range(0, n, BATCH):
            store.write(x[first : first + BATCH], codes[first : first + BATCH], ids, first)
            elapsed = time.perf_counter() - start
            done = min(first + BATCH, n)
            if backend == "local" and done < n and elapsed > 20 and elapsed * n / done > BUILD_LIMIT_S:
                store.close()
                return {**out, "build_complete": False, "build_points": done, "build_s": round(elapsed, 1),
                        "build_projected_s": round(elapsed * n / done)}  # fmt: skip
    if backend == "edge":
        store.shard.flush()  # durable before the build counts as done
    out["build_s"] = round(time.perf_counter() - start, 3)
    out["build_complete"] = True
    out["rss_mb_after_build"] = rss_mb() - base
    qs = qs[: query_count(backend, n)]
    out["queries"] = len(qs)
    exact = {flt: [[ids[i] for i in numpy_top(x, q, np.flatnonzero(codes == 3) if flt else None)] for q in qs]
             for flt in (False, True)}  # fmt: skip
    for flt, key in ((False, "search"), (True, "search_filtered")):
        found: dict[int, list[str]] = {}  # the answers, kept from the timed calls themselves

        def search(i: int, flt: bool = flt, found: dict[int, list[str]] = found) -> None:
            found[i] = store.search(qs[i], flt, ids)

        out[key] = latency(search, list(range(len(qs))))
        answers = [found[i] for i in range(len(qs))]
        out[f"{key}_answers"] = answers
        out[f"{key}_same_top10_as_numpy"] = sum(a == e for a, e in zip(answers, exact[flt], strict=True)) / len(qs)
        if flt:
            out["filtered_all_match"] = all(codes[ids.index(i)] == 3 for i in answers[0])
    count = store.count()
    if backend != "numpy":  # the same ids again: an upsert, not an insert
        store.write(x[:BATCH], codes[:BATCH], ids, 0)
    out["count_before_reupsert"], out["count_after_reupsert"] = count, store.count()
    start = time.perf_counter()
    store.close()
    out["close_s"] = round(time.perf_counter() - start, 3)
    return out


def reopen_phase(backend: str, n: int, folder: Path) -> dict[str, Any]:
    """Open the folder in a fresh process: time and memory to the first answer, then the same queries again."""
    x, _, ids = dataset(n)
    qs = queries(x)
    del x
    if backend != "numpy":  # the library's import is not part of reopening
        __import__({"local": "qdrant_client", "edge": "qdrant_edge", "edge_kit": "helpers.store.edge"}[backend])
    base = rss_mb()
    start = time.perf_counter()
    store = STORES[backend](folder, create=False)
    count = store.count()
    first = store.search(qs[0], False, ids)
    out = {"reopen_s": round(time.perf_counter() - start, 3), "rss_mb_reopened": rss_mb() - base, "count": count}
    qs = qs[: query_count(backend, n)]
    out["answers"] = [first] + [store.search(q, False, ids) for q in qs[1:]]
    out["filtered_answers"] = [store.search(q, True, ids) for q in qs]
    out["disk_mb"] = round(sum(f.stat().st_blocks * 512 for f in folder.rglob("*") if f.is_file()) / 1e6, 1)
    store.close()
    return out


def child(phase: str, backend: str, n: int, folder: Path) -> dict[str, Any]:
    """Run one phase in a fresh interpreter; its JSON."""
    code = (f"import json, sys; from pathlib import Path; from bench.store_scale import {phase}_phase as f; "
            f"print('RESULT' + json.dumps(f({backend!r}, {n}, Path({str(folder)!r}))))")  # fmt: skip
    return run_fresh(code)


def run_fresh(code: str, *args: str) -> dict[str, Any]:
    """Run `code` (which prints 'RESULT' + JSON) in a fresh interpreter with the repository importable; its JSON,
    or {"error": the end of its output} when it failed."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT")]
    if done.returncode or not lines:
        return {"error": (done.stderr or done.stdout)[-800:]}
    return json.loads(lines[-1][len("RESULT") :])


def measure(backend: str, n: int, root: Path) -> dict[str, Any]:
    """Build then reopen one backend at one size; the answers compared, not stored."""
    folder = root / f"{backend}-{n}"
    row = {"load_average": load_average(), **child("build", backend, n, folder)}
    if row.get("build_complete"):
        again = child("reopen", backend, n, folder)
        answers, filtered = row.pop("search_answers"), row.pop("search_filtered_answers")
        row["persisted"] = ("error" not in again and again["count"] == n and again["answers"] == answers
                            and again["filtered_answers"] == filtered)  # fmt: skip
        row.update({k: v for k, v in again.items() if k not in ("answers", "filtered_answers")})
    shutil.rmtree(folder, ignore_errors=True)
    print(json.dumps(row), flush=True)
    return row


def with_ratios(rows: list[dict[str, Any]]) -> None:
    """Each figure over numpy's at the same size (the floor measured in the same run)."""
    floor = {(r.get("run", 1), r["points"]): r for r in rows if r.get("backend") == "numpy" and "error" not in r}
    for row in rows:
        ref = floor.get((row.get("run", 1), row.get("points")))
        if not ref or "error" in row or not row.get("build_complete"):
            continue
        row["over_numpy"] = {
            "search_p50": ratio(row["search"]["p50_ms"], ref["search"]["p50_ms"], 1),
            "search_p95": ratio(row["search"]["p95_ms"], ref["search"]["p95_ms"], 1),
            "filtered_p50": ratio(row["search_filtered"]["p50_ms"], ref["search_filtered"]["p50_ms"], 1),
            "filtered_p95": ratio(row["search_filtered"]["p95_ms"], ref["search_filtered"]["p95_ms"], 1),
            "build": ratio(row["build_s"], ref["build_s"], 0),
            "reopen": ratio(row.get("reopen_s"), ref.get("reopen_s"), 0),
            "rss_reopened": ratio(row.get("rss_mb_reopened"), ref.get("rss_mb_reopened"), 1),
        }


def markdown(data: dict[str, Any]) -> str:
    """The result as a page: one table, every figure beside numpy's, the load with each size."""
    machine = data["machine"]
    lines = [
        "# The embedded store at scale: numpy, qdrant-client local mode, qdrant-edge",
        "",
        f"_{data['date']} · commit {data['commit']} · {machine['cores']} cores, {machine['cpu']} · nice "
        f"{machine['nice']} · load (1 min) {machine['load_average_start'][0]} → "
        f"{machine['load_average_end'][0]} · {data.get('wall_s', '?')} s · qdrant-client "
        f"{data['versions'].get('qdrant-client')}, qdrant-edge-py {data.get('qdrant_edge_version')}_",
        "",
        f"{DIMENSION}-d clustered unit vectors, payload `doc_type`/`source`/`text`; {QUERIES} queries one at a time "
        "(local mode: 20 at 100k, 10 at 300k, after 3 warm-up calls), "
        f'top {TOP_K}; filter `doc_type == "{FILTER_TYPE}"` (10 % of points). Ratios are over exact numpy at the '
        "same size in the same run (×). Build = create + upsert in batches of 1,024 (+ flush); reopen and RSS = a "
        "fresh process to its first answer. `exact` = share of queries whose top 10 equals numpy's, unfiltered / "
        "filtered. `idempotent` = the count after upserting 1,024 points again by the same ids.",
        "",
        "| points | backend | run | load 1 min | p50 ms (×) | p95 ms (×) | filtered p50 ms (×) | filtered p95 ms (×) "
        "| build s (×) | reopen s (×) | RSS MB (×) | exact | persisted | idempotent |",
        "|" + " --- |" * 14,
    ]
    for r in data["rows"]:
        head = f"| {r['points']:,} | {r['backend']} | {r.get('run', 1)} | {r['load_average'][0]} |"
        if "error" in r:
            lines.append(f"{head} error: {r['error'].splitlines()[-1][:120]} |" + " |" * 9)
            continue
        if not r.get("build_complete"):
            lines.append(f"{head} not measured: build stopped at {r['build_points']:,} points after "
                         f"{r['build_s']} s (projected {r['build_projected_s']} s > {BUILD_LIMIT_S:.0f} s) |"
                         + " |" * 9)  # fmt: skip
            continue
        o = r.get("over_numpy", {}) if r["backend"] != "numpy" else {}

        def cell(value: Any, key: str, o: dict[str, Any] = o) -> str:
            return f"{value} ({o[key]}×)" if o.get(key) is not None else f"{value}"

        lines.append(
            f"{head} {cell(r['search']['p50_ms'], 'search_p50')} | {cell(r['search']['p95_ms'], 'search_p95')} | "
            f"{cell(r['search_filtered']['p50_ms'], 'filtered_p50')} | "
            f"{cell(r['search_filtered']['p95_ms'], 'filtered_p95')} | {cell(r['build_s'], 'build')} | "
            f"{cell(r.get('reopen_s'), 'reopen')} | {cell(r.get('rss_mb_reopened'), 'rss_reopened')} | "
            f"{r['search_same_top10_as_numpy']:.2f} / {r['search_filtered_same_top10_as_numpy']:.2f} | "
            f"{'yes' if r.get('persisted') else 'NO'} | "
            f"{r['count_before_reupsert']:,} → {r['count_after_reupsert']:,} |"
        )
    for note in data.get("notes", []):
        lines += ["", note]
    if len(data.get("runs", [])) > 1:
        runs = "; ".join(f"run {r['run']}: {r['date']}" for r in data["runs"])
        lines += ["", f"Runs (each ratio is over the numpy floor of its own run): {runs}."]
    return "\n".join(lines) + "\n"


def main() -> None:
    def extra(parser: Any) -> None:
        parser.add_argument("--sizes", default="")
        parser.add_argument("--backends", default=",".join(BACKENDS))
        parser.add_argument("--add", action="store_true", help="keep the file's rows, add this run's (next run no.)")

    args = arguments(__doc__.splitlines()[0], extra)
    from importlib import metadata

    sizes = [int(s) for s in args.sizes.split(",") if s] or ([2_000] if args.smoke else list(SIZES))
    backends = [b for b in args.backends.split(",") if b]
    if "numpy" not in backends:
        backends.insert(0, "numpy")  # the floor is always measured
    record = Record("store_scale", args.out, args.smoke)
    record["qdrant_edge_version"] = metadata.version("qdrant-edge-py")
    record["dimension"], record["top_k"], record["queries"], record["batch"] = DIMENSION, TOP_K, QUERIES, BATCH
    rows: list[dict[str, Any]] = []
    previous = args.out / "store_scale.json"
    if args.add and previous.exists():  # an earlier run's rows stay, with their own floor, load and date
        old = json.loads(previous.read_text(encoding="utf-8"))
        rows = [{"run": 1, "date": old["date"], **r} for r in old["rows"]]
        record["runs"] = [*old.get("runs", [{"run": 1, "date": old["date"], "machine": old["machine"]}])]
    run = 1 + max((r.get("run", 1) for r in rows), default=0)
    record["runs"] = [*record.data.get("runs", []), {"run": run, "date": record.data["date"]}]
    with tempfile.TemporaryDirectory(prefix="kit-bench-store-") as root:
        for n in sizes:
            for backend in backends:
                rows.append({"run": run, **measure(backend, n, Path(root))})
                with_ratios(rows)
                record["rows"] = rows
                record.save()  # after each measurement: a long run keeps what it measured
    record.save()
    (args.out / "store_scale.md").write_text(markdown(record.data), encoding="utf-8")
    print(f"wrote {args.out / 'store_scale.md'}")


if __name__ == "__main__":
    main()
