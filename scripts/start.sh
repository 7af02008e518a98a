#!/usr/bin/env bash
# Command 1: set everything up (idempotent) and open JupyterLab on the first notebook.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
extra=()
if [ "$(id -u)" = "0" ]; then
  extra+=(--allow-root)  # containers and CI machines often run as root; Jupyter refuses without this flag
fi
echo "==> starting JupyterLab (stop it with Ctrl-C); open the URL printed below"
exec .venv/bin/jupyter lab notebooks/00_setup_and_tour.ipynb --ServerApp.root_dir="$PWD" "${extra[@]}" "$@"
