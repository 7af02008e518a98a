#!/usr/bin/env bash
# The benchmarks (not part of the test suite): speed, size and scale of the pipeline, each against a
# reference measured in the same run. Writes JSON + bench/results/README.md (a Markdown table) and a plot.
# Arguments go to the runner: --notebooks (also time every notebook, long), --only NAME,..., --smoke.
# On a shared machine, run it niced: nice -n 5 bash scripts/bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
    echo "No .venv yet: run the set-up command first (bash scripts/setup.sh)." >&2
    exit 1
fi
exec .venv/bin/python -m bench "$@"
