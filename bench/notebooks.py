"""The course's wall time: every notebook executed headlessly, one after the other, in a run profile.

What it does: runs each `notebooks/NN_*.ipynb` with nbclient (the engine under nbval) in a fresh kernel,
KIT_PROFILE=ci (or `--profile full`: what a student runs, the default reader, every question; hours for 06–08),
working directory `notebooks/`, its own data folder (KIT_DATA_DIR, the index built from
the warm caches: the repository's `.kit_data` may be open in another process) and its own report folder,
and records the wall time and whether it ran through. Budgets: ≤ 4 minutes per notebook, ≤ 20 in all.
Nothing is written back into the notebooks.
What it leaves out: nbval's output comparison (the test command does that), the browser test of notebook 09.

    .venv/bin/python -m bench.notebooks [--smoke] [--only 00,03] [--profile full]

    .venv/bin/python -m bench.notebooks --profile full --only 06 --cold-llm-cache
    .venv/bin/python -m bench.notebooks --profile full --record /tmp/answers  # then bench.shipped_answers
    .venv/bin/python -m bench.notebooks --student --only 00,01   # cold and warm, from set-up's caches
    .venv/bin/python -m bench.notebooks --student --cold-only --only 07,08   # the cold pass alone
    .venv/bin/python -m bench.notebooks --student --keep-outputs build/executed   # what scripts/render.sh renders

Results: bench/results/notebooks.json (ci) or notebooks_full.json (full), each row written as soon as it ran;
in `full`, each notebook's text outputs in notebooks_full_outputs/NN.json (what the README cites from a notebook).
With `--only`, the rows of the notebooks not run are kept from the file; every row carries its own date,
commit, load average and cache state. `--cold-llm-cache` runs with an empty LLM answer cache (a student's
first run): a temporary cache folder that links only the installed models, ONNX exports and wheels.
`--keep-outputs DIR` writes each executed notebook (with `--student`, its cold pass) to DIR/NN_name.ipynb, with
how the run went in its metadata (`kit_run`: status, seconds, profile, commit, date); a notebook that stopped is
kept too, with the outputs up to the failing cell. `helpers.classroom.site` renders the folder to HTML.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from bench.common import REPO_ROOT, Record, arguments, git_commit, load_average, ratio, use_cache_as_after_setup
from bench.embedders import matmul_gflops
from helpers.llm.shipped import RECORD_ENV

BUDGET_S = {"notebook": 240.0, "course": 1200.0}
STUDENT_BUDGET_S = {"notebook": 300.0, "course": 1800.0}  # a lab slot per notebook, the course in half an hour
CELL_TIMEOUT_S = {"ci": 600, "full": 4 * 3600}  # full: notebook 08's ablation cell alone runs for an hour


def lesson_notebooks() -> list[Path]:
    """The lessons, `notebooks/NN_*.ipynb`: what the timing budget counts (notebooks/appendix/ is outside it)."""
    return sorted((REPO_ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def link_realworld_docs(data_dir: Path) -> bool:
    """Link the rebuilt real documents (if any) into the run's data folder, as a student who rebuilt them has."""
    source = REPO_ROOT / ".kit_data" / "realworld" / "docs"
    if not source.is_dir():
        return False
    (data_dir / "realworld").mkdir(parents=True, exist_ok=True)
    (data_dir / "realworld" / "docs").symlink_to(source)
    return True


def kept_rows(path: Path, wanted: list[str]) -> list[dict[str, object]]:
    """The rows of an earlier result file for the notebooks not run this time."""
    if not wanted or not path.exists():
        return []
    earlier = json.loads(path.read_text(encoding="utf-8"))
    rows = earlier.get("rows", [])
    for row in rows:  # rows written before rows carried their own run's facts
        row.setdefault("date", earlier.get("date"))
        row.setdefault("commit", earlier.get("commit"))
        row.setdefault("load_average", [earlier["machine"]["load_average_start"][0],
                                        earlier["machine"]["load_average_end"][0]])  # fmt: skip
        row.setdefault("llm_cache", "warm")
    return [row for row in rows if str(row["notebook"])[:2] not in wanted]


def shipped_lines(notebook: object) -> list[str]:
    """The lines an executed notebook printed about the shipped answers (what it served, what it checked live)."""
    found = []
    for cell in getattr(notebook, "cells", []):
        for output in cell.get("outputs", []):
            text = output.get("text", "") or output.get("data", {}).get("text/plain", "")
            found += [line.strip() for line in str(text).splitlines() if line.strip().startswith("Shipped answers:")]
    return found


