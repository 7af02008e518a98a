"""Ingest of the course corpus end to end (parse → chunk → embed → upsert): cold, warm, share per stage.

What it does: runs `RAGPipeline.ingest()` in a fresh process three times. First "cold, computed": new
KIT_DATA_DIR and KIT_CACHE_DIR and the shipped course vectors switched off, so every chunk is embedded (what
set-up did before the vectors shipped). Then, in another new pair of folders, "cold" (no parse cache, no
embedding cache, no collection: a fresh machine, the vectors read from `course_data/index`) and "warm"
(everything cached, nothing to write). KIT_LLM_GGUF points at the already joined generator, so
no model is joined. Reports seconds per stage (`IngestReport.timings`), the share of each, the process's
wall time including imports, and the ratios warm/cold and against the budgets (60 s cold, 5 s warm).
What it leaves out: a Qdrant server, and the BM25 fit (done on first search; see `search`).

    .venv/bin/python -m bench.ingest [--smoke]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import REPO_ROOT, Record, arguments, ratio

BUDGET_S = {"cold": 60.0, "warm": 5.0}
MARK = "INGEST-RESULT "


def child(folder: str | None, seeded: bool = True) -> None:
    """One ingest in this process (without the shipped vectors unless `seeded`); prints its numbers as JSON."""
    start = time.perf_counter()
    from helpers.pipeline import RAGPipeline

    pipeline = RAGPipeline()
    if not seeded:
        pipeline.embedder.shipped_dir = None
    imported = time.perf_counter()
    report = pipeline.ingest(Path(folder) if folder else None, progress=False)
    done = time.perf_counter()
    total = sum(report.timings.values())
    result = {
        "files": report.files, "documents": report.documents, "chunks": report.chunks,
        "written": report.written, "unchanged": report.unchanged, "points": report.points,
        "embeddings_computed": pipeline.embedder.stats["computed"],
        "embeddings_seeded": pipeline.embedder.stats["seeded"],
        "stages_s": {k: round(v, 3) for k, v in report.timings.items()},
        "stage_share": {k: round(v / total, 3) for k, v in report.timings.items()},
        "ingest_s": round(report.seconds, 2),
        "import_s": round(imported - start, 2),
        "process_s": round(done - start, 2),
    }  # fmt: skip
    pipeline.close()
    print(MARK + json.dumps(result), flush=True)


def run(env: dict[str, str], folder: str | None, seeded: bool = True) -> dict[str, object]:
    """Run `child` in a fresh interpreter with `env`; its result (or the error)."""
    command = [sys.executable, "-m", "bench.ingest", "--child"] + (["--folder", folder] if folder else [])
    command += [] if seeded else ["--no-seed"]
    start = time.perf_counter()
    out = subprocess.run(command, env=env, cwd=REPO_ROOT, capture_output=True, text=True)
    lines = [line for line in out.stdout.splitlines() if line.startswith(MARK)]
    if out.returncode or not lines:
        return {"error": out.stderr[-800:]}
    return {**json.loads(lines[-1][len(MARK) :]), "subprocess_s": round(time.perf_counter() - start, 2)}


def measure(folder: str | None) -> dict[str, object]:
    """Cold without the shipped vectors in one new data + cache folder; cold, then warm, in another."""
    from helpers.config import get_settings
    from helpers.models import CHUNKED_MODELS

    settings = get_settings()
    joined = settings.paths.cache_dir / "models" / CHUNKED_MODELS[settings.llm.llm_model].filename
    runs = {}
    for names, seeded in ((("cold, computed",), False), (("cold", "warm"), True)):
        with tempfile.TemporaryDirectory(prefix="kit-bench-ingest-") as tmp:
            env = {**os.environ, "KIT_DATA_DIR": f"{tmp}/data", "KIT_CACHE_DIR": f"{tmp}/cache"}
            env["PYTHONPATH"] = str(REPO_ROOT)
            if joined.exists():
                env["KIT_LLM_GGUF"] = str(joined)  # never re-join the 0.5 GB model into the fresh cache
            runs |= {name: run(env, folder, seeded) for name in names}
    for name, result in runs.items():
        print(name, result, flush=True)
        if "ingest_s" in result:
            result["over_budget_ratio"] = ratio(result["ingest_s"], BUDGET_S[name.split(",")[0]])
    computed, cold, warm = (runs[name].get("ingest_s") for name in ("cold, computed", "cold", "warm"))
    return {"corpus": folder or str(settings.paths.corpus_dir), "budget_s": BUDGET_S, **runs,
            "warm_over_cold": ratio(warm, cold, 3), "cold_over_cold_computed": ratio(cold, computed, 3)}  # fmt: skip


def main() -> None:
    """Measure and write ingest.json (or, with --child, do one ingest)."""
    args = arguments(
        __doc__.splitlines()[0],
        lambda p: (
            p.add_argument("--child", action="store_true"),
            p.add_argument("--folder", default=None),
            p.add_argument("--no-seed", action="store_true", help="(child) without the shipped course vectors"),
        ),
    )
    import helpers  # noqa: F401

    if args.child:
        child(args.folder, seeded=not args.no_seed)
        return
    record = Record("ingest", args.out, args.smoke)
    folder = None
    if args.smoke:  # two small Markdown files instead of the corpus
        folder = tempfile.mkdtemp(prefix="kit-bench-docs-")
        for name in ("fees", "capstone"):
            Path(folder, f"{name}.md").write_text(f"# {name}\n\nThe {name} text of the smoke run.\n", encoding="utf-8")
    record.data.update(measure(folder))
    record.save()


if __name__ == "__main__":
    main()
