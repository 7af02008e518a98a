"""Hybrid search with BM25 in the kernel (bm25s over every chunk) against BM25 inside Qdrant (sparse vectors).

What it does: for each size and embedded backend, a fresh process builds a collection of synthetic chunks through
`KitStore` with the kit's BM25 keywords (so each point holds its dense and its sparse vector): the dense vectors are
the clustered 384-d unit vectors of `bench/store_scale.py` (random: the dense ranking means nothing, its timing
does), the texts are drawn from a Zipf-distributed vocabulary of made-up words, about 70 tokens each, so BM25 sees
document frequencies of a real corpus's shape. Then one fresh process per path opens the folder and measures:
- `kernel` (bm25_backend "kernel": before BM25 moved into the store; "auto" still picks it in local mode):
  start = `make_retriever("hybrid")`, which scrolls every chunk out of Qdrant and fits bm25s; the resident memory
  that adds; p50/p95 of the weighted hybrid and of hybrid_rrf;
- `store` (bm25_backend "store"; "auto" picks it on qdrant-edge and a server): start = the same call, which only
  checks that every chunk has its vector; memory; p50/p95 of the weighted hybrid (one batch of two queries) and of
  hybrid_rrf (one Query API call, fused by Qdrant);
- `saved` (local mode only; what "auto" does there now): the bm25s index the build saved beside the collection, as
  an ingest does (`save_s`), loaded instead of fitted; the `kernel` row is the same call with no saved index.
Queries are a few words of a stored chunk, one at a time, the query embedding left out (a fixed vector per query),
top 4 from 50 candidates per side as the kit's defaults; a path whose queries are slow is timed on as many of the
40 as fit two minutes (at least 5; the row says how many). The share of queries whose top 4 is the same on both paths
is reported. Backends: `local` (qdrant-client's local mode on a folder, as the kit opens it) and `edge` (qdrant-edge).
What it leaves out: a Qdrant server (none can run here), the query embedding, HNSW, several kernels at once.

    nice -n 19 .venv/bin/python -m bench.store_hybrid [--smoke] [--chunks 14000] [--backends local,edge]
        [--paths kernel,store,saved] [--name store_hybrid]
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import Record, arguments, latency, load_average
from bench.store_scale import dataset, queries, rss_mb, run_fresh

CHUNKS, SMOKE_CHUNKS = 14_000, 2_000
BACKENDS = ("local", "edge")
PATHS = ("kernel", "store", "saved")
VOCABULARY, ZIPF_S, MEAN_TOKENS = 30_000, 1.1, 70
QUERY_COUNT, QUERY_WORDS, TOP_K = 40, 4, 4
QUERY_BUDGET_S = 120.0  # per retriever: a slow path (local mode's Python sparse search at 300k) is timed on fewer
SOURCES = ("pdf", "html", "markdown", "email", "schedule")


# -- the data: the same in every process (seeded) --------------------------------------------------------------
def word(i: int) -> str:
    """The i-th made-up word: letters only, so the kit's tokenizer keeps it whole."""
    letters = ""
    i += 26 * 27  # at least three letters
    while i:
        i, r = divmod(i, 26)
        letters += "abcdefghijklmnopqrstuvwxyz"[r]
    return letters


def texts(n: int) -> list[str]:
    """n chunk texts: Zipf-distributed words, lengths around MEAN_TOKENS."""
    rng = np.random.default_rng(7)
    ranks = np.arange(1, VOCABULARY + 1)
    p = ranks**-ZIPF_S / np.sum(ranks**-ZIPF_S)
    lengths = np.clip(rng.normal(MEAN_TOKENS, 20, n).astype(int), 10, 180)
    words = [word(i) for i in range(VOCABULARY)]
    return [" ".join(words[w] for w in rng.choice(VOCABULARY, size=length, p=p)) for length in lengths]


def query_texts(chunk_texts: list[str]) -> list[str]:
    """Questions made of a few words of stored chunks."""
    rng = np.random.default_rng(3)
    picked = [chunk_texts[i].split() for i in rng.integers(0, len(chunk_texts), QUERY_COUNT)]
    return [" ".join(rng.choice(words, size=min(QUERY_WORDS, len(words)), replace=False)) for words in picked]


