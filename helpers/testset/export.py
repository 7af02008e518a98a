"""Generated pairs out of the kit: JSONL in the format `python -m helpers eval` reads (`save_jsonl`), and
gold-style Questions whose evidence is the chunk's sentence holding the answer (`as_questions`).
What it leaves out: other export formats.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

from helpers.corpus import Evidence, Question
from helpers.testset.generate import Generated

SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def records(pairs: Sequence[Generated], prefix: str = "gen") -> list[dict[str, str]]:
    """The pairs as plain JSON objects, numbered."""
    return [
        {"id": f"{prefix}-{i:03d}", "question": p.question, "answer": p.answer, "source": p.source,
         "chunk_id": p.chunk_id, "evidence": answer_sentence(p.chunk_text, p.answer)}
        for i, p in enumerate(pairs, start=1)
    ]  # fmt: skip


def save_jsonl(pairs: Sequence[Generated], path: str | Path) -> Path:
    """Write the pairs as JSONL (UTF-8, one object a line); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records(pairs)), encoding="utf-8")
    return path


def answer_sentence(chunk_text: str, answer: str) -> str:
    """The sentence of the chunk that holds the answer (the whole chunk if none does)."""
    folded = " ".join(answer.lower().split())
    for sentence in SENTENCE_END.split(" ".join(chunk_text.split())):
        if folded and folded in sentence.lower():
            return sentence
    return chunk_text


def as_questions(pairs: Sequence[Generated], prefix: str = "gen") -> list[Question]:
    """Gold-style Questions (category "generated", split "dev"), evidence = the answer's sentence."""
    return [
        Question(r["id"], p.question, p.answer, "generated", "dev",
                 evidence=(Evidence(p.source, answer_sentence(p.chunk_text, p.answer)),), extractive=True)
        for r, p in zip(records(pairs, prefix), pairs, strict=True)
    ]  # fmt: skip
