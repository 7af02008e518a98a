"""Set-up on a bare machine both ways: the reader local (llama-cpp-python compiled) and remote (`OPENAI_BASE_URL`).

Each variant is `bench.waits.setup_row`: `scripts/setup.sh` in a clean clone of HEAD with an empty HOME (no wheel
built before, no pip cache, no model unpacked), one after the other. The remote variant's endpoint is never called:
set-up only learns that the reader is elsewhere, so it compiles nothing and fetches no reader.

    .venv/bin/python -m bench.setup_bare

Writes `bench/results/setup_bare.json`: per variant the total and per-phase seconds, the exit code, and whether the
clone's environment can import `llama_cpp`.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from bench.common import Record, arguments
from bench.waits import setup_row

VARIANTS = {
    "local reader": {},
    "remote reader": {"OPENAI_BASE_URL": "http://127.0.0.1:8080/v1", "OPENAI_MODEL": "qwen2.5-coder-0.5b"},
}


def has_llama_cpp(clone: Path) -> bool:
    """Whether the clone's virtual environment imports llama_cpp (the compiled local reader)."""
    found = subprocess.run([str(clone / ".venv/bin/python"), "-c", "import llama_cpp"], capture_output=True)
    return found.returncode == 0


def main() -> None:
    """Run each variant in its own temporary folder; write setup_bare.json."""
    args = arguments(__doc__.splitlines()[0])
    record = Record("setup_bare", args.out, args.smoke)
    record["variants"] = variants = {}
    for name, environment in VARIANTS.items():
        with tempfile.TemporaryDirectory(prefix="kit-bare-") as folder:
            variants[name] = setup_row(Path(folder), environment)
            variants[name]["llama_cpp_installed"] = has_llama_cpp(Path(folder) / "clone")
        print(name, variants[name], flush=True)
    record.save()


if __name__ == "__main__":
    main()
