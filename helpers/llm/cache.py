"""The kit's one cache of LLM outputs: the same model given the same prompt answers from disk (deterministic at
temperature 0). One SQLite file, by namespace and key (a sha256 of the model, the settings and every message), behind
the shipped answers; the stored timings are the real call's. `CachedLLM` wraps a model, `CachedCompleter` builds one
only on its first miss. What it leaves out: eviction (delete the file to start over).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import asdict
from functools import cached_property
from pathlib import Path
from typing import Any

from helpers.config import Settings
from helpers.llm.client import LLM, Completion
from helpers.llm.shipped import ShippedResults, record, shipped_results

FILE = "llm_cache.sqlite"


def prompt_key(model: str, *parts: Any) -> str:
    """A stable hex key for (model, what decides its output): sha256 of their JSON."""
    text = json.dumps([model, *parts], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class DiskCache:
    """JSON values of one namespace by key, behind the shipped answers of that namespace."""

    def __init__(
        self, folder: Path, shipped: ShippedResults | None = None, model: str = "", namespace: str = "outputs"
    ) -> None:
        self.shipped = shipped or ShippedResults.empty()
        self.model = model  # the configured model, named in a recording (building the shipped answers)
        self.namespace = namespace
        self.hits = self.misses = 0
        Path(folder).mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(Path(folder) / FILE, timeout=30, check_same_thread=False)
        self._db.execute("CREATE TABLE IF NOT EXISTS outputs (ns TEXT, key TEXT, value TEXT, PRIMARY KEY (ns, key))")

    def stored(self, key: str) -> Any | None:
        """The value in the file, or None."""
        query = "SELECT value FROM outputs WHERE ns = ? AND key = ?"
        row = self._db.execute(query, (self.namespace, key)).fetchone()
        return json.loads(row[0]) if row else None

    def get(self, key: str, live: Callable[[], Any] | None = None) -> Any | None:
        """The shipped value (`live` recomputes one in the checked sample), else the stored one; None: a miss."""
        value = self.shipped.resolve(self.namespace, key, live) if live else self.shipped.get(self.namespace, key)
        if value is None:
            value = self.stored(key)
        if value is None:
            self.misses += 1
            return None
        self.hits += 1
        record(self.namespace, key, value, self.model)
        return value

    def put(self, key: str, value: Any) -> None:
        """Store a value (one transaction: a crash never leaves half of it)."""
        with self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO outputs VALUES (?, ?, ?)", (self.namespace, key, json.dumps(value))
            )
        record(self.namespace, key, value, self.model)

    def close(self) -> None:
        """Close the file."""
        self._db.close()


def llm_cache(settings: Settings, namespace: str = "outputs") -> DiskCache:
    """The kit's cache of LLM outputs, behind the shipped answers of the configured model."""
    shipped = shipped_results(settings)
    return DiskCache(settings.paths.cache_dir, shipped, settings.llm.llm_model, namespace)


def as_row(completion: Completion) -> dict[str, Any]:
    """A completion as the stored value (text, token counts, the real call's seconds)."""
    return {key: value for key, value in asdict(completion).items() if key != "cached"}


class CachedLLM:
    """Wraps any `LLM`; answers a prompt seen before from the cache, otherwise asks the model and stores it."""

    def __init__(self, llm: LLM, settings: Settings) -> None:
        self.llm, self.settings, self.name = llm, settings, llm.name
        self.cache = llm_cache(settings, "answers")

    @property
    def hits(self) -> int:
        """Completions served from the shipped answers or the file."""
        return self.cache.hits

    @property
    def misses(self) -> int:
        """Completions the model had to make."""
        return self.cache.misses

    @property
    def uncached(self) -> LLM:
        """The wrapped model, asked directly."""
        return self.llm

    def _key(self, messages: list[dict[str, str]], max_tokens: int) -> str:
        return prompt_key(self.name, self.settings.llm.temperature, max_tokens, messages)

    def lookup(self, messages: list[dict[str, str]], max_tokens: int) -> Completion | None:
        """The shipped (or, in the checked sample, live) or stored completion of this prompt, or None."""
        row = self.cache.get(self._key(messages, max_tokens), lambda: as_row(self.llm.chat(messages, max_tokens)))
        return None if row is None else Completion(**row, cached=True)

    def chat(self, messages: list[dict[str, str]], max_tokens: int) -> Completion:
        """The cached completion, or a fresh one (then stored)."""
        if (found := self.lookup(messages, max_tokens)) is not None:
            return found
        completion = self.llm.chat(messages, max_tokens)
        self.cache.put(self._key(messages, max_tokens), as_row(completion))
        return completion

    def stream(self, messages: list[dict[str, str]], max_tokens: int) -> Iterator[str]:
        """A cached answer in one piece, or the model's stream (not stored: it carries no token counts)."""
        if (found := self.lookup(messages, max_tokens)) is not None:
            yield found.text
            return
        yield from self.llm.stream(messages, max_tokens)

    def __getattr__(self, name: str) -> Any:
        """Anything else (count_tokens, chat_json …) is the wrapped model's."""
        if name in ("llm", "cache"):
            raise AttributeError(name)
        return getattr(self.llm, name)

    def close(self) -> None:
        """Close the cache file and the model."""
        self.cache.close()
        self.llm.close()


class CachedCompleter:
    """Short completions (paraphrases, rewrites) as text from the cache; the model is built on the first miss."""

    def __init__(self, make: Callable[[], LLM], model_name: str, cache: DiskCache) -> None:
        self._make, self.model_name, self.cache = make, model_name, cache
        self.call_seconds: list[float] = []  # real model time of every reply, also for cached ones (stored with it)

    @classmethod
    def from_pipeline(cls, pipeline: Any) -> CachedCompleter:
        """Use the pipeline's LLM (loaded lazily by the pipeline itself)."""
        return cls(lambda: pipeline.llm, pipeline.settings.llm.name, llm_cache(pipeline.settings))

    @cached_property
    def llm(self) -> LLM:
        """The underlying model (built on first use)."""
        return self._make()

    def complete(self, messages: list[dict[str, str]], max_tokens: int) -> str:
        """The model's reply text, from the cache when this exact prompt was seen before."""
        key = prompt_key(self.model_name, {"messages": messages, "max_tokens": max_tokens})

        def reply(llm: LLM) -> dict[str, Any]:
            completion = llm.chat(messages, max_tokens)
            return {"text": completion.text, "seconds": completion.seconds}

        found = self.cache.get(key, lambda: reply(getattr(self.llm, "uncached", self.llm)))  # past any answer cache
        if found is None:
            found = reply(self.llm)
            self.cache.put(key, found)
        self.call_seconds.append(float(found["seconds"]))
        return str(found["text"])
