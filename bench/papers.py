"""The paper collection (207 research PDFs): ingest with progress and resume, retrieval and answers at that size,
on the default store (qdrant-client local mode) and on qdrant-edge.

What it does (`python -m bench.papers`), each step in a fresh interpreter, the caches of the kit as they are:
1. floors, measured in the same run: the folder's chunks (parsed through the kit's parse cache, default chunking);
   the default embedder's bare rate (no cache) on an evenly spaced sample of them, which gives the embed floor of
   every chunk; a bare upsert of as many points (unit vectors, a payload of the chunks' mean length) straight into
   each backend's engine (local mode on a folder with WAL, as the kit; one qdrant-edge shard): the store floor.
2. ingest, per backend (`local`, the default; `edge` = KIT_STORE_BACKEND=edge): `RAGPipeline.ingest` on
   `folder_settings(folder)` (what `helpers.byod.ingest_folder` runs) into a new KIT_DATA_DIR, with its progress
   bars; parses come from the kit's parse cache, the embeddings go into an empty embedding cache of their own (each
   computed, as on a first ingest). Seconds per stage (parse, chunk, embed, store) beside the floors, chunks, MB of
   PDF, peak memory. Then the same ingest again in a new process, the way an interrupted one is resumed: it must
   write nothing and leave the point count as it was.
3. retrieval, per backend, in a fresh interpreter: start = open the pipeline and run the first query (embedder
   load; for local mode the scroll and BM25 fit in the kernel) and the memory that adds; then every question of both
   splits with the default settings: answer in the reader's context (the reference answer inside the passages left
   after the token budget, as `bench.realworld`), evidence paper in the top k, p50/p95 ms of the configured retriever
   (the weighted hybrid), and the share of questions whose top k is the same on both backends.
4. answers, the default backend only: the default pipeline and reader answer every question of both splits
   (unanswerable ones included) in short-answer mode through the kit's answer cache, each row saying whether it
   came from it: SQuAD EM/F1 of the answerable, refusals, seconds per answer (p50/p95 of those computed in this
   run), prompt tokens; dev and test apart.
Writes bench/results/papers.json (after each stage, each stamped with its date and load; the ingest rows with the
process's CPU seconds, so a paused or starved run shows) and papers_answers.csv (one row per answer). `--merge`
keeps the stages not run now from the existing papers.json (`kept_from` names their run).
What it leaves out: the cold parse (the parse cache serves it; the first one is kept as a note), a Qdrant server,
the reranker, LLM judges; a qdrant-edge floor without the BM25 vectors the kit writes beside the dense ones.

    nice -n 19 .venv/bin/python -m bench.papers [--smoke] [--backends local,edge] [--stages ingest,retrieval,answers]
        [--merge]
"""

from __future__ import annotations

import json
import math
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.common import REPO_ROOT, Record, arguments, ratio

BACKENDS = ("local", "edge")
STAGES = ("ingest", "retrieval", "answers")
SAMPLE, SMOKE_SAMPLE = 256, 32  # chunks the bare embedder rate is measured on
SMOKE_QUESTIONS = 3  # the first answerable dev questions; the smoke folder holds their papers only
BATCH = 256  # points per bare upsert
MARK = "PAPERS-RESULT "
REFUSED = ("refused", "no_context")
COLD_PARSE_NOTE = (
    "The folder's first (cold) parse: 207 files, 1,790 pages, 6.9 M characters in about 31 min of wall time at nice 19"
    " while a benchmark held both cores (~1,800 s; course_data/papers/README.md); again 1,383 s on 2026-11-27 at nice"
    " 19 beside another job, after a parser change had invalidated the cache. Parses come from the kit's cache."
)
THREADS = {"OMP_WAIT_POLICY": "PASSIVE", "OPENBLAS_NUM_THREADS": "1"}  # as `python -m bench` sets them


# -- in the child processes ---------------------------------------------------------------------------------------
def rss_mb() -> float:
    import psutil

    return round(psutil.Process().memory_info().rss / 1e6)


def peak_rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3)


def folder_pipeline(folder: str) -> Any:
    """The kit's pipeline over the folder's own collection (settings from the environment: data dir, backend)."""
    from helpers.byod.ingest import folder_settings
    from helpers.config import get_settings
    from helpers.pipeline import RAGPipeline

    return RAGPipeline(folder_settings(folder, get_settings()))


