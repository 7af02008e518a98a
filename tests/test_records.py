"""Record-aware chunking: every piece of a long table row or JSON object names its record; short records, prose and
the course corpus chunk exactly as without it."""

from __future__ import annotations

import json
import re

import pytest
from llama_index.core import Document

from helpers.chunking import chunk_documents, chunk_for_settings
from helpers.chunking.records import Key, is_json, json_object_keys, keyed, row_head, row_key
from helpers.config import ChunkingSettings, get_settings
from helpers.parsing import parse_folder

DESCRIPTION = " ".join(f"Week {week} covers topic {week} in depth, with readings and a lab." for week in range(40))
ROW = (f"2025 wi: Year 2025, Term Winter, Subject ESE, Number 118, Name Intro to Sustainability, "
       f"Description {DESCRIPTION}, CRN 12345, Instructors Bond, T.")  # fmt: skip
SHORT_ROW = "2025 wi: Year 2025, Term Winter, Subject ASTR, Number 100, Name Stars, Instructors Dunne, B."


def table(rows: list[str]) -> Document:
    return Document(text="\n".join(rows), metadata={"source": "data/2025-wi.csv", "doc_type": "table"})


def schedule() -> Document:
    """A pretty-printed JSON schedule: departments, courses, sections with their instructor far below the id."""

    def sections(course: int) -> list[dict]:
        return [{"crn": 1000 + 10 * course + n, "sec": f"0{n}", "cap": 20, "act": n, "rem": 20 - n, "attribute": "",
                 "timeslots": [{"days": ["M"], "instructor": f"Teacher {course}{n}", "timeStart": 900}]}
                for n in range(6)]  # fmt: skip

    courses = [{"title": f"Course {c}", "subj": "MATH", "crse": f"3{c}0", "id": f"MATH-3{c}0", "sections": sections(c)}
               for c in range(3)]  # fmt: skip
    data = [{"name": "Mathematics", "code": "MATH", "courses": courses}]
    return Document(text=json.dumps(data, indent=2), metadata={"source": "oxy/202309/courses.txt", "doc_type": "text"})


def test_a_row_s_key_is_its_caption_and_leading_short_fields() -> None:
    key = row_key(ROW)
    assert key == "2025 wi: Year 2025, Term Winter, Subject ESE, Number 118, Name Intro to Sustainability"
    assert row_key("cap: Description " + DESCRIPTION) == ""  # a first field that is long: no key
    assert row_head(key) == "2025 wi: 2025 Winter ESE 118 Intro to Sustainability"  # the code as it is written


def test_every_piece_of_a_long_row_names_its_row() -> None:
    plain = chunk_documents([table([SHORT_ROW, ROW])], "recursive_chars", records=False)
    pieces = chunk_documents([table([SHORT_ROW, ROW])], "recursive_chars", records=True)
    assert len(pieces) == len(plain) > 3
    assert not all("Number 118" in piece.text for piece in plain)  # without it, the tail does not say which course
    long_pieces = [piece for piece in pieces if "Week" in piece.text or "Bond, T." in piece.text]
    assert all(piece.text.count("ESE 118") + piece.text.count("Subject ESE, Number 118") == 1 for piece in long_pieces)
    assert any("Instructors Bond, T." in piece.text for piece in long_pieces)
    assert pieces[0].text == plain[0].text  # a piece that starts with its row is left as it was


def test_every_piece_of_a_long_json_object_names_the_objects_it_sits_in() -> None:
    document = schedule()
    pieces = chunk_documents([document], "recursive_chars", records=True)
    with_teacher = [piece.text for piece in pieces if '"instructor"' in piece.text]
    assert with_teacher and all("MATH-3" in text for text in with_teacher)
    for text in with_teacher:
        if not text.startswith("name: "):
            continue  # a piece that holds its course's id itself
        key, body = text.split("\n", 1)
        before = document.text[: document.text.index(body)]
        assert (
            key
            == f"name: Mathematics, code: MATH > title: Course {before.rsplit('Course ', 1)[1][0]}, id: "
            + re.findall(r'"id": "([^"]+)"', before)[-1]
        )  # the course it names is the one whose section the piece is in
    assert pieces[0].text == chunk_documents([document], "recursive_chars", records=False)[0].text


def test_json_keys_read_the_whole_object_and_skip_arrays() -> None:
    lines = json.dumps({"sections": [{"x": 1}], "id": "A-1", "name": "A"}, indent=2).split("\n")
    open_at = json_object_keys(lines)
    assert open_at[0] == () and open_at[3] == ({"id": "A-1", "name": "A"}, {})  # "id" comes after, still known
    assert is_json("[\n 1\n]") and not is_json("[1]") and not is_json("{ not json\n}")
    assert keyed("MATH-310 is here", [Key("id: MATH-310", ("MATH-310",))]) == "MATH-310 is here"  # already there
    keys = [Key("name: Mathematics, code: MATH", ("Mathematics", "MATH")), Key("id: MATH-310", ("MATH-310",))]
    assert keyed("x", keys) == "name: Mathematics, code: MATH > id: MATH-310\nx"


def test_prose_and_short_rows_chunk_as_without_it() -> None:
    prose = Document(text=DESCRIPTION + "\n\n" + DESCRIPTION, metadata={"source": "notes.md", "doc_type": "markdown"})
    rows = table([SHORT_ROW] * 30)
    for document in (prose, rows):
        plain = chunk_documents([document], "recursive_chars", records=False)
        keyed_nodes = chunk_documents([document], "recursive_chars", records=True)
        assert [(n.id_, n.text) for n in plain] == [(n.id_, n.text) for n in keyed_nodes]


def test_the_course_corpus_chunks_the_same_with_record_keys_as_without() -> None:
    settings = get_settings()
    documents = parse_folder(settings.paths.corpus_dir, progress=False, cache_dir=settings.paths.cache_dir).documents
    plain = chunk_for_settings(documents, ChunkingSettings(chunk_records=False))
    keyed_nodes = chunk_for_settings(documents, ChunkingSettings(chunk_records=True))
    assert [(n.id_, n.text) for n in plain] == [(n.id_, n.text) for n in keyed_nodes]


def test_the_real_document_set_chunks_the_same_with_record_keys_as_without() -> None:
    from helpers.corpus.pinned import REALWORLD

    settings = get_settings()
    if not REALWORLD.available(settings):
        pytest.skip("the real-document set is not rebuilt (course_data/realworld/README.md)")
    documents = parse_folder(REALWORLD.docs_dir(settings), progress=False, cache_dir=settings.paths.cache_dir).documents
    plain = chunk_for_settings(documents, ChunkingSettings(chunk_records=False))
    keyed_nodes = chunk_for_settings(documents, ChunkingSettings(chunk_records=True))
    assert [(n.id_, n.text) for n in plain] == [(n.id_, n.text) for n in keyed_nodes]
