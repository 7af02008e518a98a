"""Merge the gold question parts into `course_data/gold/gold.jsonl` and assign the splits.

Parts live in `course_data/gold/parts/*.jsonl` (one per writer). The split is stratified by category
and deterministic: within each category, questions are ordered by a hash of their id and alternate
dev, test, dev, … so each category is split about half and half, and adding a question moves no other.
Run: .venv/bin/python course_data/build/build_gold.py
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

GOLD = Path(__file__).resolve().parent.parent / "gold"
FORMAT_VERSION = "1.0"
FIELDS = ("id", "question", "answer", "answer_variants", "category", "extractive", "evidence", "history", "notes")


def load_parts() -> list[dict]:
    """Every record of every part, with only the documented fields, in a fixed field order."""
    records = []
    for part in sorted((GOLD / "parts").glob("*.jsonl")):
        for line in part.read_text(encoding="utf-8").splitlines():
            if line.strip():
                raw = json.loads(line)
                record = {key: raw.get(key, [] if key in ("answer_variants", "evidence", "history") else "") for key in FIELDS}
                record["extractive"] = bool(raw.get("extractive", False))
                record["evidence"] = [{"doc": e["doc"], "quote": e["quote"]} for e in raw.get("evidence", [])]
                records.append(record)
    return records


def assign_splits(records: list[dict]) -> None:
    """Alternate dev/test within each category, in the order of a hash of the id."""
    by_category: dict[str, list[dict]] = {}
    for record in records:
        by_category.setdefault(record["category"], []).append(record)
    for group in by_category.values():
        group.sort(key=lambda r: hashlib.sha256(r["id"].encode()).hexdigest())
        for index, record in enumerate(group):
            record["split"] = "dev" if index % 2 == 0 else "test"


def main() -> None:
    """Write gold.jsonl and manifest.json; print the counts."""
    records = load_parts()
    ids = Counter(r["id"] for r in records)
    duplicates = [i for i, n in ids.items() if n > 1]
    if duplicates:
        raise SystemExit(f"duplicate ids: {duplicates}")
    assign_splits(records)
    records.sort(key=lambda r: r["id"])
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    (GOLD / "gold.jsonl").write_text(text, encoding="utf-8")
    counts = Counter((r["category"], r["split"]) for r in records)
    manifest = {
        "format_version": FORMAT_VERSION,
        "questions": len(records),
        "sha256": hashlib.sha256(text.encode()).hexdigest(),
        "by_category": {c: {s: counts[(c, s)] for s in ("dev", "test")} for c in sorted({r["category"] for r in records})},
    }
    (GOLD / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(manifest["by_category"], indent=1), len(records), "questions")


if __name__ == "__main__":
    main()