class FixedEmbedder:
    """Each benchmark question embeds to its own precomputed vector (the embedding is not what is timed)."""

    def __init__(self, vectors: dict[str, list[float]], dimension: int) -> None:
        self.vectors, self.dimension = vectors, dimension

    def embed_query(self, query: str) -> list[float]:
        return self.vectors[query]


def open_client(backend: str, folder: Path) -> Any:
    from helpers.store import open_edge_folder, open_folder

    return open_edge_folder(folder) if backend == "edge" else open_folder(folder)


# -- one process per phase ----------------------------------------------------------------------------------------
def build_phase(backend: str, n: int, folder: Path) -> dict[str, Any]:
    """Write n chunks with their dense and BM25 vectors through KitStore."""
    from llama_index.core.schema import TextNode

    from helpers.config import RetrievalSettings
    from helpers.retrieval import store_keywords
    from helpers.store import KitStore

    x, codes, _ = dataset(n)
    chunk_texts = texts(n)
    start = time.perf_counter()
    store = KitStore(open_client(backend, folder), "bench", x.shape[1], keywords=store_keywords(RetrievalSettings()))
    nodes = []
    for i, (text, vector, code) in enumerate(zip(chunk_texts, x, codes, strict=True)):
        source = f"doc{i // 20}.{SOURCES[int(code)]}"
        node = TextNode(text=text, id_=str(uuid.uuid5(uuid.NAMESPACE_URL, f"kit-bench/{i}")), metadata={
            "source": source, "doc_type": SOURCES[int(code)]})  # fmt: skip
        node.embedding = vector.tolist()
        nodes.append(node)
    counts = store.upsert_nodes(nodes)
    out = {"build_s": round(time.perf_counter() - start, 2), **counts, "points": store.count()}
    out["avgdl"] = round(store.bm25.record()["avgdl"], 2)
    if backend == "local":  # as an ingest into local mode does: the fitted bm25s index saved beside the collection
        from helpers.retrieval import save_bm25_beside

        start = time.perf_counter()
        save_bm25_beside(store)
        out["save_s"] = round(time.perf_counter() - start, 2)
    store.client.close()
    return out


def search_phase(backend: str, n: int, folder: Path, path: str) -> dict[str, Any]:
    """Open the folder, build the hybrid retrievers of one path (start time, memory), time their queries."""
    from helpers.config import RetrievalSettings
    from helpers.retrieval import make_retriever
    from helpers.store import KitStore

    x, _, _ = dataset(n)
    asked = query_texts(texts(n))
    embedder = FixedEmbedder(dict(zip(asked, queries(x)[: len(asked)].tolist(), strict=True)), x.shape[1])
    settings = RetrievalSettings(bm25_backend="kernel" if path == "saved" else path, query_expansion=False)
    if path == "kernel":  # BM25 fitted on every chunk read from the store, as before an index was saved beside it
        from helpers.retrieval import SavedBM25

        SavedBM25.beside = classmethod(lambda cls, *args, **kwargs: None)  # type: ignore[method-assign]
    base = rss_mb()
    start = time.perf_counter()
    store = KitStore(open_client(backend, folder), "bench", x.shape[1])
    opened = time.perf_counter()
    rss_open = rss_mb()
    hybrid = make_retriever("hybrid", store, embedder, settings)  # type: ignore[arg-type]
    started = time.perf_counter()
    bm25 = getattr(hybrid, "sparse", None)
    rrf_params = {"bm25": bm25} if path != "store" else {}  # the kernel's bm25s, reused as the app does
    rrf = make_retriever("hybrid_rrf", store, embedder, settings, **rrf_params)  # type: ignore[arg-type]
    out: dict[str, Any] = {
        "open_s": round(opened - start, 3),
        "start_s": round(started - opened, 3),
        "rss_mb_open": rss_open - base,
        "rss_mb_started": rss_mb() - base,
        "retriever": type(hybrid).__name__,
    }
    found: dict[str, list[str]] = {}

    def ask(query: str) -> None:
        found[query] = [h.node_id for h in hybrid.retrieve(query, TOP_K)]

    out["hybrid"] = timed_within_budget(ask, asked)
    out["hybrid_rrf"] = timed_within_budget(lambda query: rrf.retrieve(query, TOP_K), asked)
    out["answers"] = [found[q] for q in asked if q in found]
    store.client.close()
    return out