def slowest_cells(notebook: object, count: int = 3) -> list[dict[str, object]]:
    """The cells that took longest (nbclient records each cell's start and reply times), with their first line."""
    timed = []
    for index, cell in enumerate(getattr(notebook, "cells", [])):
        stamps = cell.get("metadata", {}).get("execution", {})
        if "iopub.execute_input" in stamps and "shell.execute_reply" in stamps:
            start = datetime.fromisoformat(stamps["iopub.execute_input"].replace("Z", "+00:00"))
            end = datetime.fromisoformat(stamps["shell.execute_reply"].replace("Z", "+00:00"))
            first = next((line for line in cell.source.splitlines() if line.strip()), "")[:80]
            timed.append({"cell": index, "seconds": round((end - start).total_seconds(), 1), "first_line": first})
    return sorted(timed, key=lambda row: -float(row["seconds"]))[:count]


def text_outputs(notebook: object) -> list[dict[str, object]]:
    """Every code cell's printed and displayed text (tables as text), so a figure in prose can cite its run."""
    cells = []
    for index, cell in enumerate(getattr(notebook, "cells", [])):
        texts = [str(output.get("text", "") or output.get("data", {}).get("text/plain", ""))
                 for output in cell.get("outputs", [])]  # fmt: skip
        if any(texts):
            cells.append({"cell": index, "text": "".join(texts)})
    return cells


RUN_METADATA = "kit_run"  # the key of an executed notebook's metadata that says how its run went


def keep_executed(notebook: object, folder: Path, name: str, run: dict[str, object]) -> Path:
    """Write an executed notebook to `folder/name` with its run's facts in `metadata.kit_run`."""
    import nbformat

    notebook.metadata[RUN_METADATA] = run  # type: ignore[attr-defined]
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / name
    nbformat.write(notebook, target)  # type: ignore[arg-type]
    return target


