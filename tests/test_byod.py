"""Bring your own documents: .txt parsing, a folder in its own collection (idempotent), the questions
loader and its messages, and the `eval` command end to end with the tiny test model."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

import helpers.config
from helpers.__main__ import main
from helpers.byod import ByodError, collection_name, ingest_folder, load_questions, split_answers
from helpers.config import Settings
from helpers.parsing import ParseError, parse, parse_folder

# ---------------------------------------------------------------------------------------------- parsing


def test_plain_text_is_parsed_with_its_first_line_as_title(tmp_path: Path) -> None:
    path = tmp_path / "opening_hours.txt"
    path.write_text("Opening hours\n\nWe open at 10:00 on Saturdays.\n", encoding="utf-8")
    [doc] = parse(path)
    assert doc.metadata["doc_type"] == "text" and doc.metadata["title"] == "Opening hours"
    assert "10:00 on Saturdays" in doc.text
    (tmp_path / "blank.txt").write_text("  \n\n", encoding="utf-8")
    with pytest.raises(ParseError, match="no readable text"):
        parse(tmp_path / "blank.txt")


def test_unknown_and_corrupt_files_are_skipped_and_reported(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("Lockers cost $8 per month.", encoding="utf-8")
    (tmp_path / "plan.svg").write_text("<svg/>", encoding="utf-8")
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4 not really a pdf")
    report = parse_folder(tmp_path, progress=False)
    assert [d.metadata["source"] for d in report.documents] == ["notes.txt"]
    assert {name for name, _ in report.skipped} == {"plan.svg", "broken.pdf"}


# ---------------------------------------------------------------------------------------------- ingest


def test_collection_name_is_sanitised_and_never_the_course_one() -> None:
    assert collection_name("/tmp/My Notes (2026)") == "my_notes_2026"
    assert collection_name("course") == "course_folder"
    assert collection_name("///") != ""


def test_ingest_folder_uses_its_own_collection_and_never_duplicates(tmp_settings: Settings, tiny_corpus: Path) -> None:
    (tiny_corpus / "lockers.txt").write_text("Lockers\n\nA locker costs $8 per month.\n", encoding="utf-8")
    (tiny_corpus / "photo.png").write_bytes(b"\x89PNG\r\n")
    docs = ingest_folder(tiny_corpus, tmp_settings, progress=False)
    try:
        assert docs.collection == "docs" and docs.pipeline.settings.collection == "docs"
        assert docs.report.documents == 3 and docs.report.skipped[0][0] == "photo.png"
        assert Path(docs.pipeline.settings.data_dir).is_relative_to(tmp_settings.data_dir)
        again = docs.pipeline.ingest(tiny_corpus, progress=False)
        assert again.written == 0 and again.points == docs.report.points == docs.report.chunks
        assert not docs.pipeline.store.client.collection_exists(tmp_settings.collection)  # the course one
        assert "$8" in docs.pipeline.retrieve("How much is a locker?", k=1)[0].text
    finally:
        docs.close()


def test_ingest_folder_refuses_a_missing_or_unreadable_folder(tmp_settings: Settings, tmp_path: Path) -> None:
    with pytest.raises(ByodError, match="not a folder"):
        ingest_folder(tmp_path / "nowhere", tmp_settings)
    (tmp_path / "only").mkdir()
    (tmp_path / "only" / "a.xyz").write_text("?", encoding="utf-8")
    with pytest.raises(ByodError, match=r"no readable document .*a\.xyz"):
        ingest_folder(tmp_path / "only", tmp_settings, progress=False)


# ---------------------------------------------------------------------------------------------- questions


def test_questions_from_csv_with_alternatives(tmp_path: Path) -> None:
    path = tmp_path / "q.csv"
    path.write_text('Question, Answer\nHow much is a locker?,$8; eight dollars\n,\n"When, exactly?",10:00\n')
    first, second = load_questions(path)
    assert first.id == "q001" and first.answers == ["$8", "eight dollars"]
    assert second.question == "When, exactly?" and second.answers == ["10:00"]


def test_questions_from_jsonl_with_ids_and_lists(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    lines = [{"id": "a", "question": "Fee?", "answer": ["$20", "20; twenty"]}, {"question": "Day?", "answer": "Monday"}]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n\n", encoding="utf-8")
    first, second = load_questions(path)
    assert first.id == "a" and first.answers == ["$20", "20", "twenty"]
    assert second.id == "q002" and split_answers(" x ;; y ") == ["x", "y"]


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("missing.csv", None, "not found"),
        ("q.csv", "", "is empty"),
        ("q.csv", "question,answer\n", "holds no questions"),
        ("q.csv", "question,reply\nA?,B\n", "no 'answer' column"),
        ("q.csv", "question,answer\nA?,\n", "line 2: the answer is empty"),
        ("q.jsonl", '{"question": "A?", "answer": "B"}\n{oops\n', "line 2: not valid JSON"),
        ("q.jsonl", '{"question": "A?"}\n', "line 1: no 'answer' field"),
        ("q.xlsx", "x", "use a .csv or .jsonl"),
    ],
)
def test_bad_question_files_get_a_clear_message(tmp_path: Path, name: str, content: str | None, message: str) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(ByodError, match=message):
        load_questions(path)


# ---------------------------------------------------------------------------------------------- command line


def test_eval_command_prints_the_table_and_writes_rows(
    tmp_settings: Settings, tiny_corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.setattr(helpers.config, "_current", tmp_settings.replace(rerank_depth=3))
    questions = tmp_path / "questions.csv"
    questions.write_text("question,answer\nWhat is the application fee?,$90; 90\nHow big are teams?,three to five\n")
    out = tmp_path / "rows.csv"
    code = main(["eval", "--docs", str(tiny_corpus), "--questions", str(questions), "--limit", "1", "--quiet",
                 "--out", str(out), "--configs", "closed_book,dense,hybrid,default"])  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 0 and "closed book" in printed and "hybrid" in printed and str(out) in printed
    assert "settings: chunk_strategy=" in printed and "top_k=" in printed  # what the table was run with
    with out.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    configs = [row["config"] for row in rows]
    assert configs[:3] == ["closed book", "dense", "hybrid"] and configs[3].startswith("default (")
    assert all(row["id"] == "q001" for row in rows) and len(rows) == 4  # no reranked row unless asked
    assert rows[1]["answer_in_top_k"] == "1.0"  # the dense hits hold "$90"


def test_eval_command_refuses_an_unknown_configuration(tmp_path: Path, capsys) -> None:
    questions = tmp_path / "questions.csv"
    questions.write_text("question,answer\nWhat is the application fee?,$90\n")
    code = main(["eval", "--docs", str(tmp_path), "--questions", str(questions), "--configs", "dense,colbert"])
    assert code == 2 and "--configs takes" in capsys.readouterr().err


def test_eval_command_reports_a_bad_questions_file_without_a_traceback(tmp_path: Path, capsys) -> None:
    assert main(["eval", "--docs", str(tmp_path), "--questions", str(tmp_path / "none.csv")]) == 1
    assert "error: questions file" in capsys.readouterr().err


def test_a_folder_past_the_local_mode_limit_is_told_what_to_switch_to(tmp_settings: Settings) -> None:
    from helpers.byod.ingest import LOCAL_MODE_LIMIT, store_advice

    local = tmp_settings.replace(store_backend="local", qdrant_url="")
    assert store_advice(LOCAL_MODE_LIMIT, local) == ""
    advice = store_advice(LOCAL_MODE_LIMIT + 1, local)
    assert "KIT_STORE_BACKEND=edge" in advice and "QDRANT_URL" in advice
    assert store_advice(10 * LOCAL_MODE_LIMIT, local.replace(store_backend="edge")) == ""
    assert store_advice(10 * LOCAL_MODE_LIMIT, local.replace(qdrant_url="http://localhost:6333")) == ""
