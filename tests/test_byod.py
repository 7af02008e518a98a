"""Bring your own documents: .txt parsing, a folder in its own collection (idempotent), the questions
loader and its messages, and the `eval` command end to end with the tiny test model."""

from __future__ import annotations

import csv
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

import helpers.config
from helpers.__main__ import main
from helpers.byod import ByodError, collection_name, folder_settings, ingest_folder
from helpers.byod.ingest import folder_key
from helpers.config import REPO_ROOT, Settings
from helpers.corpus.questions import load_questions, split_answers
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
    assert re.fullmatch(r"my_notes_2026_[0-9a-f]{8}", collection_name("/tmp/My Notes (2026)"))
    assert collection_name("course").startswith("course_") and collection_name("course") != "course"
    assert re.fullmatch(r"documents_[0-9a-f]{8}", collection_name("///"))
    assert len(collection_name(Path("/tmp") / ("Very long folder name " * 9))) <= 63


def test_collection_name_hashes_the_folders_whole_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same folder by any path gets one name; two folders of the same name in different places get two; a folder
    inside the repository is hashed by its path relative to it, so every clone names it alike."""
    first, second = tmp_path / "course_a" / "docs", tmp_path / "course_b" / "docs"
    first.mkdir(parents=True)
    second.mkdir(parents=True)
    (tmp_path / "link").symlink_to(first)
    monkeypatch.chdir(tmp_path / "course_b")
    same = {collection_name(p) for p in (first, "../course_a/docs", tmp_path / "course_b" / ".." / "course_a" / "docs")}
    assert same == {collection_name(tmp_path / "link")}  # one folder: one collection
    assert collection_name(first) != collection_name(second) == collection_name("docs")
    assert collection_name(first).startswith("docs_") and collection_name(second).startswith("docs_")
    example = REPO_ROOT / "course_data" / "byod_example" / "riverbend_makerspace"
    assert folder_key(example) == "course_data/byod_example/riverbend_makerspace"
    digest = hashlib.sha256(b"course_data/byod_example/riverbend_makerspace").hexdigest()[:8]
    assert collection_name(example) == f"riverbend_makerspace_{digest}"
    assert folder_key(second) == second.resolve().as_posix()  # outside the repository: the absolute path
    clash = Settings(collection=collection_name(second))  # KIT_COLLECTION happens to be the folder's name
    assert folder_settings(second, clash).store.collection == f"{collection_name(second)}_folder"


def hours_folder(parent: Path, opens: str) -> Path:
    """A folder called `docs` under `parent` holding one Markdown file, `hours.md`, saying when the lab opens."""
    folder = parent / "docs"
    folder.mkdir(parents=True)
    (folder / "hours.md").write_text(f"# Opening hours\n\nThe lab opens at {opens}.\n", encoding="utf-8")
    return folder


def stored_texts(store: Any, collection: str) -> set[str]:
    """The text of every point of one collection (read with the store's client)."""
    points, _ = store.client.scroll(collection, limit=100, with_payload=True)
    return {store.vector_store.parse_to_query_result([p]).nodes[0].get_content() for p in points}


def test_two_folders_of_the_same_name_never_share_a_collection(tmp_settings: Settings, tmp_path: Path) -> None:
    """course_a/docs and course_b/docs, ingested one after the other: each answers from its own documents only."""
    morning, afternoon = hours_folder(tmp_path / "course_a", "9 am"), hours_folder(tmp_path / "course_b", "2 pm")
    first = ingest_folder(morning, tmp_settings, progress=False)
    try:  # the embedded store admits one client at a time: one folder's pipeline open at once
        hits = first.pipeline.retrieve("When does the lab open?", k=5)
        assert hits and all("9 am" in hit.text and hit.source == "hours.md" for hit in hits)
    finally:
        first.close()
    second = ingest_folder(afternoon, tmp_settings, progress=False)
    try:
        assert second.collection != first.collection and second.report.written == second.report.points
        hits = second.pipeline.retrieve("When does the lab open?", k=5)
        assert hits and all("2 pm" in hit.text and "9 am" not in hit.text for hit in hits)
        store = second.pipeline.store
        assert all("9 am" in text for text in stored_texts(store, first.collection))
        assert all("2 pm" in text for text in stored_texts(store, second.collection))
    finally:
        second.close()


def test_a_file_deleted_from_the_folder_loses_its_chunks_at_the_next_ingest(
    tmp_settings: Settings, tiny_corpus: Path
) -> None:
    docs = ingest_folder(tiny_corpus, tmp_settings, progress=False)
    try:
        store = docs.pipeline.store
        capstone = len(store.ids_of_source("capstone.md"))
        assert capstone >= 1 and docs.report.removed_files == docs.report.removed_chunks == 0
        (tiny_corpus / "capstone.md").unlink()
        report = docs.pipeline.ingest(tiny_corpus, progress=False)
        assert (report.removed_files, report.removed_chunks) == (1, capstone) and report.removed_stale == 0
        chunks = f"{capstone} chunk{'s' * (capstone != 1)}"
        assert f"0 stale removed; 1 file gone from the folder: {chunks} removed; {report.points} points" in str(report)
        assert store.ids_of_source("capstone.md") == set() and report.points == docs.report.points - capstone
        assert store.distinct_values("source") == ["fees.md"]
        assert all(hit.source == "fees.md" for hit in docs.pipeline.retrieve("capstone team size", k=5))
        again = docs.pipeline.ingest(tiny_corpus, progress=False)  # nothing more is gone
        assert (again.removed_files, again.removed_chunks, again.written, again.points) == (0, 0, 0, report.points)
        assert "gone from the folder" not in str(again)
        (tiny_corpus / "fees.md").unlink()  # an empty folder (a drive not mounted?) empties no index
        empty = docs.pipeline.ingest(tiny_corpus, progress=False)
        assert (empty.files, empty.removed_files, empty.points) == (0, 0, report.points)
    finally:
        docs.close()


def test_a_file_that_turns_unreadable_keeps_its_chunks(tmp_settings: Settings, tiny_corpus: Path) -> None:
    """Nothing is lost on bad input: a file still in the folder but skipped this time keeps its old chunks."""
    import pymupdf

    pdf = pymupdf.open()
    pdf.new_page().insert_text((72, 100), "Parking permits cost $45 per quarter.")
    pdf.save(tiny_corpus / "parking.pdf")
    pdf.close()
    docs = ingest_folder(tiny_corpus, tmp_settings, progress=False)
    try:
        store = docs.pipeline.store
        parking = store.ids_of_source("parking.pdf")
        assert parking and not docs.report.skipped
        (tiny_corpus / "parking.pdf").write_bytes(b"%PDF-1.4 garbage, not really a pdf")
        report = docs.pipeline.ingest(tiny_corpus, progress=False)
        assert [name for name, _ in report.skipped] == ["parking.pdf"] and "skipped parking.pdf" in str(report)
        assert report.removed_files == report.removed_chunks == 0 and report.points == docs.report.points
        assert store.ids_of_source("parking.pdf") == parking
        assert "$45" in docs.pipeline.retrieve("How much is a parking permit?", k=1)[0].text
    finally:
        docs.close()


def test_ingest_folder_uses_its_own_collection_and_never_duplicates(tmp_settings: Settings, tiny_corpus: Path) -> None:
    (tiny_corpus / "lockers.txt").write_text("Lockers\n\nA locker costs $8 per month.\n", encoding="utf-8")
    (tiny_corpus / "photo.png").write_bytes(b"\x89PNG\r\n")
    docs = ingest_folder(tiny_corpus, tmp_settings, progress=False)
    try:
        assert docs.collection == collection_name(tiny_corpus) == docs.pipeline.settings.store.collection
        assert docs.collection.startswith("docs_")
        assert docs.report.documents == 3 and docs.report.skipped[0][0] == "photo.png"
        assert Path(docs.pipeline.settings.paths.data_dir).is_relative_to(tmp_settings.paths.data_dir)
        again = docs.pipeline.ingest(tiny_corpus, progress=False)
        assert again.written == 0 and again.points == docs.report.points == docs.report.chunks
        assert not docs.pipeline.store.client.collection_exists(tmp_settings.store.collection)  # the course one
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