def timed_within_budget(function: Any, asked: list[str], budget_s: float = QUERY_BUDGET_S) -> dict[str, float]:
    """`latency` over the first queries that fit the budget (at least 5): one untimed call sizes the sample."""
    start = time.perf_counter()
    function(asked[0])
    first = time.perf_counter() - start
    count = min(len(asked), max(5, int(budget_s / max(first, 1e-6))))
    return {**latency(function, asked[:count]), "queries": count}


def run_phase(phase: str, backend: str, n: int, folder: str, *rest: str) -> dict[str, Any]:
    """One phase by name (what a child process runs)."""
    function = {"build": build_phase, "search": search_phase}[phase]
    return function(backend, n, Path(folder), *rest)


def child(phase: str, backend: str, n: int, folder: Path, *rest: str) -> dict[str, Any]:
    """Run one phase in a fresh interpreter; its JSON."""
    code = (
        "import json, sys; from bench.store_hybrid import run_phase; "
        "print('RESULT' + json.dumps(run_phase(*json.loads(sys.argv[1]))))"
    )
    return run_fresh(code, json.dumps([phase, backend, n, str(folder), *rest]))


def measure(backend: str, n: int, root: Path, paths: tuple[str, ...] = PATHS) -> dict[str, Any]:
    """Build one backend at one size, then time each path in its own process."""
    folder = root / f"{backend}-{n}"
    row: dict[str, Any] = {"backend": backend, "chunks": n, "load_average": load_average()}
    row["build"] = child("build", backend, n, folder)
    if "error" not in row["build"]:
        for path in paths:
            if path != "saved" or backend == "local":
                row[path] = child("search", backend, n, folder, path)
        answers = {path: row[path].pop("answers", None) for path in PATHS if path in row}
        for other, key in (("store", "same_top4"), ("saved", "saved_same_top4")):
            kernel, found = answers.get("kernel"), answers.get(other)
            if kernel and found:
                compared = min(len(kernel), len(found))  # the queries both paths were timed on
                row[key] = round(sum(a == b for a, b in zip(kernel, found, strict=False)) / compared, 3)
                row[f"{key}_of"] = compared
    shutil.rmtree(folder, ignore_errors=True)
    print(json.dumps(row), flush=True)
    return row


def main() -> None:
    def extra(parser: Any) -> None:
        parser.add_argument("--chunks", default="", help=f"comma-separated sizes (default {CHUNKS})")
        parser.add_argument("--backends", default=",".join(BACKENDS))
        parser.add_argument("--paths", default=",".join(PATHS), help="kernel, store, saved (local mode only)")
        parser.add_argument("--name", default="store_hybrid", help="results file name")

    args = arguments(__doc__.splitlines()[0], extra)
    sizes = [int(s) for s in args.chunks.split(",") if s] or [SMOKE_CHUNKS if args.smoke else CHUNKS]
    record = Record(args.name, args.out, args.smoke)
    from helpers.config import RetrievalSettings

    defaults = RetrievalSettings()
    record["settings"] = {"top_k": TOP_K, "pool": defaults.hybrid_pool, "alpha": defaults.hybrid_alpha,
                          "queries": QUERY_COUNT, "vocabulary": VOCABULARY, "zipf_s": ZIPF_S}  # fmt: skip
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="kit-bench-hybrid-") as root:
        for n in sizes:
            for backend in [b for b in args.backends.split(",") if b]:
                rows.append(measure(backend, n, Path(root), tuple(p for p in args.paths.split(",") if p)))
                record["rows"] = rows
                record.save()  # after each measurement: a long run keeps what it measured


if __name__ == "__main__":
    main()
