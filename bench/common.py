"""What every benchmark shares: the machine record, percentiles, timing and writing one result file.

A result file is a JSON object: the benchmark's own numbers plus `machine` (cores, RAM, CPU model, load
average at start and end), `versions` (the packages that matter) and `date`. On a shared machine the load
average says how much of the CPU the run really had, so it is recorded at both ends.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
RESULTS_DIR = BENCH_DIR / "results"
THREAD_VARIABLES = ("OMP_WAIT_POLICY", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")  # set by the runner, see __main__
PACKAGES = (
    "torch", "transformers", "sentence-transformers", "qdrant-client", "llama-index-core",
    "llama-cpp-python", "numpy", "bm25s",
)  # fmt: skip


def cpu_model() -> str:
    """The CPU's model name (Linux /proc/cpuinfo, else platform)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def ram_gb() -> float:
    """Total RAM in GB."""
    try:
        import psutil

        return round(psutil.virtual_memory().total / 1e9, 1)
    except ImportError:
        return round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1e9, 1)


def load_average() -> list[float]:
    """The 1, 5 and 15 minute load averages."""
    return [round(x, 2) for x in os.getloadavg()]


def versions() -> dict[str, str]:
    """Python and the versions of the packages the numbers depend on."""
    found = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "not installed"
    return found


def git_commit() -> str:
    """The repository's HEAD commit (short), or '?'."""
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True)
        return out.stdout.strip() or "?"
    except OSError:
        return "?"


class Record:
    """One benchmark's result: open it at the start (load, date), `save` it at the end."""

    def __init__(self, name: str, out: Path, smoke: bool = False) -> None:
        self.name, self.out = name, Path(out)
        self.started = time.perf_counter()
        self.data: dict[str, Any] = {
            "benchmark": name,
            "date": datetime.now(UTC).isoformat(timespec="seconds"),
            "smoke": smoke,
            "machine": {
                "cores": os.cpu_count(),
                "ram_gb": ram_gb(),
                "cpu": cpu_model(),
                "os": platform.platform(),
                "load_average_start": load_average(),
                "nice": os.nice(0),
            },
            "thread_environment": {k: os.environ.get(k, "(unset)") for k in THREAD_VARIABLES},
            "versions": versions(),
            "commit": git_commit(),
        }

    def __setitem__(self, key: str, value: Any) -> None:
        self.data[key] = value

    def save(self) -> Path:
        """Add the end load and the wall time; write `<out>/<name>.json`."""
        self.data["machine"]["load_average_end"] = load_average()
        self.data["wall_s"] = round(time.perf_counter() - self.started, 1)
        self.out.mkdir(parents=True, exist_ok=True)
        path = self.out / f"{self.name}.json"
        path.write_text(json.dumps(self.data, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
        print(f"wrote {path}")
        return path


def latency(function: Callable[[Any], object], inputs: Sequence[Any]) -> dict[str, float]:
    """p50, p95 and mean milliseconds of `function(x)` over `inputs` (notebook 04's `latency_ms`, rounded)."""
    from helpers.lab.store import latency_ms

    found = latency_ms(function, inputs)
    return {f"{key.split()[0]}_ms": round(value, 3) for key, value in found.items()}


def ratio(value: float | None, reference: float | None, digits: int = 2) -> float | None:
    """value / reference, rounded; None when either is missing or the reference is 0."""
    if value is None or not reference:
        return None
    return round(value / reference, digits)


def arguments(description: str, extra: Callable[[argparse.ArgumentParser], None] | None = None) -> argparse.Namespace:
    """The options every benchmark takes: --out (result folder) and --smoke (tiny sizes)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--out", type=Path, default=RESULTS_DIR, help="folder for the JSON result")
    parser.add_argument("--smoke", action="store_true", help="tiny sizes: checks that the script works")
    if extra:
        extra(parser)
    return parser.parse_args()


def python() -> str:
    """The interpreter running the benchmarks (the kit's venv)."""
    return sys.executable


def use_data_dir(folder: Path | None) -> Path:
    """Point KIT_DATA_DIR at `folder` (or a new temporary one) before the kit reads its settings.

    The repository's own `.kit_data` may be held by a notebook or the app: embedded Qdrant allows one process
    per folder, so a benchmark always works on its own copy of the index.
    """
    import tempfile

    folder = Path(folder) if folder else Path(tempfile.mkdtemp(prefix="kit-bench-data-"))
    os.environ["KIT_DATA_DIR"] = str(folder)
    return folder


INSTALLED = ("models", "onnx", "wheels")  # what set-up leaves in the kit's cache


def cache_as_after_setup(folder: Path, cache_dir: Path) -> Path:
    """`folder`/cache: a cache as set-up leaves it (models, ONNX exports, wheels linked from `cache_dir`) and
    nothing else: no cached LLM answers, embeddings or parses."""
    cache = folder / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    for name in INSTALLED:
        if (cache_dir / name).exists() and not (cache / name).exists():
            (cache / name).symlink_to(cache_dir / name)
    return cache


def use_cache_as_after_setup(folder: Path) -> Path:
    """Point this process and its children (KIT_CACHE_DIR) at `cache_as_after_setup(folder, …)`: no cached answer,
    embedding or parse. Call it before `get_settings()` in this process (settings load once)."""
    from helpers.config import load_settings

    cache = cache_as_after_setup(folder, load_settings().paths.cache_dir)
    os.environ["KIT_CACHE_DIR"] = str(cache)
    return cache


def ensure_index(pipeline: Any) -> dict[str, object]:
    """Ingest the course corpus into the pipeline's (benchmark) data folder if it is empty; what it took."""
    start = time.perf_counter()
    report = pipeline.ingest(progress=False)
    return {"points": report.points, "written": report.written, "seconds": round(time.perf_counter() - start, 2)}
