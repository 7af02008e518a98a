"""The one cache of LLM outputs: keys that keep the shipped answers valid, hits and misses, a lazily built model.

The model here is a fake (a unit test of the cache logic, not of an LLM): it answers with a fixed text and counts
its calls. The pinned keys were computed by the code the shipped answers were recorded with; a changed key would
silently turn every shipped answer into a miss.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

from helpers.config import Settings
from helpers.llm.cache import CachedCompleter, CachedLLM, DiskCache, prompt_key
from helpers.llm.client import Completion
from helpers.parsing.enrich import Enricher

MESSAGES = [{"role": "system", "content": "Answer briefly."}, {"role": "user", "content": "Wann ist die Frist? – café"}]
SCHEMA = {"type": "object", "b": 1, "a": [2]}


class FakeLLM:
    """A fake model: replies with a fixed text and counts its calls (no model is run)."""

    def __init__(self, name: str = "qwen2.5-coder-0.5b", reply: str = "hello") -> None:
        self.name, self.reply, self.calls = name, reply, 0

    def chat(self, messages: list[dict[str, str]], max_tokens: int) -> Completion:
        self.calls += 1
        return Completion(self.reply, 10, 3, 1.5)

    def stream(self, messages: list[dict[str, str]], max_tokens: int) -> Iterator[str]:
        yield from (self.reply[:3], self.reply[3:])

    def close(self) -> None:
        pass


def test_keys_are_those_the_shipped_answers_were_recorded_with() -> None:
    answers = {  # CachedLLM: model, temperature, answer-token limit, messages
        ("qwen2.5-coder-0.5b", 0.0, 64, 0): "0c5e25991bb69cf269ea761f34c1a7d138d100544c4cd99aa220da454af21049",
        ("qwen2.5-coder-1.5b", 0.2, 256, 1): "c98b3a44cab9aad69694476068c0dd5a9d59d84bab48b9e60f1089fd16f8c063",
    }
    for (model, temperature, max_tokens, start), expected in answers.items():
        assert prompt_key(model, temperature, max_tokens, MESSAGES[start:]) == expected
    outputs = {  # CachedCompleter, the LLM reranker, the judge: model and one payload
        ("qwen2.5-coder-0.5b", "messages"): "a5fef69de5756988063f5d732c71908a2d6e83ef148098dad1a14ad24c4da553",
        ("m", "p_yes"): "cd10ee34b84bc22305b880c31539d55bd2df918690e07b2be26c2d09d8d553d3",
        ("qwen2.5-coder-1.5b", "rubric"): "cd772d47a08ad820b6b224a1a760f97829bd42af20dd75b523155f334be34904",
    }
    payloads = {
        "messages": {"messages": MESSAGES, "max_tokens": 20},
        "p_yes": {"p_yes": "q? passage é"},
        "rubric": {"rubric": MESSAGES, "schema": SCHEMA},
    }
    for (model, kind), expected in outputs.items():
        assert prompt_key(model, payloads[kind]) == expected
    enricher = SimpleNamespace(llm=SimpleNamespace(name="qwen2.5-coder-0.5b"))
    expected = "bcff403a19827c2c6f13262a4cfa451c502f73f62654c5cb2dc7bf394c7d2b8a"
    assert Enricher.key(enricher, "Dear students, the deadline is Friday. – Anna") == expected  # type: ignore[arg-type]


def test_the_wrappers_store_under_the_pinned_keys(tmp_settings: Settings, tmp_path: Path) -> None:
    settings = tmp_settings.replace(cache_dir=tmp_path, temperature=0.0, shipped_answers=False)
    llm = CachedLLM(FakeLLM(), settings)
    llm.chat(MESSAGES, 64)
    completer = CachedCompleter(FakeLLM, "qwen2.5-coder-0.5b", DiskCache(tmp_path))
    completer.complete(MESSAGES, 20)
    answers = DiskCache(tmp_path, namespace="answers")
    assert answers.stored("0c5e25991bb69cf269ea761f34c1a7d138d100544c4cd99aa220da454af21049")["text"] == "hello"
    outputs = DiskCache(tmp_path)
    assert outputs.stored("a5fef69de5756988063f5d732c71908a2d6e83ef148098dad1a14ad24c4da553") == {
        "text": "hello",
        "seconds": 1.5,
    }
    assert outputs.stored("0c5e25991bb69cf269ea761f34c1a7d138d100544c4cd99aa220da454af21049") is None  # namespaces


def test_cached_llm_answers_the_same_prompt_from_disk(tmp_settings: Settings, tmp_path: Path) -> None:
    settings = tmp_settings.replace(cache_dir=tmp_path / "cache")
    inner = FakeLLM()
    first = CachedLLM(inner, settings)
    fresh = first.chat(MESSAGES, 50)
    first.close()
    again = CachedLLM(inner, settings)  # a new process would see the same file
    cached = again.chat(MESSAGES, 50)
    assert inner.calls == 1 and cached.cached and not fresh.cached
    assert (cached.text, cached.prompt_tokens, cached.seconds) == (fresh.text, fresh.prompt_tokens, fresh.seconds)
    assert list(again.stream(MESSAGES, 50)) == ["hello"]  # a cached answer in one piece
    assert list(again.stream(MESSAGES[1:], 50)) == list(again.stream(MESSAGES[1:], 50)) == ["hel", "lo"]
    assert inner.calls == 1 and again.hits == 2 and again.misses == 2 and again.uncached is inner  # no stream stored


def test_completer_serves_the_second_call_and_builds_the_model_lazily(tmp_path: Path) -> None:
    fake = FakeLLM(name="fake")
    built = []
    llm = CachedCompleter(lambda: built.append(1) or fake, "fake", DiskCache(tmp_path))
    messages = [{"role": "user", "content": "hi"}]
    assert llm.complete(messages, 8) == "hello" and llm.complete(messages, 8) == "hello"
    assert fake.calls == 1 and built == [1] and llm.cache.hits == 1 and llm.call_seconds == [1.5, 1.5]
    never = lambda: (_ for _ in ()).throw(AssertionError("no model needed"))  # noqa: E731
    again = CachedCompleter(never, "fake", DiskCache(tmp_path))
    assert again.complete(messages, 8) == "hello"  # a new process reads the file, never builds the model
    assert CachedCompleter(lambda: fake, "other-model", DiskCache(tmp_path)).complete(messages, 8) == "hello"
    assert fake.calls == 2  # another model name is another key
