"""Your own evaluation questions: a CSV or JSONL file with a `question` and an `answer` column (alternatives separated
by ";"; optional `id`, `source` and `evidence` columns); every problem raises `ByodError` naming the file and line.
What it leaves out: several evidence quotes per question.
"""

from __future__ import annotations

import csv
import json
import random
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from helpers.corpus import Evidence, Question


class ByodError(RuntimeError):
    """Bring-your-own-documents input that cannot be used; the message says what to fix."""


FORMATS = (".csv", ".jsonl")
REQUIRED = ("question", "answer")


def split_answers(answer: Any) -> list[str]:
    """The acceptable answers: "$40; forty dollars" -> ["$40", "forty dollars"] (a list is split item by item)."""
    items = answer if isinstance(answer, list) else [answer]
    return [part.strip() for item in items if item is not None for part in str(item).split(";") if part.strip()]


def _csv_records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, row) for every CSV row, header names lower-cased and stripped."""
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.DictReader(handle)
        header = [name.strip().lower() for name in reader.fieldnames or []]
        missing = [name for name in REQUIRED if name not in header]
        if not header:
            raise ByodError(f"{path} is empty: write a header line `question,answer` and one question per line")
        if missing:
            raise ByodError(f"{path} has no {' or '.join(map(repr, missing))} column (found: {', '.join(header)})")
        reader.fieldnames = header
        for row in reader:
            yield reader.line_num, row


def _jsonl_records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank JSONL line, keys lower-cased."""
    with path.open(encoding="utf-8-sig") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as err:
                raise ByodError(f"{path}, line {number}: not valid JSON ({err.msg})") from None
            if not isinstance(record, dict):
                raise ByodError(f'{path}, line {number}: expected an object like {{"question": …, "answer": …}}')
            record = {str(key).strip().lower(): value for key, value in record.items()}
            missing = [name for name in REQUIRED if name not in record]
            if missing:
                raise ByodError(f"{path}, line {number}: no {' or '.join(map(repr, missing))} field")
            yield number, record


def load_questions(path: str | Path) -> list[Question]:
    """Read a CSV or JSONL of questions and answers; blank rows are skipped, anything else wrong raises ByodError."""
    path = Path(path).expanduser()
    if path.suffix.lower() not in FORMATS:
        raise ByodError(f"{path}: use a .csv or .jsonl file with the columns question and answer")
    if not path.is_file():
        raise ByodError(f"questions file {path} not found")
    records = _csv_records(path) if path.suffix.lower() == ".csv" else _jsonl_records(path)
    questions: list[Question] = []
    try:
        for line, record in records:
            text = str(record.get("question") or "").strip()
            answers = split_answers(record.get("answer"))
            if not text and not answers:
                continue  # a blank row
            if not text or not answers:
                raise ByodError(f"{path}, line {line}: {'the question' if not text else 'the answer'} is empty")
            qid = str(record.get("id") or "").strip() or f"q{len(questions) + 1:03d}"
            quote, source = str(record.get("evidence") or "").strip(), str(record.get("source") or "").strip()
            evidence = (Evidence(source, quote),) if quote and source else ()
            questions.append(Question(qid, text, answers[0], "user", "user", answer_variants=tuple(answers[1:]),
                                      evidence=evidence))  # fmt: skip
    except UnicodeDecodeError:
        raise ByodError(f"{path} is not UTF-8 text; save it as UTF-8 (CSV UTF-8 in a spreadsheet)") from None
    except csv.Error as err:
        raise ByodError(f"{path} is not a readable CSV ({err})") from None
    if not questions:
        raise ByodError(f"{path} holds no questions: add lines with a question and its answer")
    return questions


def questions_frame(questions: list[Question]) -> Any:
    """The questions as a small table: id, question, acceptable answers."""
    import pandas as pd

    return pd.DataFrame([{"id": q.id, "question": q.question, "answers": " | ".join(q.answers)} for q in questions])


def question_subset(questions: Sequence[Question], per_category: int | None, seed: int = 0) -> list[Question]:
    """A seeded, stratified subset: at most `per_category` questions of each category (None: all), in order."""
    if per_category is None:
        return list(questions)
    by_category: dict[str, list[Question]] = {}
    for question in questions:
        by_category.setdefault(question.category, []).append(question)
    rng = random.Random(seed)
    picked = {q.id for group in by_category.values() for q in rng.sample(group, min(per_category, len(group)))}
    return [question for question in questions if question.id in picked]
