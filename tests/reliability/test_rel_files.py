"""Bad files in a folder: each is skipped or parsed, reported by name with the reason; the rest is ingested.

The single-file parsers have unit tests in tests/test_parsing.py; here every bad file sits in a folder beside
a good one and goes through `parse_folder` (and once through `RAGPipeline.ingest`), as a student's folder would.
"""

from __future__ import annotations

import os
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pymupdf
import pytest
from reliability_kit import Record, write

from helpers.parsing import parse_folder
from helpers.pipeline import RAGPipeline

GOOD = "# Library\n\nThe library is open from 8 am to 10 pm on weekdays.\n"
LATIN1_BODY = "Grüße aus Köln: the café opens at 9."


def encrypted_pdf(path: Path) -> None:
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "secret")
    doc.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="u", owner_pw="o")


def huge_file(path: Path) -> None:
    with path.open("wb") as handle:  # sparse: 200 MB on paper, a few blocks on disk, written in milliseconds
        handle.truncate(200 * 2**20)
        handle.write(b"# Huge\n\nstart of a 200 MB Markdown file\n")


def eml(charset: str, body: bytes, extra: bytes = b"") -> bytes:
    return (
        b"From: registrar@example.edu\r\nTo: students@example.edu\r\nSubject: Opening hours\r\n"
        b"Date: Mon, 07 Sep 2026 09:00:00 +0000\r\nMIME-Version: 1.0\r\n" + extra
        + f"Content-Type: text/plain; charset={charset}\r\nContent-Transfer-Encoding: 8bit\r\n\r\n".encode()
        + body
    )  # fmt: skip


ATTACHMENT_ONLY = (
    b"From: a@example.edu\r\nSubject: Slides\r\nMIME-Version: 1.0\r\n"
    b'Content-Type: multipart/mixed; boundary="B"\r\n\r\n--B\r\n'
    b'Content-Type: application/octet-stream\r\nContent-Disposition: attachment; filename="s.bin"\r\n'
    b"Content-Transfer-Encoding: base64\r\n\r\nAAECAwQFBgcICQ==\r\n--B--\r\n"
)


def symlink_loop(path: Path) -> None:
    os.symlink(path.with_name("loop_b.md").name, path)  # loop_a.md -> loop_b.md -> loop_a.md
    os.symlink(path.name, path.with_name("loop_b.md"))


# name → (file name, how to make it, "skipped"/"parsed", the reason or a piece of the parsed text)
BAD_FILES: dict[str, tuple[str, Callable[[Path], object], str, str]] = {
    "corrupt PDF": ("broken.pdf", lambda p: write(p, b"%PDF-1.4\nnot really a pdf\n"), "skipped", "corrupt PDF"),
    "encrypted PDF": ("locked.pdf", encrypted_pdf, "skipped", "encrypted PDF"),
    "zero-byte file": ("empty.md", lambda p: write(p, b""), "skipped", "empty file"),
    "200 MB file": ("huge.md", huge_file, "skipped", "file is 200.0 MB, over the 50 MB limit; split it"),
    "HTML with no body": ("nobody.html", lambda p: write(p, "<html><head><title>T</title></head></html>"),
                          "skipped", "no readable text"),
    "HTML all script": ("script.html", lambda p: write(p, "<html><body><script>var a = 'x'.repeat(9);</script>"
                        "<script>document.write('hello')</script><noscript></noscript></body></html>"),
                        "skipped", "no readable text"),
    "Latin-1 e-mail": ("latin1.eml", lambda p: write(p, eml("iso-8859-1", LATIN1_BODY.encode("latin-1"))),
                       "parsed", LATIN1_BODY),
    "UTF-16 e-mail": ("utf16.eml", lambda p: write(p, eml("utf-16", LATIN1_BODY.encode("utf-16"))),
                      "parsed", LATIN1_BODY),
    "UTF-16 e-mail file": ("utf16_file.eml", lambda p: write(p, eml("utf-8", LATIN1_BODY.encode()).decode()
                           .encode("utf-16")), "parsed", LATIN1_BODY),
    "e-mail, binary attachment only": ("slides.eml", lambda p: write(p, ATTACHMENT_ONLY), "skipped",
                                       "no text body (attachment only)"),
    "Markdown, broken YAML": ("broken_yaml.md", lambda p: write(p, "---\ntitle: [unclosed\n  : :\n---\n# Notes\n\n"
                              "Office hours are on Tuesdays.\n"), "parsed", "Office hours are on Tuesdays."),
    "unknown extension": ("slides.key", lambda p: write(p, b"PK\x03\x04 not really"), "skipped",
                          "unsupported file type '.key'"),
    "symlink loop": ("loop_a.md", symlink_loop, "skipped", "broken symbolic link"),
}  # fmt: skip


