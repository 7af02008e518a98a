"""A disk cache of parsed documents, keyed by the file's bytes, its name, the tables mode and the parsers' source.

Change a file or a parser and the entry is simply not found; failures are never cached.
What it leaves out: eviction (delete `parsed.sqlite` under the cache folder to reset).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from functools import cache
from pathlib import Path

from llama_index.core import Document

from helpers.parsing.ocr import ocr_available

NOT_PARSERS = frozenset({"cache.py"})  # the cache itself is not a parser


@cache
def parser_fingerprint() -> str:
    """A hash of the parsers' source: any edit to a parser invalidates the cache, an edit to an analysis does not."""
    digest = hashlib.sha256()
    for source in sorted(Path(__file__).parent.glob("*.py")):
        if source.name not in NOT_PARSERS:
            digest.update(source.read_bytes())
    digest.update(b"ocr" if ocr_available() else b"no-ocr")  # installing Tesseract changes what a scan yields
    return digest.hexdigest()[:16]


class ParseCache:
    """Parsed documents in SQLite, keyed by file content + name + tables mode + parser version."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS parsed (key TEXT PRIMARY KEY, documents TEXT)")

    @staticmethod
    def key(file: Path, name: str, tables: str) -> str:
        """The cache key of one file as parsed under one name and tables mode."""
        digest = hashlib.sha256(file.read_bytes())
        digest.update(f"\x00{name}\x00{tables}\x00{parser_fingerprint()}".encode())
        return digest.hexdigest()

    def get(self, key: str) -> list[Document] | None:
        """The cached documents, or None."""
        row = self._db.execute("SELECT documents FROM parsed WHERE key = ?", (key,)).fetchone()
        return [Document.from_dict(d) for d in json.loads(row[0])] if row else None

    def put(self, key: str, documents: list[Document]) -> None:
        """Store the documents of one file."""
        with self._db:
            payload = json.dumps([d.to_dict() for d in documents])
            self._db.execute("INSERT OR REPLACE INTO parsed VALUES (?, ?)", (key, payload))

    def close(self) -> None:
        """Close the database."""
        self._db.close()
