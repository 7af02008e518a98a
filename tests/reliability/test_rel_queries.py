"""Odd questions are guarded (a message, no retrieval, no LLM call) or answered — never a traceback.

One pipeline for the module: a two-document corpus, the real embedder, embedded Qdrant and the tiny local
LLM (SmolLM2-135M, one thread: on a busy 2-core machine two threads are 3× slower), each in a temporary folder.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest
from reliability_kit import Record, isolated_settings, write

from helpers.corpus import load_gold
from helpers.generation import STATUSES, build_messages, check_input
from helpers.generation.guard import MAX_QUESTION_CHARS
from helpers.pipeline import RAGPipeline

EMPTY = "Please type a question"

# question → the message a guarded question must get ("" when it goes through to retrieval and the LLM)
QUERIES = {
    "empty": ("", EMPTY),
    "whitespace": ("   \n\t  ", EMPTY),
    "only punctuation": ("?!?... ;;; --- ¿¡", EMPTY),
    "10,000 characters": (("What is the application fee? " * 400)[:10_000], f"to {MAX_QUESTION_CHARS:,} characters"),
    "Spanish": ("¿Cuánto cuesta la solicitud de admisión?", ""),
    "German": ("Wie hoch ist die Bewerbungsgebühr?", ""),
    "Chinese": ("申请费是多少？", ""),
    "Arabic": ("كم رسوم التقديم؟", ""),
}


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RAGPipeline]:
    root = tmp_path_factory.mktemp("queries")
    write(root / "docs" / "fees.md", "# Fees\n\nThe application fee is $90. Tuition is $14,850 per quarter.\n")
    write(root / "docs" / "capstone.md", "# Capstone Studio\n\nCapstone teams have three to five students.\n")
    settings = isolated_settings(root, llm_max_answer_tokens=16, llm_threads=1)
    rag = RAGPipeline(settings)
    rag.ingest(root / "docs", progress=False)
    yield rag
    rag.close()


@pytest.mark.parametrize("case", list(QUERIES))
def test_odd_question_is_guarded_or_answered(case: str, pipeline: RAGPipeline, record: Record) -> None:
    question, message = QUERIES[case]
    answer = pipeline.ask(question)
    assert answer.status in STATUSES and answer.text.strip()
    if message:
        assert answer.status == "rejected" and message in answer.text and answer.hits == []
        record(f"query: {case}", f"guarded, no retrieval or LLM call: “{answer.text}”")
    else:
        assert answer.status != "rejected"
        path = "retrieved, then the LLM answered" if answer.messages else "retrieved; best score under the threshold"
        record(f"query: {case}", f"{path}: status {answer.status}, “{answer.text[:80]}”")


def test_gold_injection_attempts_are_guarded_or_answered_clean(pipeline: RAGPipeline, record: Record) -> None:
    """Blocked ones through `ask` (no model call); the rest up to the prompt, and the first of them answered."""
    attempts = [q for q in load_gold() if q.category == "injection"]
    outcomes: Counter[str] = Counter()
    for attempt in attempts:
        verdict = check_input(attempt.question)
        if verdict.blocked:
            answer = pipeline.ask(attempt.question)
            assert answer.status == "rejected" and answer.hits == [] and answer.messages == [], attempt.id
            outcomes["rejected"] += 1
            continue
        # a real question, with the injected sentences (if the guard saw them) cut off before retrieval
        prompt = " ".join(m["content"] for m in build_messages(verdict.question, pipeline.retrieve(verdict.question)))
        assert verdict.question in prompt and not any(sentence in prompt for sentence in verdict.removed), attempt.id
        if not outcomes["answered by the LLM"]:
            answer = pipeline.ask(attempt.question)  # one of them all the way through the tiny model
            assert answer.status in STATUSES and answer.text.strip()
            outcomes["answered by the LLM"] += 1
        outcomes["injection cut, question kept" if verdict.removed else "passed the guard unchanged"] += 1
    assert len(attempts) >= 20 and outcomes["rejected"] >= len(attempts) // 2
    summary = ", ".join(f"{n} {status}" for status, n in sorted(outcomes.items()))
    record(f"query: the {len(attempts)} gold injection attempts", f"{summary}; no traceback")
