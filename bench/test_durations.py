"""Where the test command's time goes: `python -m bench.test_durations [--cold] [--name NAME] [-- PYTEST ARGS]`.

Runs the README's test command (`bash scripts/test.sh`) with pytest's per-item timings (every notebook cell is an
item under nbval) and writes `bench/results/<name>.json`: the wall time, the pytest summary, the seconds per test
file and notebook, and the slowest items. `--cold` gives the suite a cache as set-up leaves it (the models and
nothing computed: no cached answer, embedding or parse), as on a bare machine right after `scripts/start.sh`;
without it the suite uses the user's cache as it is (warm after one run). The matmul rate measured at the start is
the floor that makes runs on machines of different speed comparable.

    .venv/bin/python -m bench.test_durations --cold      # bench/results/test_durations_cold.json
    .venv/bin/python -m bench.test_durations             # bench/results/test_durations_warm.json
    .venv/bin/python -m bench.test_durations --quick helpers/retrieval/hybrid.py   # the quick lane on that change
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench.common import REPO_ROOT, RESULTS_DIR, Record, cache_as_after_setup
from bench.embedders import matmul_gflops

SLOWEST = 40  # items listed one by one
SUMMARY = re.compile(r"^=*\s*(\d+ (passed|failed).*) in [\d.]+s", re.MULTILINE)


def items(junit: Path) -> list[dict[str, Any]]:
    """Every test item of a JUnit XML report: its file, name, seconds and outcome."""
    found = []
    for case in ET.parse(junit).getroot().iter("testcase"):
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = child.tag
        path = case.get("file") or case.get("classname", "").replace(".", "/")
        found.append({"file": path, "name": case.get("name", ""), "seconds": float(case.get("time", 0)),
                      "outcome": outcome})  # fmt: skip
    return found


def file_of(item: dict[str, Any]) -> str:
    """The test file or notebook an item belongs to (nbval names a cell's item after its notebook)."""
    name = item["file"]
    if "ipynb" in name:
        return name.split("ipynb")[0].rstrip("./").rsplit("/", 1)[-1] + ".ipynb"
    return name.rsplit("/", 1)[-1] if name.endswith(".py") else name.rsplit("/", 1)[-1] + ".py"


def profile(found: list[dict[str, Any]]) -> dict[str, Any]:
    """Seconds per file (largest first) and the slowest items."""
    per_file: dict[str, float] = defaultdict(float)
    for item in found:
        per_file[file_of(item)] += item["seconds"]
    slowest = sorted(found, key=lambda item: -item["seconds"])[:SLOWEST]
    return {
        "items": len(found),
        "item_seconds": round(sum(item["seconds"] for item in found), 1),
        "notebook_seconds": round(sum(s for name, s in per_file.items() if name.endswith(".ipynb")), 1),
        "per_file_s": {name: round(s, 1) for name, s in sorted(per_file.items(), key=lambda kv: -kv[1])},
        "slowest": [{"item": f"{file_of(i)}::{i['name']}", "seconds": round(i["seconds"], 1)} for i in slowest],
    }


def run_suite(cold: bool, extra: list[str], work: Path, quick: list[str] | None = None) -> dict[str, Any]:
    """Run `scripts/test.sh` (its quick lane on the paths `quick` when given) with timings; its wall time, return
    code, summary line and profile."""
    junit = work / "junit.xml"
    env = dict(os.environ)
    lane = []
    if quick is not None:
        env["KIT_CHANGED"], lane = " ".join(quick), ["--quick"]
    if cold:
        from helpers.config import load_settings

        env["KIT_CACHE_DIR"] = str(cache_as_after_setup(work, load_settings().paths.cache_dir))
    command = ["bash", "scripts/test.sh", *lane, "--durations=0", f"--junitxml={junit}", *extra]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=REPO_ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    sys.stdout.write(done.stdout[-3000:])
    sys.stderr.write(done.stderr[-3000:])
    summary = SUMMARY.findall(done.stdout)
    return {
        "command": " ".join(command),
        "cold": cold,
        "quick_lane_changed": quick,
        "returncode": done.returncode,
        "suite_s": round(wall, 1),  # the test command alone (the record's wall_s adds the floor's measurement)
        "pytest_summary": summary[-1][0] if summary else "",
        **(profile(items(junit)) if junit.is_file() else {}),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cold", action="store_true", help="a cache as set-up leaves it: nothing computed yet")
    parser.add_argument("--name", help="result file name (default test_durations_cold / test_durations_warm)")
    parser.add_argument("--quick", nargs="+", metavar="PATH", help="the quick lane, as if these files had changed")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR)
    options, extra = parser.parse_known_args()
    extra = [arg for arg in extra if arg != "--"]
    name = options.name or f"test_durations_{'quick' if options.quick else 'cold' if options.cold else 'warm'}"
    record = Record(name, options.out)
    record["floor_matmul_gflops"] = round(matmul_gflops(), 1)
    with tempfile.TemporaryDirectory(prefix="kit-test-durations-") as work:
        result = run_suite(options.cold, extra, Path(work), options.quick)
    for key, value in result.items():
        record[key] = value
    record.save()
    print(f"{name}: rc {result['returncode']} in {result['suite_s']} s; {result.get('pytest_summary', '')}")
    return result["returncode"]


if __name__ == "__main__":
    sys.exit(main())
