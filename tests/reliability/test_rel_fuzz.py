"""Files read by what they are, and a fuzz pass over the parsers (issue 18).

Every hostile file is made here in `tmp_path` (nothing large is committed) and sits in one folder beside a good
Markdown file: each one either parses or is skipped with a reason that names it and says what to do; no reason
carries an exception's type name; the good file is always parsed. Files whose suffix and content disagree are
read by their content and named in the report's notes. The Word, PowerPoint and Excel files are built by
tests/test_parsing_office.py's builders (python-docx, python-pptx, openpyxl); the password-protected ones are
faked there as an OLE2 header and stream names (Office encrypts an OOXML file into an OLE compound file).
"""

from __future__ import annotations

import builtins
import random
import re
from collections.abc import Callable
from pathlib import Path

import pymupdf
import pytest
from reliability_kit import Record, write
from test_parsing_office import (
    docx_bytes,
    encrypted_office_bytes,
    images_only,
    macro_enabled,
    ole_header_only,
    pptx_bytes,
    xlsx_bytes,
)

from helpers.parsing import parse, parse_folder

GOOD = "# Library\n\nThe library is open from 8 am to 10 pm on weekdays.\n"
EXCEPTION_NAMES = re.compile(
    r"\b(" + "|".join(n for n in dir(builtins) if n.endswith(("Error", "Exception", "Warning"))) + r")\b"
)


def pdf_bytes(text: str = "The capstone fair is on June 3 in Quayside Hall.") -> bytes:
    doc = pymupdf.open()
    for page, topic in enumerate(("fair", "posters", "awards")):
        doc.new_page().insert_text((72, 300), f"{text} Part {page + 1} is about the {topic}.")
    return doc.tobytes()


def eml_bytes(body_part: bytes, boundary_declared: str = "B") -> bytes:
    return (
        b"From: registrar@example.edu\r\nTo: students@example.edu\r\nSubject: Room change\r\n"
        b"Date: Mon, 07 Sep 2026 09:00:00 +0000\r\nMIME-Version: 1.0\r\n"
        + f'Content-Type: multipart/alternative; boundary="{boundary_declared}"\r\n\r\n'.encode()
        + body_part
    )  # fmt: skip


RAW_EMAIL = (
    "From: advisor@example.edu\nTo: you@example.edu\nSubject: Office hours\nDate: Tue, 08 Sep 2026 10:00:00 +0000\n\n"
    "Office hours move to Thursday 2-4 pm in QEB 210.\n"
)
MIXED_ENCODINGS = "Café hours: 9–17.\n".encode() + "Grüße, naïve résumé.\n".encode("latin-1") + b"Room 210.\n"
UTF16_NO_BOM = "# Notes\n\nThe seminar room is QEB 240.\n".encode("utf-16-le")


def nested_html(depth: int = 10_000) -> str:
    return "<html><body>" + "<div>" * depth + "Deep text about the library." + "</div>" * depth + "</body></html>"


