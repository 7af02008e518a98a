"""The shipped answers: served instead of the model, checked live on a seeded sample, ignored when they do not fit.

The model here is a fake (a unit test of the cache logic, not of an LLM): it counts its calls and can be told to
answer differently, as llama.cpp may on another CPU.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from bench.shipped_answers import write_bundle
from helpers.config import Settings
from helpers.llm import shipped
from helpers.llm.cache import CachedCompleter, CachedLLM, DiskCache, prompt_key
from helpers.llm.client import Completion


class CountingLLM:
    """A fake model: answers "answer to <last message>" (or a changed answer), counting its calls."""

    name = "qwen2.5-coder-1.5b"

    def __init__(self, prefix: str = "answer to") -> None:
        self.prefix = prefix
        self.calls = 0

    def chat(self, messages: list[dict[str, str]], max_tokens: int) -> Completion:
        self.calls += 1
        return Completion(f"{self.prefix} {messages[-1]['content']}", 10, 3, 1.5)

    def close(self) -> None:
        pass


def ask(question: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": question}]


QUESTIONS = [f"question {i}" for i in range(60)]


@pytest.fixture
def bundle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tmp_settings: Settings) -> Settings:
    """Settings of the default reader with a bundle of 30 answers recorded from the fake model."""
    settings = tmp_settings.replace(llm_model="qwen2.5-coder-1.5b", cache_dir=tmp_path / "recording-cache")
    recording = tmp_path / "recording.jsonl"
    monkeypatch.setenv(shipped.RECORD_ENV, str(recording))
    monkeypatch.setattr(shipped, "ANSWERS_DIR", tmp_path / "answers")
    monkeypatch.setattr(shipped, "LEDGER", shipped.Ledger())
    monkeypatch.setattr(shipped, "_LOADED", {})
    recorder = CachedLLM(CountingLLM(), settings.replace(shipped_answers=False))
    for question in QUESTIONS:
        recorder.chat(ask(question), 20)
    recorder.close()
    monkeypatch.delenv(shipped.RECORD_ENV)
    count = write_bundle([recording], settings, shipped.bundle_path(settings), {"commit": "test"})
    assert count == len(QUESTIONS)
    return settings.replace(cache_dir=tmp_path / "student-cache")


def test_shipped_answers_are_served_and_a_sample_is_recomputed_live(bundle: Settings) -> None:
    model = CountingLLM()
    llm = CachedLLM(model, bundle)
    answers = [llm.chat(ask(question), 20) for question in QUESTIONS]
    ledger = shipped.LEDGER
    assert [a.text for a in answers] == [f"answer to {q}" for q in QUESTIONS]
    assert model.calls == ledger.checked == ledger.identical == 10  # live_check's default
    assert ledger.served == len(QUESTIONS) - 10 and not ledger.different
    assert "10 recomputed live (" in shipped.shipped_report() and "10 identical" in shipped.shipped_report()


def test_a_different_live_answer_is_counted_and_used(bundle: Settings) -> None:
    llm = CachedLLM(CountingLLM(prefix="another CPU says"), bundle.replace(live_check=3))
    answers = [llm.chat(ask(question), 20).text for question in QUESTIONS]
    assert len(shipped.LEDGER.different) == 3 and shipped.LEDGER.identical == 0
    assert sum(a.startswith("another CPU says") for a in answers) == 3  # the live ones, not the shipped ones
    assert "3 different" in shipped.shipped_report()


def test_a_changed_prompt_or_setting_misses_the_bundle(bundle: Settings) -> None:
    model = CountingLLM()
    llm = CachedLLM(model, bundle)
    llm.chat(ask("a question nobody shipped"), 20)
    llm.chat(ask(QUESTIONS[0]), 21)  # another answer-token limit: another key
    assert model.calls == 2 and shipped.LEDGER.served == shipped.LEDGER.checked == 0


def test_the_bundle_of_another_model_file_or_switched_off_is_not_used(bundle: Settings) -> None:
    path = shipped.bundle_path(bundle)
    header, entries = shipped.read_bundle(path)
    assert header["model_sha256"] == shipped.model_fingerprint(bundle) and len(entries) == len(QUESTIONS)
    assert len(shipped.shipped_results(bundle.replace(shipped_answers=False))) == 0
    assert len(shipped.shipped_results(bundle.replace(llm_gguf=str(path)))) == 0  # a GGUF of one's own
    text = gzip.decompress(path.read_bytes()).decode().splitlines()
    text[0] = json.dumps({**header, "model_sha256": "0" * 64})
    path.write_bytes(gzip.compress("\n".join(text).encode()))
    shipped._LOADED.clear()
    assert len(shipped.shipped_results(bundle)) == 0


def test_completer_outputs_are_checked_against_the_model_itself(bundle: Settings, tmp_path: Path) -> None:
    recording = tmp_path / "outputs.jsonl"
    rows = [
        {"ns": "outputs", "key": shipped_key(q), "value": {"text": f"answer to {q}", "seconds": 1.0}} for q in QUESTIONS
    ]
    recording.write_text("".join(json.dumps(r) + "\n" for r in rows))
    write_bundle([recording], bundle, shipped.bundle_path(bundle), {})
    shipped._LOADED.clear()
    model = CountingLLM()
    completer = CachedCompleter(
        lambda: model, model.name, DiskCache(tmp_path / "outputs", shipped.shipped_results(bundle))
    )
    texts = [completer.complete(ask(q), 20) for q in QUESTIONS]
    assert texts == [f"answer to {q}" for q in QUESTIONS] and model.calls == 10
    assert shipped.LEDGER.identical == 10


def shipped_key(question: str) -> str:
    return prompt_key("qwen2.5-coder-1.5b", {"messages": ask(question), "max_tokens": 20})


def test_the_same_recordings_give_the_same_bytes(bundle: Settings, tmp_path: Path) -> None:
    recording = tmp_path / "again.jsonl"
    rows = [{"ns": "answers", "key": f"{i:064x}", "value": {"text": str(i)}} for i in (3, 1, 2)]
    recording.write_text("".join(json.dumps(r) + "\n" for r in rows))
    first, second = tmp_path / "first.jsonl.gz", tmp_path / "second.jsonl.gz"
    write_bundle([recording], bundle, first, {"commit": "x"})
    write_bundle([recording], bundle, second, {"commit": "x"})
    assert first.read_bytes() == second.read_bytes()
    header, entries = shipped.read_bundle(first)
    assert list(entries) == sorted(entries) and header["commit"] == "x"


def test_a_bundle_leaves_out_what_another_model_answered(bundle: Settings, tmp_path: Path) -> None:
    recording = tmp_path / "two-models.jsonl"
    shipped.record("answers", "a" * 64, {"text": "mine"}, bundle.llm.llm_model)
    rows = [{"ns": "answers", "key": "a" * 64, "value": {"text": "mine"}, "model": bundle.llm.llm_model},
            {"ns": "answers", "key": "b" * 64, "value": {"text": "other"}, "model": "smollm2-135m"}]  # fmt: skip
    recording.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert write_bundle([recording], bundle, tmp_path / "out.jsonl.gz", {}) == 1


def test_the_committed_bundle_is_for_the_default_reader() -> None:
    settings = Settings()
    header, entries = shipped.read_bundle(shipped.bundle_path(settings))
    assert header["format"] == shipped.FORMAT and header["model"] == settings.llm.llm_model
    assert header["model_sha256"] == shipped.model_fingerprint(settings) != ""
    assert entries and {namespace for namespace, _ in entries} <= set(shipped.NAMESPACES)
    notebooks = {path.name[:2] for path in (shipped.REPO_ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")}
    assert all(len(key) == 64 for _, key in entries) and set(header["recorded_per_notebook"]) <= notebooks


def test_the_committed_ci_bundle_is_for_the_test_suites_reader() -> None:
    """scripts/test.sh answers with the 0.5B reader; its outputs ship so a bare machine computes none of them."""
    settings = Settings(llm_model="qwen2.5-coder-0.5b")
    header, entries = shipped.read_bundle(shipped.bundle_path(settings))
    assert header["model"] == "qwen2.5-coder-0.5b" and header["model_sha256"] == shipped.model_fingerprint(settings)
    assert entries and header["recorded_per_notebook"] == {"suite": header["recorded_per_notebook"]["suite"]}
    script = (shipped.REPO_ROOT / "scripts" / "test.sh").read_text(encoding="utf-8")
    assert "KIT_LLM_MODEL=${KIT_LLM_MODEL:-qwen2.5-coder-0.5b}" in script


def test_the_live_sample_stops_at_its_time_budget_but_never_checks_none(bundle: Settings) -> None:
    model = CountingLLM()
    llm = CachedLLM(model, bundle.replace(live_check_seconds=0.0))
    for question in QUESTIONS:
        llm.chat(ask(question), 20)
    assert model.calls == shipped.LEDGER.checked == 1 and shipped.LEDGER.served == len(QUESTIONS) - 1


def test_a_rebuild_can_keep_the_notebooks_it_did_not_record(bundle: Settings, tmp_path: Path) -> None:
    from bench import shipped_answers

    out = shipped.bundle_path(bundle)
    header, before = shipped.read_bundle(out)
    header["recorded_per_notebook"] = {"01": 30, "06": 5}
    write_bundle(
        [], bundle, out, {k: v for k, v in header.items() if k not in ("format", "model", "model_sha256")}, before
    )
    recordings = tmp_path / "new"
    recordings.mkdir()
    changed = next(iter(before))
    rows = [{"ns": "answers", "key": changed[1], "value": {"text": "re-recorded"}},
            {"ns": "outputs", "key": "f" * 64, "value": "new"}]  # fmt: skip
    (recordings / "06.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert shipped_answers.main(recordings, bundle, "abc", keep=True) == 0
    header, after = shipped.read_bundle(out)
    assert len(after) == len(before) + 1 and after[changed] == {"text": "re-recorded"}
    assert header["recorded_per_notebook"] == {"01": 30, "06": 2} and header["commit"].startswith("abc (kept: ")
    assert shipped_answers.main(recordings, bundle, "abc") == 0  # without --keep: only what was recorded
    assert len(shipped.read_bundle(out)[1]) == 2


def test_a_live_check_compares_what_was_computed_not_how_long_it_took() -> None:
    """The LLM reranker stores {"p", "seconds"}: the same p in another time is a match, another p is not."""
    from helpers.llm.shipped import comparable

    assert comparable("outputs", {"p": 0.76, "seconds": 2.6}) == comparable("outputs", {"p": 0.76, "seconds": 3.1})
    assert comparable("outputs", {"p": 0.76, "seconds": 2.6}) != comparable("outputs", {"p": 0.79, "seconds": 2.6})
    assert comparable("answers", {"text": "$90 [1]", "seconds": 7.0}) == "$90 [1]"
