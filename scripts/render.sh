#!/usr/bin/env bash
# Command 4: the rendered course. Executes every notebook headlessly in the student profile (the full profile,
# the default reader, from set-up's caches, its own data folder: bench.notebooks --student --cold-only, which
# also records each notebook's wall time in bench/results/notebooks_student.json) and keeps the executed copies
# in build/executed/; then renders them to static HTML in site/: site/index.html, the course map, and one page
# per notebook with its outputs. Nothing is written back into notebooks/.
#   --only 00,03   execute only these (the other pages come from their executed copies in build/executed/, if
#                  any, or show the cells without outputs)
#   --from DIR     execute nothing: render the notebooks executed earlier into DIR (--keep-outputs DIR)
# Open site/index.html in a browser. Exit status 1 when a notebook did not run through (its page says where).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
  echo "No .venv yet: run the set-up command first (bash scripts/setup.sh)." >&2
  exit 1
fi
executed=build/executed
only=""
from=""
while [ $# -gt 0 ]; do
  case "$1" in
    --only) only=${2:?--only takes a list such as 00,03}; shift 2 ;;
    --only=*) only=${1#--only=}; shift ;;
    --from) from=${2:?--from takes a folder of executed notebooks}; shift 2 ;;
    --from=*) from=${1#--from=}; shift ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument: $1 (bash scripts/render.sh [--only 00,03] [--from DIR])" >&2; exit 2 ;;
  esac
done
if [ -n "$from" ]; then
  if [ -n "$only" ]; then
    echo "--from renders what was executed; --only chooses what to execute: use one of them" >&2
    exit 2
  fi
  executed=$from
else
  echo "==> executing the notebooks in the student profile (into $executed/; minutes per notebook)"
  .venv/bin/python -m bench.notebooks --student --cold-only --keep-outputs "$executed" ${only:+--only "$only"}
fi
echo "==> rendering $executed/ to site/"
exec .venv/bin/python -m helpers course-site --executed "$executed" --out site
