"""Test-set generation: the filters, the JSONL the eval command reads, the review decisions, the agreement table.

The LLM is replaced by a fake JSON writer here (this file tests the plumbing, not the model's questions).
"""

from __future__ import annotations

import json

import pytest

from helpers.corpus.questions import load_questions
from helpers.llm import Completion
from helpers.llm.cache import DiskCache
from helpers.testset import (
    Generated,
    QAWriter,
    Review,
    agreement,
    answer_candidates,
    apply_filters,
    as_questions,
    copied,
    grounded,
    reasons,
    sample_chunks,
    save_jsonl,
    standalone,
)
from helpers.types import Hit

CHUNK = (
    "The application fee for the MS in Applied Data Science is $90 for 2027 entry. "
    "Fee waivers are available to McNair Scholars and to veterans of the U.S. armed forces."
)


def pair(question: str, answer: str, chunk: str = CHUNK) -> Generated:
    return Generated(question, answer, "c1", "web/admissions.html", chunk)


def test_grounded_standalone_and_not_copied_pairs_are_kept() -> None:
    assert reasons(pair("How much does it cost to apply to the MS program for 2027?", "$90")) == []


def test_each_filter_rejects_its_case() -> None:
    assert "answer not in chunk" in reasons(pair("How much is the application fee for 2027 entry?", "$75"))
    assert "not standalone" in reasons(pair("What does the passage say about the fee?", "$90"))
    assert "not standalone" in reasons(pair("What is the name of the course?", "$90"))
    assert "copied sentence" in reasons(pair("The application fee for the MS in Applied Data Science is what?", "$90"))
    assert "answer in question" in reasons(
        pair("Is the McNair Scholars fee waived for McNair Scholars?", "McNair Scholars")
    )
    assert reasons(pair("", "")) == ["empty"]
    assert not standalone("Fee for MS?") and standalone("Who can get an application fee waiver for the MS?")
    assert not copied("Who gets a waiver at Lakeside?", CHUNK)


def test_sampling_is_seeded_and_spreads_over_documents() -> None:
    chunks = [Hit(f"{s}-{i}", "x" * 250, {"source": s}) for s in "abc" for i in range(5)]
    first = sample_chunks(chunks, 3, seed=1)
    assert first == sample_chunks(chunks, 3, seed=1)
    assert {c.source for c in first} == {"a", "b", "c"}


class FakeJSONLLM:
    """Stands in for the local model in this unit test only: a fixed JSON reply, counting its calls."""

    name = "fake"

    def __init__(self) -> None:
        self.calls = 0

    def chat_json(self, messages, schema, max_tokens) -> Completion:
        self.calls += 1
        return Completion(
            '{"question": "How much is the application fee for 2027 entry?", "answer": "$90"}', 10, 5, 0.1
        )


def test_writer_validates_and_caches_every_reply(tmp_path, tmp_settings) -> None:
    fake = FakeJSONLLM()
    writer = QAWriter(lambda: fake, tmp_settings, DiskCache(tmp_path / "cache"), style="free")
    chunk = Hit("c1", CHUNK, {"source": "web/admissions.html", "title": "Admissions"})
    first = writer.write(chunk)
    again = QAWriter(lambda: fake, tmp_settings, DiskCache(tmp_path / "cache"), style="free").write(chunk)
    assert (first.question, first.answer) == (again.question, again.answer) == (
        "How much is the application fee for 2027 entry?", "$90")  # fmt: skip
    assert fake.calls == 1  # the second writer read the disk cache
    assert apply_filters([first])[0].kept


def test_answer_first_picks_a_span_of_the_chunk_and_asks_only_for_the_question(tmp_path, tmp_settings) -> None:
    text = "Tuition is $1,245 per unit. Orientation runs September 21, 2026 in MDC 110; ADS 501 needs 4 units."
    assert answer_candidates(text) == ["$1,245 per unit", "September 21, 2026", "MDC 110", "ADS 501", "4 units"]
    fake = FakeJSONLLM()
    writer = QAWriter(lambda: fake, tmp_settings, DiskCache(tmp_path / "cache"))
    made = writer.write(Hit("c2", text, {"source": "web/tuition.html"}))
    assert made.answer in answer_candidates(text) and grounded(made)  # the kit's span, not the model's "$90"
    assert made.question == "How much is the application fee for 2027 entry?"
    assert writer.write(Hit("c3", "No figures here at all. " * 10, {"source": "x"})).answer == "$90"  # free
    with pytest.raises(ValueError, match="style"):
        QAWriter(lambda: fake, tmp_settings, style="creative")


def test_saved_jsonl_is_what_the_eval_command_reads(tmp_path) -> None:
    pairs = [pair("How much does it cost to apply to the MS program for 2027?", "$90")]
    path = save_jsonl(pairs, tmp_path / "q.jsonl")
    record = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert record["question"] == pairs[0].question and record["source"] == "web/admissions.html"
    loaded = load_questions(path)
    assert [(q.question, q.answer) for q in loaded] == [(pairs[0].question, "$90")]
    assert loaded[0].evidence[0].doc == "web/admissions.html" and "$90" in loaded[0].evidence[0].quote
    question = as_questions(pairs)[0]
    assert question.evidence[0].quote.startswith("The application fee") and "$90" in question.evidence[0].quote


def test_review_keeps_edits_and_saves_only_accepted(tmp_path) -> None:
    review = Review([pair("Q one about Lakeside?", "$90"), pair("Q two about Lakeside?", "veterans")])
    review.accept(0, answer="$90 (2027 entry)")
    review.reject(1)
    assert review.counts() == {"accepted": 1, "rejected": 1, "open": 0}
    lines = review.save(tmp_path / "r.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["answer"] == "$90 (2027 entry)"
    review.widget(tmp_path / "w.jsonl")  # builds without a display


def test_agreement_scores_em_and_f1() -> None:
    table = agreement([pair("a?", "$90"), pair("b?", "McNair Scholars and veterans")], ["$90", "veterans"])
    assert table["em"].tolist() == [1.0, 0.0]
    assert 0 < table["f1"].iloc[1] < 1