def run_notebook(path: Path, profile: str = "ci", outputs: Path | None = None, keep: Path | None = None,
                 run: str = "") -> dict[str, object]:  # fmt: skip
    """Execute one notebook in a fresh kernel; seconds and outcome (its text outputs into `outputs`, and the
    executed notebook into `keep`, if given, its metadata naming the `run` when there is one)."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(notebook, timeout=CELL_TIMEOUT_S[profile], kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})  # fmt: skip
    start, status, load_start = time.perf_counter(), "ok", load_average()[0]
    commit = git_commit()  # the code the kernel imports; a commit made while it runs is not what ran
    try:
        client.execute()
    except CellExecutionError as err:
        named = f"{err.ename}: {err.evalue}" if getattr(err, "ename", "") else str(err).strip().splitlines()[-1]
        status = "cell error: " + named.strip()[:200]
    except CellTimeoutError:
        status = f"cell timeout ({CELL_TIMEOUT_S[profile]} s)"
    except DeadKernelError:
        status = "kernel died"
    seconds = round(time.perf_counter() - start, 1)
    if outputs is not None:
        outputs.mkdir(parents=True, exist_ok=True)
        saved = {"notebook": path.name, "profile": profile, "commit": commit, "status": status,
                 "date": datetime.now(UTC).isoformat(timespec="seconds"), "cells": text_outputs(notebook)}  # fmt: skip
        (outputs / f"{path.name[:2]}.json").write_text(json.dumps(saved, indent=1, ensure_ascii=False) + "\n")
    if keep is not None:
        keep_executed(notebook, keep, path.name, {"status": status, "seconds": seconds, "profile": profile,
                                                  "reader": os.environ.get("KIT_LLM_MODEL", "the default"),
                                                  "commit": commit, "run": run,
                                                  "date": datetime.now(UTC).isoformat(timespec="seconds")})  # fmt: skip
    return {"notebook": path.name, "seconds": seconds, "status": status, "shipped": shipped_lines(notebook),
            "slowest_cells": slowest_cells(notebook),
            "over_budget_ratio": ratio(seconds, BUDGET_S["notebook"]),
            "date": datetime.now(UTC).isoformat(timespec="seconds"), "commit": commit,
            "load_average": [load_start, load_average()[0]]}  # fmt: skip


def main() -> None:
    """Run the notebooks and write notebooks.json."""

    def options(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--only", default="")
        parser.add_argument("--profile", choices=tuple(CELL_TIMEOUT_S), default="ci")
        parser.add_argument("--cold-llm-cache", action="store_true", help="start with no cached LLM answers")
        parser.add_argument("--record", type=Path, help="a folder: every LLM output each notebook looks up, NN.jsonl")
        parser.add_argument("--student", action="store_true",
                            help="what a student waits: the full profile from set-up's caches, every notebook in "
                            "order (cold), then all again (warm); writes notebooks_student.json")  # fmt: skip
        parser.add_argument("--cold-only", action="store_true", help="with --student: the cold run only")
        parser.add_argument("--keep-outputs", type=Path, metavar="DIR",
                            help="write each executed notebook (with --student, the cold run's) to DIR")  # fmt: skip

    args = arguments(__doc__.splitlines()[0], options)
    if args.student:
        student_run(args)
        return
    folder = Path(tempfile.mkdtemp(prefix="kit-bench-notebooks-"))
    os.environ.update(KIT_PROFILE=args.profile, KIT_DATA_DIR=str(folder / "data"))
    os.environ.update(KIT_OUTPUT_DIR=str(folder / "reports"))
    if args.cold_llm_cache:
        use_cache_as_after_setup(folder)
    llm_cache = "cold" if args.cold_llm_cache else "warm"
    name = "notebooks" if args.profile == "ci" else f"notebooks_{args.profile}"
    record = Record(name, args.out, args.smoke)
    record["profile"] = args.profile
    record["reader"] = os.environ.get("KIT_LLM_MODEL", "the default")
    record["realworld_docs"] = link_realworld_docs(folder / "data")
    paths = lesson_notebooks()
    wanted = [w for w in args.only.split(",") if w] or (["00"] if args.smoke else [])
    if wanted:
        paths = [p for p in paths if p.name[:2] in wanted]
    rows = kept_rows(args.out / f"{name}.json", wanted)
    for path in paths:
        if args.record:  # the kernel inherits the environment it is started with
            args.record.mkdir(parents=True, exist_ok=True)
            os.environ[RECORD_ENV] = str(args.record / f"{path.name[:2]}.jsonl")
        outputs = args.out / f"{name}_outputs" if args.profile == "full" and not args.smoke else None
        row = {**run_notebook(path, args.profile, outputs, args.keep_outputs), "llm_cache": llm_cache}
        print(row, flush=True)
        rows = sorted([*rows, row], key=lambda found: str(found["notebook"]))
        record["rows"] = rows
        record.save()
    total = sum(r["seconds"] for r in rows)
    record["total_s"] = round(total, 1)
    record["total_over_budget"] = ratio(total, BUDGET_S["course"])
    record["budget_s"] = BUDGET_S
    record.save()


RUNS = ("cold", "warm")  # the student profile's two passes over the notebooks


def student_run(args: argparse.Namespace) -> None:
    """Cold then warm times of every notebook in the full profile, one cache as `start.sh` leaves it."""
    folder = Path(tempfile.mkdtemp(prefix="kit-bench-student-"))
    use_cache_as_after_setup(folder)
    os.environ.update(KIT_PROFILE="full", KIT_DATA_DIR=str(folder / "data"), KIT_OUTPUT_DIR=str(folder / "reports"))
    record = Record("notebooks_student", args.out, args.smoke)
    record["profile"], record["budget_s"] = "full", STUDENT_BUDGET_S
    record["reader"] = os.environ.get("KIT_LLM_MODEL", "the default")
    record["realworld_docs"] = link_realworld_docs(folder / "data")
    record["floor_matmul_gflops_start"] = round(matmul_gflops(), 1)  # the machine's speed: read the seconds against it
    paths = lesson_notebooks()
    wanted = [w for w in args.only.split(",") if w] or (["00"] if args.smoke else [])
    paths = [p for p in paths if not wanted or p.name[:2] in wanted]
    earlier = args.out / "notebooks_student.json"
    kept = json.loads(earlier.read_text(encoding="utf-8")).get("rows", []) if wanted and earlier.exists() else []
    rows: dict[str, dict[str, object]] = {r["notebook"]: r for r in kept if r["notebook"][:2] not in wanted}
    for run in RUNS[:1] if args.cold_only else RUNS:
        for path in paths:
            found = run_notebook(path, "full", keep=args.keep_outputs if run == "cold" else None,
                                 run="the student's cold pass, from set-up's caches")  # fmt: skip
            row = rows.setdefault(path.name, {"notebook": path.name})
            row[f"seconds_{run}"] = found["seconds"]
            row[f"status_{run}"] = found["status"]
            row[f"shipped_{run}"] = found["shipped"]
            row.setdefault("slowest_cells_cold", found["slowest_cells"])
            row.update(commit=found["commit"], date=found["date"])
            row["over_budget_ratio"] = ratio(float(row["seconds_cold"]), STUDENT_BUDGET_S["notebook"])
            print(path.name, run, found["seconds"], found["status"], found["shipped"], flush=True)
            record["rows"] = list(rows.values())
            record.save()
    record["rows"] = sorted(rows.values(), key=lambda row: str(row["notebook"]))

    def total(run: str) -> float | None:  # None unless every notebook has a time of this run
        times = [r.get(f"seconds_{run}") for r in rows.values()]
        return round(sum(float(t) for t in times if t is not None), 1) if None not in times else None

    totals = {run: total(run) for run in RUNS}
    record["total_cold_s"], record["total_warm_s"] = totals["cold"], totals["warm"]
    record["total_over_budget"] = ratio(totals["cold"], STUDENT_BUDGET_S["course"]) if totals["cold"] else None
    record["floor_matmul_gflops_end"] = round(matmul_gflops(), 1)
    record.save()


if __name__ == "__main__":
    main()
