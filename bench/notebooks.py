"""The course's wall time: every notebook executed headlessly, one after the other, in a run profile.

What it does: runs each `notebooks/NN_*.ipynb` with nbclient (the engine under nbval) in a fresh kernel,
KIT_PROFILE=ci (or `--profile full`: what a student runs, the default reader, every question; hours for 06–08),
working directory `notebooks/`, its own data folder (KIT_DATA_DIR, the index built from
the warm caches: the repository's `.kit_data` may be open in another process) and its own report folder,
and records the wall time and whether it ran through. Budgets: ≤ 4 minutes per notebook, ≤ 20 in all.
Nothing is written back into the notebooks.
What it leaves out: nbval's output comparison (the test command does that), the browser test of notebook 09.

    .venv/bin/python -m bench.notebooks [--smoke] [--only 00,03] [--profile full]

Results: bench/results/notebooks.json (ci) or notebooks_full.json (full), each row written as soon as it ran.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from bench.common import REPO_ROOT, Record, arguments, ratio

BUDGET_S = {"notebook": 240.0, "course": 1200.0}
CELL_TIMEOUT_S = {"ci": 600, "full": 4 * 3600}  # full: notebook 08's ablation cell alone runs for an hour


def run_notebook(path: Path, profile: str = "ci") -> dict[str, object]:
    """Execute one notebook in a fresh kernel; seconds and outcome."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(notebook, timeout=CELL_TIMEOUT_S[profile], kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})  # fmt: skip
    start, status = time.perf_counter(), "ok"
    try:
        client.execute()
    except CellExecutionError as err:
        status = "cell error: " + str(err).strip().splitlines()[-1][:200]
    except CellTimeoutError:
        status = f"cell timeout ({CELL_TIMEOUT_S[profile]} s)"
    except DeadKernelError:
        status = "kernel died"
    seconds = round(time.perf_counter() - start, 1)
    return {"notebook": path.name, "seconds": seconds, "status": status,
            "over_budget_ratio": ratio(seconds, BUDGET_S["notebook"])}  # fmt: skip


def main() -> None:
    """Run the notebooks and write notebooks.json."""

    def options(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--only", default="")
        parser.add_argument("--profile", choices=tuple(CELL_TIMEOUT_S), default="ci")

    args = arguments(__doc__.splitlines()[0], options)
    folder = Path(tempfile.mkdtemp(prefix="kit-bench-notebooks-"))
    os.environ.update(KIT_PROFILE=args.profile, KIT_DATA_DIR=str(folder / "data"))
    os.environ.update(KIT_OUTPUT_DIR=str(folder / "reports"))
    name = "notebooks" if args.profile == "ci" else f"notebooks_{args.profile}"
    record = Record(name, args.out, args.smoke)
    record["profile"] = args.profile
    record["reader"] = os.environ.get("KIT_LLM_MODEL", "the default")
    paths = sorted((REPO_ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    wanted = [w for w in args.only.split(",") if w] or (["00"] if args.smoke else [])
    if wanted:
        paths = [p for p in paths if p.name[:2] in wanted]
    rows = []
    for path in paths:
        rows.append(run_notebook(path, args.profile))
        print(rows[-1], flush=True)
        record["rows"] = rows
        record.save()
    total = sum(r["seconds"] for r in rows)
    record["total_s"] = round(total, 1)
    record["total_over_budget"] = ratio(total, BUDGET_S["course"])
    record["budget_s"] = BUDGET_S
    record.save()


if __name__ == "__main__":
    main()
