"""A course catalog is read one course entry at a time, its heading with every chunk (helpers.parsing.catalog)."""

from __future__ import annotations

from pathlib import Path

import pymupdf
from llama_index.core.schema import MetadataMode

from helpers.chunking import chunk_documents
from helpers.generation.answer import hit_section
from helpers.parsing import parse
from helpers.parsing.catalog import Entry, split_entries

DESCRIPTION = "This course covers models of data and how to fit them, with projects on real data sets. " * 14


def entry(code: int, name: str, prerequisite: str) -> str:
    return f"DS {code}. {name}. 100 Units. {DESCRIPTION}Terms Offered: Autumn Prerequisite(s): {prerequisite}"


def test_entries_start_at_their_lines_and_run_on_across_pages() -> None:
    pages = [(1, "Courses\n" + entry(101, "Statistics", "none")),
             (2, "continued on page two.\n" + entry(102, "Time Series", "DS 101")),
             (3, entry(103, "Machine Learning", "DS 102"))]  # fmt: skip
    entries = split_entries(pages)
    assert [e.heading for e in entries] == ["", "DS 101. Statistics", "DS 102. Time Series", "DS 103. Machine Learning"]
    assert entries[0] == Entry(1, "", "Courses")
    assert entries[1].page == 1 and entries[1].text.endswith("none\ncontinued on page two.")
    assert entries[2].text.startswith("DS 102. Time Series. 100 Units.") and entries[2].text.endswith("DS 101")


def test_a_few_course_mentions_are_no_catalog() -> None:
    assert split_entries([(1, entry(101, "Statistics", "none") + "\n" + entry(102, "Time Series", "DS 101"))]) == []
    assert split_entries([(1, "See DS 101. Statistics is required. Contact the office.")]) == []


def catalog_pdf(path: Path) -> None:
    """Two pages: an introduction, three entries, the second running on to page two."""
    pdf = pymupdf.open()
    first = pdf.new_page()
    courses = entry(101, "Statistics", "none") + "\n\n" + entry(102, "Time Series", "DS 101")
    text = "Master of Data Science\n\n" + courses
    first.insert_textbox(pymupdf.Rect(50, 50, 550, 800), text[:2000], fontsize=9)
    second = pdf.new_page()
    second.insert_textbox(pymupdf.Rect(50, 50, 550, 800), text[2000:] + "\n\n" + entry(103, "Deep Learning", "DS 102"),
                          fontsize=9)  # fmt: skip
    pdf.save(path)


def test_a_catalog_pdf_parses_into_entries_whose_heading_is_embedded_and_cited(tmp_path: Path) -> None:
    path = tmp_path / "catalog.pdf"
    catalog_pdf(path)
    docs = parse(path)
    assert [doc.metadata.get("entry") for doc in docs] == [None, "DS 101. Statistics", "DS 102. Time Series",
                                                           "DS 103. Deep Learning"]  # fmt: skip
    assert [doc.metadata["page"] for doc in docs] == [1, 1, 1, 2] and len({doc.id_ for doc in docs}) == 4
    assert docs[2].text.rstrip().endswith("DS 101")  # the prerequisite on page two stays with its course
    tail = chunk_documents([docs[2]])[-1]  # the chunk with the prerequisite, cut away from the entry's line
    assert "DS 102" not in tail.text and "Prerequisite(s): DS 101" in tail.text
    assert "DS 102. Time Series" in tail.get_content(metadata_mode=MetadataMode.EMBED)
    assert hit_section(tail.metadata) == "DS 102. Time Series"
