#!/usr/bin/env bash
# Command 2: the whole test suite. Installs what it needs first (idempotent: the kit, then Chromium for the
# browser test), then ruff, the unit tests and every notebook executed headlessly with nbval, in the `ci`
# profile unless KIT_PROFILE says otherwise.
# `--quick`: the contributor's lane, a few minutes: ruff and the unit tests of what changed (tests/changed.py).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [ "${1:-}" = --quick ]; then
  shift
  echo "==> ruff"
  .venv/bin/ruff check .
  selected=$(.venv/bin/python tests/changed.py)
  echo "==> pytest, the unit tests of what changed: ${selected:-none}"
  [ -z "$selected" ] && exit 0
  # shellcheck disable=SC2086  # one word per test file
  exec .venv/bin/python -m pytest $selected -q "$@"
fi
# The app's browser test (tests/browser) drives Debian's Chromium; install it once where we may (root + apt-get).
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "==> installing chromium for the browser test (apt-get, once)"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } ||
      echo "warning: could not install chromium; the browser test will skip" >&2
  else
    echo "==> no /usr/bin/chromium and no root apt-get to install it: the browser test will skip"
  fi
fi
export KIT_PROFILE=${KIT_PROFILE:-ci}
# The ci profile checks that everything runs, on small seeded subsets; it answers with the 0.5B reader (about half
# the seconds of the default 1.5B, notebook 07), whose outputs for the suite ship in course_data/answers/. Each
# kernel still recomputes a seeded sample of them live, stopping after 10 s of model time (at least one): a ci
# notebook runs in seconds, so the full profile's 60 s would be most of its run (docs/decisions.md).
if [ "$KIT_PROFILE" = ci ]; then
  export KIT_LLM_MODEL=${KIT_LLM_MODEL:-qwen2.5-coder-0.5b}
  export KIT_LIVE_CHECK_SECONDS=${KIT_LIVE_CHECK_SECONDS:-10}
fi
echo "==> ruff"
.venv/bin/ruff check .
echo "==> pytest: unit tests and notebooks (profile $KIT_PROFILE)"
exec .venv/bin/python -m pytest tests notebooks --nbval-lax --nbval-current-env --nbval-cell-timeout=600 -q "$@"