def bad_folder(folder: Path, cases: list[str]) -> Path:
    """A folder with one good Markdown file and the named bad files."""
    write(folder / "good.md", GOOD)
    for case in cases:
        name, make, _, _ = BAD_FILES[case]
        make(folder / name)
    return folder


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_bad_file_is_reported_by_name_and_the_rest_parsed(case: str, tmp_path: Path, record: Record) -> None:
    name, _, outcome, expected = BAD_FILES[case]
    folder = bad_folder(tmp_path / "docs", [case])
    tracemalloc.start()
    report = parse_folder(folder, progress=False)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    sources = {doc.metadata["source"]: doc for doc in report.documents}
    assert "good.md" in sources  # the rest of the folder is parsed
    assert peak < 20 * 2**20  # no file is read whole into memory (the 200 MB one is refused unread)
    if outcome == "skipped":
        reasons = dict(report.skipped)
        assert name in reasons and expected in reasons[name], report.summary()
        assert f"{name} ({reasons[name]})" in report.summary()
        record(f"file: {case}", f"skipped, reported as `{name}: {reasons[name]}`; good.md parsed")
    else:
        assert report.skipped == [] and expected in sources[name].text
        record(f"file: {case}", f"parsed ({sources[name].metadata['doc_type']}); good.md parsed")


def test_the_whole_bad_folder_ingests_the_good_files(rel_settings, tmp_path: Path, record: Record) -> None:
    folder = bad_folder(tmp_path / "docs", list(BAD_FILES))
    write(folder / "fees.md", "# Fees\n\nThe application fee is $90.\n")
    write(folder / "README", "Lab notes\n\nThe GPU queue resets every Monday at 6 am.\n")  # no suffix: read as text
    pipeline = RAGPipeline(rel_settings)
    try:
        report = pipeline.ingest(folder, progress=False)
        hits = pipeline.retrieve("When does the library open?", k=2)
    finally:
        pipeline.close()
    skipped = {name for name, (_, _, outcome, _) in BAD_FILES.items() if outcome == "skipped"}
    assert {name for name, _ in report.skipped} == {BAD_FILES[case][0] for case in skipped} | {"loop_b.md"}
    for name, reason in report.skipped:
        assert f"skipped {name}: {reason}" in str(report)
    assert report.points == report.chunks == report.written > 0  # every parsed file is in the index
    assert "read README by its content: has no suffix; read as plain text" in str(report)
    assert hits[0].source == "good.md"
    record("file: a folder with all the bad files → ingest", f"{len(report.skipped)} skipped by name, "
           f"{report.documents} documents ingested (README, no suffix, read as text), retrieval finds good.md", 0,
           report.points)  # fmt: skip


def test_ten_thousand_tiny_files_parse_quickly(tmp_path: Path, record: Record) -> None:
    folder = tmp_path / "many"
    for i in range(10_000):
        write(folder / f"d{i // 1000}" / f"note{i:05d}.txt", f"Note {i}: room {i % 97} is free.")
    start = time.perf_counter()
    report = parse_folder(folder, progress=False)
    seconds = time.perf_counter() - start
    assert len(report.documents) == 10_000 and not report.skipped
    assert seconds < 30
    record("file: folder of 10,000 tiny files", f"all 10,000 parsed in {seconds:.1f} s (limit 30 s)")
