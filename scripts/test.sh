#!/usr/bin/env bash
# Command 2: the whole test suite. Installs what it needs first (idempotent), then ruff, the unit tests
# and every notebook executed headlessly with nbval, in the `ci` profile unless KIT_PROFILE says otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export KIT_PROFILE=${KIT_PROFILE:-ci}
echo "==> ruff"
.venv/bin/ruff check .
echo "==> pytest: unit tests and notebooks (profile $KIT_PROFILE)"
exec .venv/bin/python -m pytest tests notebooks --nbval-lax --nbval-current-env --nbval-cell-timeout=600 -q "$@"
