"""An on-disk cache of embedding vectors: SQLite in WAL mode (many readers, one writer), keyed by sha256(model id +
text); a damaged file is moved aside (never deleted) and a fresh one started.
What it leaves out: eviction (vectors are small) and any knowledge of models.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np

SQL_BATCH = 500  # keys per SELECT ... IN (...), well under SQLite's variable limit


class EmbeddingCache:
    """Vectors on disk in SQLite, keyed by sha256(model id + text)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.Lock()
        try:
            self._db = self._open(path)
        except sqlite3.DatabaseError as err:
            # A damaged cache only costs re-computation: keep the bad file for inspection, start afresh.
            aside = path.with_suffix(".damaged")
            path.replace(aside)
            warnings.warn(f"embedding cache {path} was unreadable ({err}); moved to {aside}", stacklevel=2)
            self._db = self._open(path)

    @staticmethod
    def _open(path: Path) -> sqlite3.Connection:
        """Connect, switch to WAL (concurrent readers, cheap commits) and make sure the table exists."""
        db = sqlite3.connect(path, check_same_thread=False, timeout=60)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
        except sqlite3.OperationalError:  # another process holds a lock right now: the default mode works too
            pass
        db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB)")
        return db

    @staticmethod
    def key(model: str, text: str) -> str:
        """The cache key of one text under one model."""
        return hashlib.sha256(f"{model}\x00{text}".encode()).hexdigest()

    def get_many(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        """The cached vectors among `keys` (a blob that is not whole float32s counts as missing)."""
        found: dict[str, np.ndarray] = {}
        with self._lock:
            for start in range(0, len(keys), SQL_BATCH):
                batch = list(keys[start : start + SQL_BATCH])
                marks = ",".join("?" * len(batch))
                for key, blob in self._db.execute(f"SELECT key, vector FROM vectors WHERE key IN ({marks})", batch):
                    if blob and len(blob) % 4 == 0:
                        found[key] = np.frombuffer(blob, dtype=np.float32)
        return found

    def put_many(self, items: dict[str, np.ndarray]) -> None:
        """Store vectors (one transaction)."""
        with self._lock, self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO vectors VALUES (?, ?)",
                [(k, v.astype(np.float32).tobytes()) for k, v in items.items()],
            )

    def __len__(self) -> int:
        """Number of cached vectors."""
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0])

    def close(self) -> None:
        """Close the database."""
        self._db.close()
