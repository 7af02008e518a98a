"""An on-disk answer cache: the same model given the same prompt answers from disk, instantly.

Before its own file it asks the shipped answers (`shipped.py`): the course's prompts answered once by the
same model file, checked live on a seeded sample in every kernel.

The key is a sha256 of the model name, the temperature, the answer-token limit and every message, so a
changed prompt, model or setting is a new key and never a stale answer. At temperature 0 the model is
deterministic, which is what makes caching honest; the stored timings are those of the real call, so
latency tables stay true on a re-run. One SQLite file under `settings.paths.cache_dir`, safe for several
processes. What it leaves out: eviction (delete the file to start over).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator
from typing import Any

from helpers.config import Settings
from helpers.llm.client import LLM, Completion
from helpers.llm.shipped import record, recording, shipped_results


def prompt_key(model: str, messages: list[dict[str, str]], max_tokens: int, temperature: float) -> str:
    """sha256 of everything that decides the answer."""
    payload = json.dumps([model, temperature, max_tokens, messages], ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def as_row(completion: Completion) -> dict[str, Any]:
    """A completion as the stored row (text, token counts, the real call's seconds)."""
    return {
        "text": completion.text,
        "prompt_tokens": completion.prompt_tokens,
        "completion_tokens": completion.completion_tokens,
        "seconds": completion.seconds,
    }


class CachedLLM:
    """Wraps any `LLM`; answers a prompt seen before from disk, otherwise asks the model and stores it."""

    def __init__(self, llm: LLM, settings: Settings) -> None:
        self.llm = llm
        self.settings = settings
        self.name = llm.name
        self.hits = self.misses = 0
        path = self.settings.paths.cache_dir / "llm_answers.sqlite"
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, timeout=30, check_same_thread=False)
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, text TEXT, prompt_tokens INTEGER, "
            "completion_tokens INTEGER, seconds REAL)"
        )

    def _key(self, messages: list[dict[str, str]], max_tokens: int) -> str:
        return prompt_key(self.name, messages, max_tokens, self.settings.llm.temperature)

    def lookup(self, messages: list[dict[str, str]], max_tokens: int) -> Completion | None:
        """The stored completion of this prompt, or None."""
        row = self._db.execute(
            "SELECT text, prompt_tokens, completion_tokens, seconds FROM answers WHERE key = ?",
            (self._key(messages, max_tokens),),
        ).fetchone()
        return Completion(*row, cached=True) if row else None

    def store(self, messages: list[dict[str, str]], max_tokens: int, completion: Completion) -> None:
        """Remember a completion of this prompt."""
        with self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?, ?)",
                (self._key(messages, max_tokens), *as_row(completion).values()),
            )

    @property
    def uncached(self) -> LLM:
        """The wrapped model, asked directly."""
        return self.llm

    def shipped(self, messages: list[dict[str, str]], max_tokens: int) -> Completion | None:
        """The shipped completion of this prompt (or a live one, when it falls in the checked sample), or None."""

        def live() -> dict[str, Any]:
            return as_row(self.llm.chat(messages, max_tokens))

        row = shipped_results(self.settings).resolve("answers", self._key(messages, max_tokens), live)
        return None if row is None else Completion(**row, cached=True)

    def chat(self, messages: list[dict[str, str]], max_tokens: int) -> Completion:
        """The shipped or cached completion, or a fresh one (then stored)."""
        found = self.shipped(messages, max_tokens) or self.lookup(messages, max_tokens)
        if found is not None:
            self.hits += 1
        else:
            self.misses += 1
            found = self.llm.chat(messages, max_tokens)
            self.store(messages, max_tokens, found)
        if recording():
            record("answers", self._key(messages, max_tokens), as_row(found), self.settings.llm.llm_model)
        return found

    def stream(self, messages: list[dict[str, str]], max_tokens: int) -> Iterator[str]:
        """A cached answer in one piece, or the model's stream (not stored: it carries no token counts)."""
        if (found := self.shipped(messages, max_tokens) or self.lookup(messages, max_tokens)) is not None:
            self.hits += 1
            yield found.text
            return
        self.misses += 1
        yield from self.llm.stream(messages, max_tokens)

    def __getattr__(self, name: str) -> Any:
        """Anything else (count_tokens, chat_json …) is the wrapped model's."""
        if name == "llm":
            raise AttributeError(name)
        return getattr(self.llm, name)

    def close(self) -> None:
        """Close the cache file and the model."""
        self._db.close()
        self.llm.close()