def bare_upsert_s(backend: str, points: int, text_chars: int, dimension: int = 384) -> float:
    """Seconds to upsert `points` random unit vectors with a `text_chars` payload into a new collection of the
    backend's engine, without the kit: local mode on a folder (WAL, as the kit opens it) or one qdrant-edge shard."""
    import numpy as np

    vectors = np.random.default_rng(0).standard_normal((points, dimension)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    ids = [str(uuid.uuid5(uuid.NAMESPACE_URL, f"kit-bench-papers/{i}")) for i in range(points)]
    text = "x" * text_chars
    with tempfile.TemporaryDirectory(prefix="kit-bench-upsert-") as folder:
        start = time.perf_counter()
        if backend == "edge":
            import qdrant_edge as qe

            config = qe.EdgeConfig(vectors=qe.EdgeVectorParams(size=dimension, distance=qe.Distance.Cosine))
            shard = qe.EdgeShard.create(folder, config)
            for first in range(0, points, BATCH):
                batch = range(first, min(first + BATCH, points))
                shard.update(qe.UpdateOperation.upsert_points([
                    qe.Point(ids[i], vectors[i].tolist(), {"source": f"doc{i % 200}.pdf", "text": text})
                    for i in batch]))  # fmt: skip
            shard.flush()
            seconds = time.perf_counter() - start
            shard.close()
        else:
            from qdrant_client import QdrantClient, models

            from helpers.store.client import enable_fast_local_writes

            client = QdrantClient(path=folder)
            config = models.VectorParams(size=dimension, distance=models.Distance.COSINE)
            client.create_collection("bare", vectors_config=config)
            enable_fast_local_writes(client, "bare")
            for first in range(0, points, BATCH):
                batch = range(first, min(first + BATCH, points))
                client.upsert("bare", [models.PointStruct(id=ids[i], vector=vectors[i].tolist(), payload={
                    "source": f"doc{i % 200}.pdf", "text": text}) for i in batch])  # fmt: skip
            seconds = time.perf_counter() - start
            client.close()
    return round(seconds, 2)


def floors_phase(folder: str, sample: int, backends: Sequence[str]) -> dict[str, Any]:
    """The folder's chunks; the default embedder's bare chunks/s on a sample; a bare upsert per backend."""
    from helpers.chunking import chunk_for_settings
    from helpers.embedding import Embedder
    from helpers.parsing import parse_folder

    settings = folder_pipeline(folder).settings
    start = time.perf_counter()
    parsed = parse_folder(folder, progress=False, cache_dir=settings.paths.cache_dir)
    parsed_s = time.perf_counter() - start
    nodes = chunk_for_settings(parsed.documents, settings.chunking)
    texts = [node.get_content(metadata_mode="embed") for node in nodes]
    picked = texts[:: max(1, len(texts) // sample)][:sample]
    embedder = Embedder(settings, use_cache=False, shipped_dir=None)
    embedder.load()
    embedder.embed_texts(picked[:4])  # the first run of the model is not its rate
    best = float("inf")
    for _ in range(2):
        start = time.perf_counter()
        embedder.embed_texts(picked)
        best = min(best, time.perf_counter() - start)
    rate = len(picked) / best
    text_chars = round(sum(len(node.get_content()) for node in nodes) / max(len(nodes), 1))
    upserts = {backend: bare_upsert_s(backend, len(nodes), text_chars) for backend in backends}
    return {
        "documents": len(parsed.documents), "skipped": len(parsed.skipped), "chunks": len(nodes),
        "parse_s": round(parsed_s, 2), "text_mb": round(sum(len(d.text.encode()) for d in parsed.documents) / 1e6, 2),
        "mean_chunk_chars": text_chars, "embedder": embedder.model_id, "embed_sample": len(picked),
        "embed_chunks_per_s": round(rate, 1), "embed_floor_s": round(len(nodes) / rate, 1),
        "upsert_s": upserts,
    }  # fmt: skip


def ingest_phase(folder: str, embeddings: str) -> dict[str, Any]:
    """One ingest of the folder with progress, embeddings cached in `embeddings` (an empty file the first time)."""
    start = time.perf_counter()
    from helpers.byod.ingest import store_advice
    from helpers.embedding.cache import EmbeddingCache

    pipeline = folder_pipeline(folder)
    pipeline.embedder.cache = EmbeddingCache(Path(embeddings))
    imported = time.perf_counter()
    cpu = os.times()
    report = pipeline.ingest(Path(folder), progress=True)
    done = time.perf_counter()
    cpu_s = sum(os.times()[:2]) - sum(cpu[:2])  # beside ingest_s: a process paused (stopped, starved) shows here
    settings = pipeline.settings
    result = {
        "store_backend": settings.store.store_backend, "bm25_in_store": pipeline.store.keywords is not None,
        "collection": settings.store.collection, "files": report.files, "documents": report.documents,
        "chunks": report.chunks, "written": report.written, "unchanged": report.unchanged,
        "removed_stale": report.removed_stale, "removed_files": report.removed_files,
        "removed_chunks": report.removed_chunks, "points": report.points, "skipped": len(report.skipped),
        "stages_s": {k: round(v, 2) for k, v in report.timings.items()},
        "ingest_s": round(report.seconds, 2), "cpu_s": round(cpu_s, 1), "import_s": round(imported - start, 2),
        "process_s": round(done - start, 2), "embeddings": dict(pipeline.embedder.stats),
        "advice": store_advice(report.points, settings),
    }  # fmt: skip
    pipeline.close()
    result["peak_rss_mb"] = peak_rss_mb()
    files = [f for f in Path(settings.paths.data_dir).rglob("*") if f.is_file()]
    result["disk_mb"] = round(sum(f.stat().st_blocks * 512 for f in files) / 1e6, 1)  # allocated, not apparent size
    return result


def questions_of(ids: Sequence[str]) -> list[Any]:
    """The collection's questions with these ids, in this order."""
    from helpers.corpus.pinned import PAPERS

    found = {question.id: question for question in PAPERS.load()}
    return [found[i] for i in ids]


def is_answerable(question: Any) -> bool:
    return question.answerable and question.category != "unanswerable"


def retrieval_phase(folder: str, ids: Sequence[str]) -> dict[str, Any]:
    """Start (open + first query) and memory in this fresh process; then every question: context, evidence, ms."""
    start = time.perf_counter()
    from helpers.chunking import count_tokens
    from helpers.evaluation.two_corpora import reader_passages
    from helpers.generation import check_input
    from helpers.metrics.answer_relevance import contains_answer

    questions = questions_of(ids)
    imported = time.perf_counter()
    base = rss_mb()
    pipeline = folder_pipeline(folder)
    pipeline.retrieve(check_input(questions[0].question).question)
    started = time.perf_counter()
    rss = rss_mb()
    settings = pipeline.settings
    rows = []
    for question in questions:
        cleaned = check_input(question.question).question
        before = time.perf_counter()
        hits = pipeline.retriever.retrieve(cleaned, settings.retrieval.top_k)
        ms = 1000 * (time.perf_counter() - before)
        used = reader_passages(pipeline, question.question, hits)
        answerable = is_answerable(question)
        rows.append({
            "id": question.id, "split": question.split, "answerable": answerable, "ms": round(ms, 2),
            "answer_in_context": any(contains_answer(h.text, question.answers) for h in used) if answerable else None,
            "evidence_in_top_k": any(h.source in question.evidence_docs for h in hits) if answerable else None,
            "evidence_in_context": any(h.source in question.evidence_docs for h in used) if answerable else None,
            "context_tokens": sum(count_tokens(h.text) for h in used), "passages": len(used),
            "top_k": [h.node_id for h in hits],
        })  # fmt: skip
    out = {
        "store_backend": settings.store.store_backend, "bm25_in_store": pipeline.store.keywords is not None,
        "retriever": settings.retrieval.retriever, "retriever_class": type(pipeline.retriever).__name__,
        "top_k": settings.retrieval.top_k, "context_tokens_budget": settings.generation.context_tokens,
        "points": pipeline.store.count(),
        "import_s": round(imported - start, 2), "start_s": round(started - imported, 2),
        "rss_mb": rss, "rss_mb_added": rss - base, "rows": rows,
    }  # fmt: skip
    pipeline.close()
    return out


def answers_phase(folder: str, ids: Sequence[str]) -> dict[str, Any]:
    """The default pipeline's short answers to every question, scored; indexes the folder first if it is empty."""
    from helpers.generation.scores import score_answer
    from helpers.metrics.answer_relevance import contains_answer

    pipeline = folder_pipeline(folder)
    if pipeline.store.count() == 0:  # `--stages answers` alone: build the index (parses and vectors are cached)
        pipeline.ingest(Path(folder), progress=True)
    rows = []
    for question in questions_of(ids):
        start = time.perf_counter()
        answer = pipeline.ask(question.question, mode="short")
        wall = time.perf_counter() - start
        row = score_answer(question, answer)
        row.update(split=question.split, wall_s=round(wall, 2), refused=answer.status in REFUSED,
                   in_context=any(contains_answer(h.text, question.answers) for h in answer.hits)
                   if is_answerable(question) else None)  # fmt: skip
        rows.append(row)
        how = "cached" if answer.cached else "computed"
        print(f"{question.id} ({question.split}) {answer.status}, f1 {row['f1']}, {wall:.1f} s, {how}: "
              f"{answer.text[:80]!r}", file=sys.stderr, flush=True)  # fmt: skip
    settings = pipeline.settings
    out = {"model": settings.llm.name, "mode": "short", "store_backend": settings.store.store_backend, "rows": rows}
    pipeline.close()
    return out


PHASES = {"floors": floors_phase, "ingest": ingest_phase, "retrieval": retrieval_phase, "answers": answers_phase}


def run_phase(name: str, *args: Any) -> dict[str, Any]:
    """One phase by name (what a child process runs)."""
    return PHASES[name](*args)


# -- in the parent -------------------------------------------------------------------------------------------------
def child(phase: str, env: dict[str, str], *args: Any) -> dict[str, Any]:
    """Run one phase in a fresh interpreter with `env`, its progress (stderr) passed through; its JSON or error."""
    code = (f"import json, sys; from bench.papers import run_phase; "
            f"print({MARK!r} + json.dumps(run_phase(*json.loads(sys.argv[1]))), flush=True)")  # fmt: skip
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-c", code, json.dumps([phase, *args])], cwd=REPO_ROOT, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    tail = bytearray()

    def forward() -> None:
        assert process.stderr is not None
        while chunk := os.read(process.stderr.fileno(), 4096):
            sys.stderr.buffer.write(chunk)
            sys.stderr.flush()
            tail.extend(chunk)
            del tail[:-1500]

    reader = threading.Thread(target=forward, daemon=True)
    reader.start()
    assert process.stdout is not None
    stdout = process.stdout.read().decode(errors="replace")
    process.wait()
    reader.join()
    lines = [line for line in stdout.splitlines() if line.startswith(MARK)]
    if process.returncode or not lines:
        return {"error": (bytes(tail).decode(errors="replace") or stdout)[-1500:], "returncode": process.returncode}
    return {**json.loads(lines[-1][len(MARK) :]), "subprocess_s": round(time.perf_counter() - start, 2)}


def stamp() -> dict[str, Any]:
    """When a stage ended and the load it ran under (a stage kept by --merge keeps its own)."""
    from datetime import UTC, datetime

    from bench.common import load_average

    return {"date": datetime.now(UTC).isoformat(timespec="seconds"), "load_average": load_average()}


def backend_env(work: Path, backend: str | None) -> dict[str, str]:
    """The environment of a child: its backend's own data folder (None: the floors' folder, the backend as
    configured); the kit's cache folder as it is."""
    env = {**os.environ, "KIT_DATA_DIR": str(work / (backend or "floors") / "data"), "PYTHONPATH": str(REPO_ROOT),
           "TQDM_MININTERVAL": "10"}  # fmt: skip
    return env | ({"KIT_STORE_BACKEND": backend} if backend else {})


def number(value: Any, digits: int = 3) -> float | None:
    """A rounded float, None for a missing or NaN value (JSON without NaN)."""
    if value is None:
        return None
    value = float(value)
    return None if math.isnan(value) else round(value, digits)


def percentiles(values: Sequence[float], digits: int = 2) -> dict[str, float | None]:
    import numpy as np

    if not len(values):
        return {"p50": None, "p95": None, "mean": None}
    p50, p95 = np.percentile(values, [50, 95])
    return {"p50": number(p50, digits), "p95": number(p95, digits), "mean": number(np.mean(values), digits)}


def smoke_folder(work: Path, questions: Sequence[Any], docs: Path) -> Path:
    """A folder named `docs` holding the papers of `questions` under their own relative paths (the parse cache keys
    on that name)."""
    folder = work / "smoke" / "docs"
    for doc in dict.fromkeys(d for q in questions for d in q.evidence_docs):
        (folder / doc).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(docs / doc, folder / doc)
    return folder


def ingest_stage(record: Record, folder: Path, work: Path, backends: Sequence[str], sample: int) -> None:
    """Floors, then per backend: a first ingest (embeddings computed) and a second one (must write nothing)."""
    floors = child("floors", backend_env(work, None), str(folder), sample, list(backends))
    record["floors"] = floors
    print("floors", json.dumps(floors), flush=True)
    rows = {}
    for backend in backends:
        env, embeddings = backend_env(work, backend), str(work / backend / "embeddings.sqlite")
        first = child("ingest", env, str(folder), embeddings)
        print(f"ingest {backend}", json.dumps(first), flush=True)
        again = child("ingest", env, str(folder), embeddings)
        print(f"ingest {backend} again", json.dumps(again), flush=True)
        row: dict[str, Any] = {"first": first, "again": again}
        if "error" not in first and "error" not in again:
            row["again_writes_nothing"] = again["written"] == 0 and again["points"] == first["points"]
        if "error" not in first and "error" not in floors:
            stages = first["stages_s"]
            embed_floor, store_floor = floors["embed_floor_s"], floors["upsert_s"][backend]
            floor = round(embed_floor + store_floor, 1)
            row["floor_s"] = {"embed": embed_floor, "store": store_floor, "embed + store": floor}
            row["over_floor"] = {
                "embed": ratio(stages["embed"], embed_floor), "store": ratio(stages["store"], store_floor),
                "embed + store": ratio(stages["embed"] + stages["store"], floor),
                "ingest": ratio(first["ingest_s"], floor),
            }  # fmt: skip
            row["chunks_per_s"] = round(first["chunks"] / first["ingest_s"], 1)
        rows[backend] = row
        record["ingest"] = {**rows, "measured": stamp()}
        record.save()


def retrieval_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Shares over the answerable questions, latency over all."""
    answerable = [r for r in rows if r["answerable"]]

    def share(key: str) -> float | None:
        return number(sum(r[key] for r in answerable) / len(answerable)) if answerable else None

    return {"questions": len(rows), "answerable": len(answerable), "answer_in_context": share("answer_in_context"),
            "evidence_in_top_k": share("evidence_in_top_k"), "evidence_in_context": share("evidence_in_context"),
            "context_tokens": number(sum(r["context_tokens"] for r in rows) / len(rows), 1) if rows else None,
            "search_ms": percentiles([r["ms"] for r in rows])}  # fmt: skip


def retrieval_stage(record: Record, folder: Path, work: Path, backends: Sequence[str], ids: list[str]) -> None:
    """Per backend, in a fresh process: start time and memory, then every question."""
    results: dict[str, Any] = {}
    for backend in backends:
        if not (work / backend / "data").exists():  # `--stages retrieval` alone: build the index first (not timed)
            child("ingest", backend_env(work, backend), str(folder), str(work / backend / "embeddings.sqlite"))
        found = child("retrieval", backend_env(work, backend), str(folder), ids)
        if "error" not in found:
            rows = found.pop("rows")
            found["all"] = retrieval_summary(rows)
            for split in ("dev", "test"):
                found[split] = retrieval_summary([r for r in rows if r["split"] == split])
            found["questions"] = [{k: v for k, v in r.items() if k != "top_k"} for r in rows]
            found["_top_k"] = {r["id"]: r["top_k"] for r in rows}
        results[backend] = found
        print(f"retrieval {backend}", json.dumps({k: v for k, v in found.items() if k not in ("questions", "_top_k")}),
              flush=True)  # fmt: skip
    tops = [r.pop("_top_k") for r in results.values() if "_top_k" in r]
    if len(tops) == 2:
        same = [tops[0][i] == tops[1].get(i) for i in tops[0]]
        results["same_top_k_on_both"] = number(sum(same) / len(same))
    record["retrieval"] = {**results, "measured": stamp()}
    record.save()


def answer_summary(frame: Any) -> dict[str, Any]:
    """EM/F1 of the answerable, refusals of both kinds, seconds per answer computed here, prompt tokens."""
    answerable, unanswerable = frame[frame.kind == "answerable"], frame[frame.kind == "unanswerable"]
    computed = frame[frame.llm_called & ~frame.cached]
    called = frame[frame.llm_called]
    return {
        "questions": len(frame), "answerable": len(answerable), "unanswerable": len(unanswerable),
        "EM": number(answerable.em.mean()), "F1": number(answerable.f1.mean()),
        "answer_in_context": number(answerable.in_context.astype(float).mean()),
        "refused_answerable": number(answerable.refused.mean()),
        "refused_unanswerable": number(unanswerable.refused.mean()) if len(unanswerable) else None,
        "cached": int(frame.cached.sum()), "computed": len(computed),
        "s_per_answer": percentiles(computed.wall_s.tolist()),
        "generate_s": percentiles(called.seconds.tolist()),
        "prompt_tokens": number(called.prompt_tokens.mean(), 1) if len(called) else None,
    }  # fmt: skip


def answers_stage(record: Record, out: Path, folder: Path, work: Path, backend: str, ids: list[str]) -> None:
    """The default pipeline answers every question; the rows to papers_answers.csv, the summary per split."""
    import pandas as pd

    found = child("answers", backend_env(work, backend), str(folder), ids)
    if "error" in found:
        record["answers"] = found
        record.save()
        return
    frame = pd.DataFrame(found.pop("rows"))
    frame = frame.assign(corpus="papers", **{"set-up": f"defaults ({backend})"})
    out.mkdir(parents=True, exist_ok=True)
    frame.to_csv(out / "papers_answers.csv", index=False)
    found["all"] = answer_summary(frame)
    for split in ("dev", "test"):
        found[split] = answer_summary(frame[frame.split == split])
    found["csv"] = "papers_answers.csv"
    record["answers"] = {**found, "measured": stamp()}
    print("answers", json.dumps(found), flush=True)
    record.save()


def main() -> int:
    """Measure the stages asked for; write papers.json (and papers_answers.csv)."""

    def options(parser: Any) -> None:
        parser.add_argument("--backends", default=",".join(BACKENDS), help="comma-separated: local, edge")
        parser.add_argument("--stages", default=",".join(STAGES), help="comma-separated: " + ", ".join(STAGES))
        parser.add_argument("--work", type=Path, default=None, help="keep the indexes in this folder (default: temp)")
        parser.add_argument("--merge", action="store_true", help="keep the stages not run now from papers.json")

    args = arguments(__doc__.splitlines()[0], options)
    for key, value in THREADS.items():
        os.environ.setdefault(key, value)
    from helpers.config import get_settings
    from helpers.corpus.pinned import PAPERS

    settings = get_settings()
    if not PAPERS.available(settings):
        print(f"the paper collection is not rebuilt under {PAPERS.docs_dir(settings)}: {PAPERS.rebuild_command}")
        return 1
    backends = [b for b in args.backends.split(",") if b]
    stages = [s for s in args.stages.split(",") if s]
    record = Record("papers", args.out, args.smoke)
    previous = args.out / "papers.json"
    if args.merge and previous.exists():
        kept = json.loads(previous.read_text(encoding="utf-8"))
        for stage in (s for s in STAGES if s not in stages and s in kept):
            record[stage] = kept[stage]
            machine = kept["machine"]
            run = {"date": kept["date"], "commit": kept["commit"], "load_average_start": machine["load_average_start"],
                   "load_average_end": machine["load_average_end"]}  # fmt: skip
            record.data.setdefault("kept_from", {})[stage] = kept.get("kept_from", {}).get(stage, run)
    work = Path(args.work or tempfile.mkdtemp(prefix="kit-bench-papers-"))
    work.mkdir(parents=True, exist_ok=True)
    questions = PAPERS.load()
    if args.smoke:
        questions = [q for q in questions if q.split == "dev" and is_answerable(q)][:SMOKE_QUESTIONS]
        folder = smoke_folder(work, questions, PAPERS.docs_dir(settings))
    else:
        folder = PAPERS.docs_dir(settings)
    pdfs = [p for p in folder.rglob("*.pdf") if p.is_file()]
    ids = [q.id for q in questions]
    record["collection"] = {
        "folder": str(folder), "files": len(pdfs), "pdf_mb": round(sum(p.stat().st_size for p in pdfs) / 1e6, 1),
        "questions": {split: sum(q.split == split for q in questions) for split in ("dev", "test")},
        "unanswerable": sum(not is_answerable(q) for q in questions), "default_backend": settings.store.store_backend,
        "cache_dir": str(settings.paths.cache_dir), "note": COLD_PARSE_NOTE,
    }  # fmt: skip
    record["settings"] = {
        "chunk_strategy": settings.chunking.chunk_strategy, "chunk_size": settings.chunking.chunk_size,
        "retriever": settings.retrieval.retriever, "top_k": settings.retrieval.top_k,
        "context_tokens": settings.generation.context_tokens, "reader": settings.llm.name,
    }  # fmt: skip
    print(json.dumps(record.data["collection"]), flush=True)
    if "ingest" in stages:
        ingest_stage(record, folder, work, backends, SMOKE_SAMPLE if args.smoke else SAMPLE)
    if "retrieval" in stages:
        retrieval_stage(record, folder, work, backends, ids)
    if "answers" in stages:
        answers_stage(record, args.out, folder, work, settings.store.store_backend, ids)
    record.save()
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
