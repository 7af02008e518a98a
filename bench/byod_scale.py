"""How fast does `helpers.ingest_folder` index a big folder of plain text? (hundreds of files, tens of MB)

What it does: writes a folder of synthetic `.txt` files into a temporary directory (seeded, so every run
makes the same text; never committed), then times `ingest_folder` on it from cold caches (a temporary
parse cache, embedding cache and Qdrant folder), and times a second run, which must write nothing and leave
the point count unchanged. Reports files/s, MB/s, chunks/s and the seconds of each stage (parse, chunk,
embed, store), with the machine's load average, which matters on a shared box.
Writes bench/results/byod_scale.json.
What it leaves out: a Qdrant server (set QDRANT_URL to measure one), PDFs and HTML (slower to parse).

    nice -n 10 .venv/bin/python bench/byod_scale.py [--files 300] [--kb 70]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

RESULT = Path(__file__).resolve().parent / "results" / "byod_scale.json"
WORDS = """
the a of and to in is for on with by from at as that this it be are was were will can may must should
member members space tool tools room rooms machine machines workshop booking bookings fee fees price month
year week day hour hours minute safety rule rules induction course class classes steward stewards visitor
guest guests child children adult family card key door desk shelf locker project projects material wood
metal plastic paper fabric glass laser printer router saw drill lathe bench iron solder power cable light
open close opens closes early late before after during between every each first last next new old small
large long short heavy light quick slow careful clean safe free paid cheap busy quiet loud warm cold
book cancel pay join leave bring use cut print sew build repair check ask write read keep store move
wear turn switch start stop finish learn teach help show need want find give take make send report
town library river mill lane street park church school bus bike car road bridge market hall garden
monday tuesday wednesday thursday friday saturday sunday january march june september december
"""


def synthetic_folder(folder: Path, files: int, kb: int, seed: int = 0) -> int:
    """Write `files` text files of about `kb` KB each (titled paragraphs of pseudo-words); returns the bytes."""
    rng = random.Random(seed)
    vocabulary = WORDS.split()  # real words: the embedder sees ~1.3 word pieces per word, as in real prose
    total = 0
    for number in range(files):
        paragraphs, size = [f"Report {number}: {' '.join(rng.choices(vocabulary, k=4))}"], 0
        while size < kb * 1024:
            sentences = [" ".join(rng.choices(vocabulary, k=rng.randint(8, 20))).capitalize() + "." for _ in range(5)]
            paragraphs.append(" ".join(sentences) + f" Figure {rng.randint(1, 9999)}.")
            size += len(paragraphs[-1]) + 2
        text = "\n\n".join(paragraphs)
        subfolder = folder / f"part_{number // 100:02d}"  # a few subfolders, as real folders have
        subfolder.mkdir(parents=True, exist_ok=True)
        (subfolder / f"report_{number:04d}.txt").write_text(text, encoding="utf-8")
        total += len(text.encode())
    return total


def measure(files: int, kb: int) -> dict[str, object]:
    """Generate the folder, ingest it cold, ingest it again; the numbers."""
    import helpers
    from helpers.byod import ingest_folder

    with tempfile.TemporaryDirectory(prefix="kit-byod-bench-") as tmp:
        root = Path(tmp)
        folder = root / "synthetic_reports"
        size = synthetic_folder(folder, files, kb)
        settings = helpers.get_settings().replace(data_dir=root / "data", cache_dir=root / "cache")
        docs = ingest_folder(folder, settings)  # cold: nothing parsed, embedded or stored yet
        try:
            cold = docs.report
            start = time.perf_counter()
            again = docs.pipeline.ingest(folder, progress=False)
            rerun = time.perf_counter() - start
        finally:
            docs.close()
    mb = size / 2**20
    return {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "files": files,
        "mb": round(mb, 2),
        "documents": cold.documents,
        "chunks": cold.chunks,
        "points": cold.points,
        "cold_seconds": round(cold.seconds, 1),
        "files_per_s": round(files / cold.seconds, 2),
        "mb_per_s": round(mb / cold.seconds, 3),
        "chunks_per_s": round(cold.chunks / cold.seconds, 1),
        "stage_seconds": {stage: round(seconds, 1) for stage, seconds in cold.timings.items()},
        "rerun_seconds": round(rerun, 1),
        "rerun_written": again.written,
        "rerun_points": again.points,
        "no_duplicates": again.points == cold.points and again.written == 0,
        "skipped": len(cold.skipped),
        "chunk_strategy": settings.chunking.chunk_strategy,
        "cpus": os.cpu_count(),
        "load_average_1min": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=300, help="number of .txt files")
    parser.add_argument("--kb", type=int, default=70, help="approximate size of each file in KB")
    args = parser.parse_args()
    result = measure(args.files, args.kb)
    RESULT.parent.mkdir(parents=True, exist_ok=True)
    RESULT.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))
    print(f"written to {RESULT}")


if __name__ == "__main__":
    main()
