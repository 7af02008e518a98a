"""Run every benchmark, each in its own process, then write the results page (`bench/results/README.md`).

    .venv/bin/python -m bench                      # all but the notebooks (long: half an hour or so)
    .venv/bin/python -m bench --notebooks          # also the course's wall time (long)
    .venv/bin/python -m bench --only search,memory # some of them
    .venv/bin/python -m bench --smoke --out /tmp/b # tiny sizes, to check that the scripts work

Each benchmark runs in a fresh interpreter (its imports, memory and embedded Qdrant folder are its own);
`search` and `memory` share one temporary data folder, so the course index is built once. Unless already
set, the runner sets OMP_WAIT_POLICY=PASSIVE and OPENBLAS_NUM_THREADS=1: on a shared, overloaded machine
spinning OpenMP / OpenBLAS threads slow torch and `X @ q` down many times over (see the probes in
`embedding.json` and `vector_scale.json`, and docs/decisions.md); `--threads-as-is` keeps the environment untouched.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import report
from bench.common import REPO_ROOT, RESULTS_DIR

ORDER = (
    "waits", "embedding", "embedding_int8", "vector_scale", "store_scale", "ingest", "chunking", "search", "memory",
    "generation", "app_first_answer",
)  # fmt: skip
SMOKE = ("embedding", "vector_scale")  # the ones quick enough for the smoke test
TIMEOUT_S = 3600


def command(name: str, out: Path, smoke: bool, data_dir: Path) -> list[str]:
    """The command line of one benchmark."""
    if name == "app_first_answer":  # the existing script: writes bench/results/app_first_answer.json itself
        return [sys.executable, str(REPO_ROOT / "bench" / "app_first_answer.py")]
    line = [sys.executable, "-m", f"bench.{name}", "--out", str(out)] + (["--smoke"] if smoke else [])
    line += ["--setup"] if name == "waits" and not smoke else []  # a clean clone set up with an empty HOME
    return line + (["--data-dir", str(data_dir)] if name in ("search", "memory") else [])


def main(argv: list[str] | None = None) -> int:
    """Run the chosen benchmarks; 1 if any failed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=RESULTS_DIR)
    parser.add_argument("--smoke", action="store_true", help="tiny sizes (only the quick benchmarks by default)")
    parser.add_argument("--only", default="", help=f"comma-separated, from: {', '.join(ORDER)}, notebooks")
    parser.add_argument("--notebooks", action="store_true", help="also time every notebook (long)")
    parser.add_argument("--threads-as-is", action="store_true", help="do not set the thread environment")
    args = parser.parse_args(argv)
    names = [n for n in args.only.split(",") if n] or list(SMOKE if args.smoke else ORDER)
    if args.notebooks and "notebooks" not in names:
        names.append("notebooks")
    if args.smoke and "app_first_answer" in names:
        names.remove("app_first_answer")  # it has no smoke size and writes into bench/results itself
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    if not args.threads_as_is:
        env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        env.setdefault("OPENBLAS_NUM_THREADS", "1")
    data_dir = Path(tempfile.mkdtemp(prefix="kit-bench-data-"))
    failed = []
    try:
        for name in names:
            print(f"==> bench.{name}", flush=True)
            start = time.perf_counter()
            run_env = env
            if name == "app_first_answer":  # on the benchmarks' own index, not the repository's open one
                run_env = {**env, "KIT_DATA_DIR": str(data_dir)}
                index = [sys.executable, "-m", "bench.memory", "--child", "index"]
                subprocess.run(index, env=run_env, cwd=REPO_ROOT, capture_output=True)
            done = subprocess.run(
                command(name, args.out, args.smoke, data_dir), env=run_env, cwd=REPO_ROOT, timeout=TIMEOUT_S
            )
            print(f"<== bench.{name}: exit {done.returncode}, {time.perf_counter() - start:.0f} s", flush=True)
            if done.returncode:
                failed.append(name)
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
    report.write(args.out)
    if failed:
        print("failed:", ", ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