def half(make: Callable[[], bytes]) -> Callable[[], bytes]:
    """The first half of a file's bytes (a download cut short)."""
    return lambda: make()[: len(make()) // 2]


# name → (file name, its bytes, "parsed"/"skipped", what the parsed text holds or what the reason says)
FUZZ: dict[str, tuple[str, Callable[[], bytes | str], str, str]] = {
    "PDF saved as .html": ("slides.html", pdf_bytes, "parsed", "capstone fair"),
    "PDF with no suffix": ("handout", pdf_bytes, "parsed", "capstone fair"),
    "PDF truncated to 90 %": ("cut90.pdf", lambda: pdf_bytes()[: len(pdf_bytes()) * 9 // 10], "either", ""),
    "PDF truncated to 50 %": ("cut50.pdf", lambda: pdf_bytes()[: len(pdf_bytes()) // 2], "either", ""),
    "PDF truncated to 200 bytes": ("cut200.pdf", lambda: pdf_bytes()[:200], "skipped", "PDF"),
    "HTML, 10,000 nested tags": ("deep.html", nested_html, "parsed", "Deep text about the library."),
    "HTML, 10,000 unclosed tags": ("unclosed.html", lambda: "<html><body>" + "<b>x " * 10_000, "parsed", "x x x"),
    "HTML saved as .txt": ("page.txt", lambda: "<!DOCTYPE html><html><body><main><h1>Hours</h1><p>Open 9-5."
                           "</p></main></body></html>", "parsed", "Open 9-5."),
    "HTML with no suffix": ("exported_page", lambda: "<html><head><title>Parking</title></head><body><p>Permits "
                            "cost $120.</p></body></html>", "parsed", "Permits cost $120."),
    "CSV, ragged rows": ("ragged.csv", lambda: "course,room,day\nADS 530,QEB 240\nADS 540,QEB 210,Tue,extra,more\n"
                         "\nADS 550\n", "parsed", "ADS 540"),
    "CSV, one 5 MB cell": ("bigcell.csv", lambda: "name,notes\nADS 530," + "x" * (5 * 2**20) + "\n", "either", ""),
    "CSV, unterminated quote": ("quote.csv", lambda: 'name,notes\nADS 530,"never closed\nADS 540,ok\n', "either", ""),
    "CSV with NUL bytes": ("nul.csv", lambda: b"course,room\nADS 530,QEB\x00 240\n", "either", ""),
    "e-mail, boundary never used": ("noboundary.eml", lambda: eml_bytes(b"Just text, no parts at all.\r\n"), "either",
                                    ""),
    "e-mail, wrong boundary": ("wrongb.eml", lambda: eml_bytes(b"--X\r\nContent-Type: text/plain\r\n\r\nRoom QEB 240."
                               b"\r\n--X--\r\n"), "either", ""),
    "e-mail, no closing boundary": ("open.eml", lambda: eml_bytes(b"--B\r\nContent-Type: text/plain\r\n\r\nRoom QEB "
                                    b"240 from Tuesday.\r\n"), "parsed", "QEB 240"),
    "e-mail, headers only": ("headers.eml", lambda: b"From: a@example.edu\r\nSubject: Hi\r\n", "either", ""),
    "e-mail with no suffix": ("message_0042", lambda: RAW_EMAIL, "parsed", "Thursday 2-4 pm"),
    "e-mail saved as .txt": ("advisor.txt", lambda: RAW_EMAIL, "parsed", "Thursday 2-4 pm"),
    "plain text, no suffix": ("README", lambda: "Lab notes\n\nThe GPU queue resets every Monday at 6 am.\n", "parsed",
                              "GPU queue resets"),
    "Markdown, no suffix": ("NOTES", lambda: "# Advising\n\n## Hours\n\nDrop-in advising is on Wednesdays.\n",
                            "parsed", "Drop-in advising"),
    "text with NUL bytes": ("nul.txt", lambda: b"Room\x00 210 is free\x00 on Fridays.\n", "parsed", "is free"),
    "Markdown with NUL bytes": ("nul.md", lambda: b"# Fees\n\nThe fee\x00 is $90.\n", "parsed", "$90"),
    "mixed UTF-8 and Latin-1": ("mixed.txt", lambda: MIXED_ENCODINGS, "parsed", "Room 210"),
    "UTF-16 without BOM": ("utf16.md", lambda: UTF16_NO_BOM, "parsed", "QEB 240"),
    "UTF-16 with BOM, no suffix": ("CHANGES", lambda: "Changes\n\nThe fee rose to $95.\n".encode("utf-16"),
                                   "parsed", "$95"),
    "Windows-1252 quotes": ("cp1252.txt", lambda: "It’s “open” – 9 am.".encode("cp1252"), "parsed", "open"),
    "broken ZIP saved as .txt": ("report.txt", lambda: b"PK\x03\x04\x14\x00\x06\x00" + bytes(200), "skipped", "ZIP"),
    "Word file saved as .txt": ("handbook.txt", docx_bytes, "parsed", "Safety"),
    "Word file truncated to 50 %": ("cut50.docx", half(docx_bytes), "skipped", "corrupt Word document"),
    "PowerPoint file truncated to 50 %": ("cut50.pptx", half(pptx_bytes), "skipped", "corrupt PowerPoint"),
    "Excel file truncated to 50 %": ("cut50.xlsx", half(xlsx_bytes), "skipped", "corrupt Excel workbook"),
    "Word file truncated, no suffix": ("handbook_download", half(docx_bytes), "skipped", "corrupt Word document"),
    "Excel file truncated to 200 bytes": ("cut200.xlsx", lambda: xlsx_bytes()[:200], "skipped", "corrupt Excel"),
    "password-protected Word file": ("locked.docx", encrypted_office_bytes, "skipped", "password-protected"),
    "password-protected PowerPoint file": ("locked.pptx", encrypted_office_bytes, "skipped", "password-protected"),
    "password-protected Office file, no suffix": ("budget", encrypted_office_bytes, "skipped", "password-protected"),
    "OLE header only as .xlsx": ("header.xlsx", ole_header_only, "skipped", "password-protected"),
    "macro-enabled Word file (.docm)": ("macros.docm", lambda: macro_enabled(docx_bytes(), "docx"), "parsed",
                                        "unattended"),
    "macro-enabled PowerPoint file (.pptm)": ("macros.pptm", lambda: macro_enabled(pptx_bytes(), "pptx"), "parsed",
                                              "Students pay $30"),
    "macro-enabled Excel file (.xlsm)": ("macros.xlsm", lambda: macro_enabled(xlsx_bytes(), "xlsx"), "parsed",
                                         "Locker"),
    "Word file, images only": ("pictures.docx", lambda: images_only("docx"), "skipped", "no readable text"),
    "PowerPoint file, images only": ("pictures.pptx", lambda: images_only("pptx"), "skipped", "no readable text"),
    "Excel file, images only": ("pictures.xlsx", lambda: images_only("xlsx"), "skipped", "no readable text"),
    "PNG saved as .md": ("photo.md", lambda: b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4, "skipped", "image"),
    "random bytes, no suffix": ("blob", lambda: random.Random(7).randbytes(4096), "skipped", "binary"),
    "random bytes as .pdf": ("fake.pdf", lambda: random.Random(8).randbytes(4096), "skipped", "binary"),
    "only NUL bytes": ("zeros.txt", lambda: bytes(1000), "skipped", "binary"),
}  # fmt: skip


def fuzz_folder(folder: Path) -> Path:
    write(folder / "good.md", GOOD)
    for name, make, _, _ in FUZZ.values():
        write(folder / name, make())
    return folder


@pytest.fixture(scope="module")
def fuzz_report(tmp_path_factory: pytest.TempPathFactory):
    return parse_folder(fuzz_folder(tmp_path_factory.mktemp("fuzz") / "docs"), progress=False)


@pytest.mark.parametrize("case", list(FUZZ))
def test_hostile_file_parses_or_is_skipped_clearly(case: str, fuzz_report, record: Record) -> None:
    name, _, outcome, expected = FUZZ[case]
    texts = {}
    for doc in fuzz_report.documents:
        texts[doc.metadata["source"]] = texts.get(doc.metadata["source"], "") + doc.text
    reasons = dict(fuzz_report.skipped)
    assert "good.md" in texts  # the rest of the folder is ingested
    assert (name in texts) != (name in reasons), f"{name} neither parsed nor skipped: {fuzz_report.summary()}"
    if name in reasons:
        reason = reasons[name]
        assert outcome in ("skipped", "either"), f"{name} skipped: {reason}"
        assert expected in reason and not EXCEPTION_NAMES.search(reason), reason
        assert "\n" not in reason and len(reason) < 300
        record(f"fuzz: {case}", f"skipped, reported as `{name}: {reason}`; the rest parsed")
    else:
        assert outcome in ("parsed", "either"), f"{name} parsed but should be skipped"
        assert expected in texts[name] and "\x00" not in texts[name]
        note = dict(fuzz_report.notes).get(name, "")
        record(f"fuzz: {case}", f"parsed ({len(texts[name]):,} characters){'; ' + note if note else ''}")


def test_suffix_and_content_disagreeing_is_reported(fuzz_report, record: Record) -> None:
    notes = dict(fuzz_report.notes)
    by_content = ("slides.html", "handout", "page.txt", "exported_page", "advisor.txt", "message_0042", "README")
    for name in (*by_content, "handbook.txt"):
        assert name in notes, fuzz_report.summary()
    assert "PDF" in notes["slides.html"] and ".html" in notes["slides.html"]
    assert "slides.html" in fuzz_report.summary()
    record("fuzz: a folder of all of them", f"{len(FUZZ)} hostile files + good.md: {len(fuzz_report.documents)} "
           f"documents, {len(fuzz_report.skipped)} skipped by name, {len(notes)} read by content")  # fmt: skip


def test_parse_alone_reads_by_content(tmp_path: Path) -> None:
    docs = parse(write(tmp_path / "slides.html", pdf_bytes()))
    assert docs[0].metadata["doc_type"] == "pdf" and "capstone fair" in docs[0].text
