"""Print the corpus statistics the datasheet quotes: files and words per format, as the kit parses them.

Run: .venv/bin/python course_data/build/corpus_stats.py
"""

from __future__ import annotations

from collections import Counter

import helpers  # noqa: F401  (offline environment)
from helpers.corpus import DOCS_DIR
from helpers.parsing import parse_folder


def main() -> None:
    """Words and files per top-level folder of course_data/docs/."""
    report = parse_folder(DOCS_DIR, progress=False)
    words: Counter[str] = Counter()
    files: dict[str, set[str]] = {}
    for document in report.documents:
        folder = str(document.metadata["source"]).split("/")[0]
        words[folder] += len(document.text.split())
        files.setdefault(folder, set()).add(str(document.metadata["source"]))
    print("| folder | files | words |\n| --- | ---: | ---: |")
    for folder in sorted(words):
        print(f"| {folder} | {len(files[folder])} | {words[folder]:,} |")
    print(f"| **all** | **{sum(len(f) for f in files.values())}** | **{sum(words.values()):,}** |")
    for name, reason in report.skipped:
        print(f"skipped {name}: {reason}")


if __name__ == "__main__":
    main()
