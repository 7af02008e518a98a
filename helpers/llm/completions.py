"""A tiny on-disk cache for LLM outputs, keyed by model name + a hash of the prompt.

Paraphrases, rewrites, generated training questions and LLM relevance scores are slow to make (seconds
each with the local model) and deterministic at temperature 0, so each one is stored as a small JSON file
under `settings.paths.cache_dir / "llm_outputs"`. A re-run reads the file instead of calling the model, and the
model itself is only loaded on the first miss (`CachedCompleter` takes a function that builds it). The real model
time is stored with each output, so a latency table stays honest when it is read from the cache.
What it leaves out: expiry and size limits — delete the folder to start again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from helpers.config import Settings
from helpers.llm.client import LLM
from helpers.llm.shipped import ShippedResults, record, shipped_results


def prompt_key(model: str, payload: Any) -> str:
    """A stable hex key for (model, prompt): sha256 of their JSON."""
    text = json.dumps([model, payload], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class DiskCache:
    """JSON values in files named by their key (two-level folders keep directories small)."""

    def __init__(self, folder: Path, shipped: ShippedResults | None = None, model: str = "") -> None:
        self.folder = Path(folder)
        self.shipped = shipped or ShippedResults.empty()
        self.model = model  # the configured model, named in a recording (building the shipped answers)
        self.hits = 0
        self.misses = 0

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> Any | None:
        """The shipped or stored value, or None (and a counted miss)."""
        value = self.shipped.get("outputs", key)
        path = self._path(key)
        if value is None and path.exists():
            value = json.loads(path.read_text(encoding="utf-8"))
        if value is None:
            self.misses += 1
            return None
        self.hits += 1
        record("outputs", key, value, self.model)
        return value

    def put(self, key: str, value: Any) -> None:
        """Store a value (written to a temporary file first, so a crash never leaves half a file)."""
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(value, ensure_ascii=False), encoding="utf-8")
        tmp.replace(path)
        record("outputs", key, value, self.model)


def llm_cache(settings: Settings) -> DiskCache:
    """The kit's cache of LLM outputs, behind the shipped answers of the configured model."""
    return DiskCache(settings.paths.cache_dir / "llm_outputs", shipped_results(settings), settings.llm.llm_model)


class CachedCompleter:
    """Short completions (paraphrases, rewrites) from a disk cache; the model is built only on the first miss.

    Not to be confused with `helpers.llm.CachedLLM`, which wraps a built model and caches whole
    `Completion`s (answers, with token counts) in SQLite; this one takes a factory so notebooks that never
    miss the cache never load a model.
    """

    def __init__(self, make: Callable[[], LLM], model_name: str, cache: DiskCache) -> None:
        self._make = make
        self._llm: LLM | None = None
        self.model_name = model_name
        self.cache = cache
        self.call_seconds: list[float] = []  # real model time of every reply, also for cached ones (stored with it)

    @classmethod
    def from_pipeline(cls, pipeline: Any) -> CachedCompleter:
        """Use the pipeline's LLM (loaded lazily by the pipeline itself)."""
        return cls(lambda: pipeline.llm, pipeline.settings.llm.name, llm_cache(pipeline.settings))

    @property
    def llm(self) -> LLM:
        """The underlying model (built now if needed)."""
        if self._llm is None:
            self._llm = self._make()
        return self._llm

    def complete(self, messages: list[dict[str, str]], max_tokens: int) -> str:
        """The model's reply text, from the cache when this exact prompt was seen before."""
        key = prompt_key(self.model_name, {"messages": messages, "max_tokens": max_tokens})

        def live() -> dict[str, Any]:  # the model itself, past any answer cache it is wrapped in
            completion = getattr(self.llm, "uncached", self.llm).chat(messages, max_tokens)
            return {"text": completion.text, "seconds": completion.seconds}

        cached = self.cache.shipped.resolve("outputs", key, live)
        if cached is not None:
            record("outputs", key, cached, self.cache.model)
        else:
            cached = self.cache.get(key)
        if cached is not None:
            if isinstance(cached, dict):  # {"text", "seconds"}; a bare string (older entry) has no timing
                self.call_seconds.append(float(cached["seconds"]))
                return str(cached["text"])
            return str(cached)
        completion = self.llm.chat(messages, max_tokens)
        self.call_seconds.append(completion.seconds)
        self.cache.put(key, {"text": completion.text, "seconds": completion.seconds})
        return completion.text
