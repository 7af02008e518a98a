"""Build the shipped answers from recorded notebook runs: `python -m bench.shipped_answers RECORDINGS`.

What it does: reads the JSONL files `bench.notebooks --record RECORDINGS` wrote (one per notebook: every LLM output
the notebook looked up, whether computed or read from a cache) and writes `course_data/answers/<model>.jsonl.gz`
with a header naming the model file's sha256, the commit and machine that computed them and how many outputs
each notebook contributed. Run it after a full-profile run of the notebooks with the default reader:

    .venv/bin/python -m bench.notebooks --profile full --record /tmp/answers
    .venv/bin/python -m bench.shipped_answers /tmp/answers

The `ci` profile's bundle (the 0.5B reader's) is recorded from the whole test suite in one file:

    KIT_RECORD_ANSWERS=/tmp/suite/suite.jsonl bash scripts/test.sh
    KIT_LLM_MODEL=qwen2.5-coder-0.5b .venv/bin/python -m bench.shipped_answers /tmp/suite

To add notebooks to a bundle without recording the others again, `--keep` carries over the committed bundle's
entries (same model file only) and its per-notebook counts for the notebooks not in RECORDINGS:

    .venv/bin/python -m bench.shipped_answers /tmp/answers --keep

A maintainer's tool, so it lives beside the benchmarks, outside the package students import.
What it leaves out: checking the outputs (each kernel that uses them recomputes a seeded sample live), and
pruning kept entries no notebook asks for any more (record every notebook again for that).
"""

from __future__ import annotations

import gzip
import json
import platform
import subprocess
import sys
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from helpers.config import REPO_ROOT, Settings, load_settings
from helpers.llm.shipped import FORMAT, bundle_path, model_fingerprint, read_bundle


def commit_of(folder: Path = REPO_ROOT) -> str:
    """The short commit of the repository (or "unknown" outside git)."""
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=folder, capture_output=True, text=True)
    except OSError:
        return "unknown"
    return out.stdout.strip() or "unknown"


def cpu_name() -> str:
    """The CPU model (llama.cpp's kernels, and so its rounding, depend on it)."""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        for line in cpuinfo.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def per_notebook(recordings: list[Path]) -> dict[str, int]:
    """Lines recorded per notebook (file stem), repeats included."""
    return {path.stem: sum(1 for _ in path.open(encoding="utf-8")) for path in recordings}


def kept_entries(path: Path, fingerprint: str, recorded: dict[str, int]) -> tuple[dict, dict[str, int], str]:
    """An existing bundle's entries, its counts of the notebooks not recorded now, and the commits it came from."""
    if not path.is_file():
        return {}, {}, ""
    header, entries = read_bundle(path)
    if header.get("model_sha256") != fingerprint:
        print(f"not kept: {path.name} belongs to another model file")
        return {}, {}, ""
    counts = {name: n for name, n in header.get("recorded_per_notebook", {}).items() if name not in recorded}
    return entries, counts, str(header.get("commit", ""))


def write_bundle(
    recordings: Iterable[Path],
    settings: Settings,
    out: Path,
    about: dict[str, Any],
    kept: dict[tuple[str, str], Any] | None = None,
) -> int:
    """Write the recorded outputs of the configured model as a bundle (sorted, reproducible); returns the count.

    `kept` are entries of an earlier bundle to carry over (notebooks not recorded this time); a recorded output
    replaces a kept one with the same key. Outputs recorded for another model are left out.
    """
    entries: dict[tuple[str, str], Any] = dict(kept or {})
    for path in recordings:
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row.get("model", settings.llm.llm_model) == settings.llm.llm_model:
                entries[(row["ns"], row["key"])] = row["value"]
    header = {"format": FORMAT, "model": settings.llm.llm_model, "model_sha256": model_fingerprint(settings), **about}
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "wb") as raw, gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) as handle:
        handle.write((json.dumps(header, sort_keys=True) + "\n").encode("utf-8"))
        for (namespace, key), value in sorted(entries.items()):
            row = {"ns": namespace, "key": key, "value": value}
            handle.write((json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8"))
    return len(entries)


def main(folder: Path, settings: Settings, commit: str = "", keep: bool = False) -> int:
    """Write the bundle of the configured model from the recordings in `folder` (made by the code at `commit`)."""
    recordings = sorted(folder.glob("*.jsonl"))
    if not recordings:
        print(f"error: no recordings (*.jsonl) in {folder}", file=sys.stderr)
        return 2
    if not model_fingerprint(settings):
        print("error: only the packaged local models have a known sha256 to key shipped answers by", file=sys.stderr)
        return 2
    out = bundle_path(settings)
    recorded = per_notebook(recordings)
    kept, kept_counts, kept_commit = kept_entries(out, model_fingerprint(settings), recorded) if keep else ({}, {}, "")
    commit = commit or commit_of()
    about = {
        "built": datetime.now(UTC).isoformat(timespec="seconds"),
        "commit": f"{commit} (kept: {kept_commit})" if kept else commit,
        "cpu": cpu_name(),
        "recorded_per_notebook": dict(sorted({**kept_counts, **recorded}.items())),
    }
    count = write_bundle(recordings, settings, out, about, kept)
    print(f"wrote {out} ({count:,} outputs, {out.stat().st_size / 1e6:.2f} MB); commit it")
    return 0


if __name__ == "__main__":
    arguments = [a for a in sys.argv[1:] if a != "--keep"]
    if len(arguments) not in (1, 2):
        print(__doc__.splitlines()[0] + " [COMMIT the recordings ran at] [--keep]", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(Path(arguments[0]), load_settings(), *arguments[1:], keep="--keep" in sys.argv))
