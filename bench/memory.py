"""Memory: peak RSS of the app's process with the course index loaded, against the models alone.

What it does: builds the course index in its own data folder (a first child process, so ingestion's memory
does not count), then in a fresh process does what notebook 09 does — `AppEngine()`, the warm-up (embedder,
index, BM25, language model primed), one question answered by the model (answer cache bypassed) — and
reads the peak resident set size (`ru_maxrss`) and the RSS after each step. The reference, measured in the
same run: a process that only loads the two models (sentence-transformers MiniLM + llama.cpp GGUF) and runs
each once — what the kit's index, BM25 and Python objects add on top of the models.
What it leaves out: JupyterLab's own kernel overhead, Voilà, the browser.

    .venv/bin/python -m bench.memory [--smoke] [--data-dir DIR]
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

from bench.common import REPO_ROOT, Record, arguments, ensure_index, ratio, use_data_dir

MARK = "MEMORY-RESULT "
QUESTION = "What is the application fee?"


def rss_mb() -> float:
    """Resident memory now, MB (psutil; else the peak)."""
    try:
        import psutil

        return round(psutil.Process().memory_info().rss / 1e6)
    except ImportError:
        return peak_mb()


def peak_mb() -> float:
    """Peak resident memory of this process, MB (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(peak * (1 if sys.platform == "darwin" else 1024) / 1e6)


def app_child() -> dict[str, object]:
    """The app's process: engine, warm-up, one answered question; RSS after each step."""
    steps = {"start": rss_mb()}
    import helpers  # noqa: F401
    from helpers.app import AppEngine, Knobs
    from helpers.llm import make_llm

    engine = AppEngine()
    engine.pipeline.llm = make_llm(engine.settings, cache=False)
    steps["engine"] = rss_mb()
    knobs = Knobs.from_settings(engine.settings)
    engine.warm_up(knobs)
    steps["warmed_up"] = rss_mb()
    turn = engine.ask(QUESTION, knobs)
    steps["answered"] = rss_mb()
    points = engine.pipeline.store.count()
    engine.close()
    return {"rss_mb_after": steps, "peak_rss_mb": peak_mb(), "points": points, "status": turn.status,
            "answer": turn.text, "warmup_error": engine.warmup_error}  # fmt: skip


def models_child() -> dict[str, object]:
    """The reference: only the two models, each run once."""
    import helpers  # noqa: F401
    from helpers.config import get_settings
    from helpers.embedding import Embedder
    from helpers.llm import make_llm

    settings = get_settings()
    Embedder(settings, use_cache=False).embed_texts([QUESTION])
    llm = make_llm(settings, cache=False)
    llm.chat([{"role": "user", "content": QUESTION}], 8)
    llm.close()
    return {"peak_rss_mb": peak_mb()}


def index_child() -> dict[str, object]:
    """Build the index (in its own process: ingestion's memory must not count)."""
    from helpers.pipeline import RAGPipeline

    pipeline = RAGPipeline()
    result = ensure_index(pipeline)
    pipeline.close()
    return result


def run(role: str) -> dict[str, object]:
    """One child process; its JSON result."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    out = subprocess.run([sys.executable, "-m", "bench.memory", "--child", role], env=env, cwd=REPO_ROOT,
                         capture_output=True, text=True)  # fmt: skip
    lines = [line for line in out.stdout.splitlines() if line.startswith(MARK)]
    if out.returncode or not lines:
        return {"error": out.stderr[-800:]}
    return json.loads(lines[-1][len(MARK) :])


def main() -> None:
    """Measure and write memory.json (or, with --child ROLE, be one of the processes)."""
    args = arguments(
        __doc__.splitlines()[0],
        lambda p: (p.add_argument("--child", default=None), p.add_argument("--data-dir", type=Path, default=None)),
    )
    if args.child:
        if args.smoke:
            os.environ["KIT_LLM_MODEL"] = "smollm2-135m"
        result = {"index": index_child, "app": app_child, "models": models_child}[args.child]()
        print(MARK + json.dumps(result), flush=True)
        return
    record = Record("memory", args.out, args.smoke)
    record["data_dir"] = str(use_data_dir(args.data_dir))
    if args.smoke:
        os.environ["KIT_LLM_MODEL"] = "smollm2-135m"
    record["model"] = os.environ.get("KIT_LLM_MODEL", "qwen2.5-coder-0.5b (default)")
    for role in ("index", "models", "app"):
        record[role] = run(role)
        print(role, record.data[role], flush=True)
    app, models = record.data["app"], record.data["models"]
    record["app_over_models_peak"] = ratio(app.get("peak_rss_mb"), models.get("peak_rss_mb"))
    record.save()


if __name__ == "__main__":
    main()
