"""Tests of helpers.parsing: every fixture is built here, in tmp_path, by code (PDFs with PyMuPDF itself)."""

from __future__ import annotations

import base64
import logging
import os
from pathlib import Path

import pymupdf
import pytest

from helpers.parsing import (
    ParseError,
    ParseReport,
    UnsupportedFile,
    calendar_lines,
    html_to_text,
    noise_share,
    parse,
    parse_folder,
    pdf_pages,
    row_to_sentence,
)

# ---------------------------------------------------------------------------------------------- fixtures

PAGE_HTML = """<!DOCTYPE html>
<html lang="en"><head>
<title>Admissions | Data Science Program</title>
<link rel="canonical" href="https://example.edu/ads/admissions">
<meta property="og:url" content="https://example.edu/og-url">
<style>body { font-family: sans-serif; } .ad-slot { width: 300px; }</style>
<script>window.dataLayer = [{"event": "pageview", "tracking": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}];</script>
</head><body>
<a class="skip-link" href="#main">Skip to content</a>
<div id="cookie-banner" class="cookie-consent">We use cookies to improve your experience.
  <button>Accept all</button></div>
<header class="site-header"><div class="logo">Example University</div>
  <nav><ul><li><a href="/">Home</a></li><li><a href="/ads">Programs</a></li></ul></nav></header>
<ol class="breadcrumb"><li>Home</li><li>Admissions</li></ol>
<main id="main">
  <div class="header-title"><h1>Admissions</h1></div>
  <p class="address">Applications open on <strong>1 October</strong>.<br>Late applications are reviewed
     case by case.</p>
  <h2>Requirements</h2>
  <ul><li>A bachelor's degree<ul><li>in any field</li></ul></li><li>Two letters of recommendation</li></ul>
  <div class="share-buttons" aria-label="Share this page">Share on Facebook Share on X</div>
  <dl><dt>Is the GRE required?</dt><dd>No, the GRE is optional.</dd><dt>Deadline</dt><dd>15 January</dd></dl>
  <div class="ad-slot sponsored">Buy our bootcamp now!</div>
  <section id="career-seminar-ads-590" aria-label="ADS 590 details"><p>ADS 590 meets weekly.</p></section>
  <section id="social-events"><p>Trivia night is monthly.</p></section>
  <div id="newsletterSignup">Get our weekly newsletter</div>
</main>
<aside class="newsletter-popup">Subscribe to our newsletter</aside>
<footer><p>&copy; 2026 Example University. All rights reserved.</p></footer>
<script src="analytics.js"></script>
</body></html>
"""

SCHEDULE_HTML = """<html><head><title>Class schedule</title></head><body><main>
<h2>Sections offered</h2>
<table>
  <caption>Class schedule — Autumn 2026</caption>
  <thead><tr><th>Course</th><th>Title</th><th>Units</th><th>Days</th><th>Room</th></tr></thead>
  <tbody>
    <tr><td>ADS 510</td><td>Machine Learning</td><td>4</td><td>Tue/Thu</td><td>Kent 120</td></tr>
    <tr><td>ADS 520</td><td>Data Engineering</td><td>4</td><td></td><td>Online</td></tr>
    <tr><td>ADS 599</td><td>Capstone</td><td>2</td><td>Mon</td><td>Kent 210</td></tr>
  </tbody>
</table>
<h3>Labs</h3>
<table><tr><th>Lab</th><th>Day</th></tr><tr><td>L1</td><td>Fri</td></tr></table>
</main></body></html>
"""

LEFT = [
    "LEFTA The program starts with a foundations semester in statistics, programming and data ethics.",
    "LEFTB Students then choose electives in machine learning, data engineering or visualisation, "
    "with at least one course in each area before the capstone.",
    "LEFTC Advising meetings take place twice a semester.",
]
RIGHT = [
    "RIGHTA The capstone is a two-term project with an external partner organisation and a public demo day.",
    "RIGHTB Grades are reported on a four-point scale.",
    "RIGHTC Appeals go to the program director within ten days, in writing, with supporting documents attached.",
]


def make_two_column_pdf(path: Path, pages: int = 3) -> Path:
    """A letter-size PDF: running header and footer, a full-width title, then two columns of paragraphs."""
    doc = pymupdf.open()
    for number in range(1, pages + 1):
        page = doc.new_page(width=612, height=792)
        page.insert_text((72, 30), "Program Handbook 2026", fontsize=9)  # header: top 6%
        page.insert_text((280, 775), f"Page {number} of {pages}", fontsize=9)  # footer: bottom 6%
        page.insert_textbox(
            pymupdf.Rect(72, 60, 540, 100), f"FULLWIDTH Chapter {number}: how the program works", fontsize=14
        )
        # Left and right paragraphs written alternately, so the naive (content stream) order interleaves them.
        y_left, y_right = 120.0, 135.0
        for left, right in zip(LEFT, RIGHT, strict=True):
            page.insert_textbox(pymupdf.Rect(72, y_left, 290, y_left + 90), left, fontsize=10)
            page.insert_textbox(pymupdf.Rect(322, y_right, 540, y_right + 90), right, fontsize=10)
            y_left, y_right = y_left + 110, y_right + 110
        page.insert_textbox(
            pymupdf.Rect(72, 600, 540, 640),
            "FULLBOTTOM A full-width paragraph under the columns: "
            "questions about any of the above go to the program office, room 120.",
            fontsize=10,
        )
    doc.set_metadata({"title": "Test Handbook"})
    path.parent.mkdir(parents=True, exist_ok=True)
    doc.save(path)
    doc.close()
    return path


def make_table_pdf(path: Path) -> Path:
    """A one-page PDF with a caption line and a ruled 3x3 table under it (header row shaded and bold)."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 100), "Intro text before the table.", fontsize=11)
    page.insert_text((72, 140), "Table 1: Core courses", fontsize=11)
    rows = [["Course", "Title", "Units"], ["ADS 500", "Probability", "4"], ["ADS 505", "Statistics", "3"]]
    x_edges, top, height = [72, 200, 400, 500], 150, 24
    for r, row in enumerate(rows):
        for c, cell in enumerate(row):
            rect = pymupdf.Rect(x_edges[c], top + r * height, x_edges[c + 1], top + (r + 1) * height)
            fill = (0.85, 0.9, 0.95) if r == 0 else None  # a shaded, bold header row, as in the handbook
            page.draw_rect(rect, color=(0, 0, 0), fill=fill, width=0.8)
            page.insert_text((rect.x0 + 4, rect.y1 - 8), cell, fontsize=10, fontname="hebo" if r == 0 else "helv")
    doc.save(path)
    doc.close()
    return path


def eml(
    headers: dict[str, str], body: bytes, *, content_type: str = "text/plain; charset=utf-8", encoding: str = "8bit"
) -> bytes:
    """A single-part RFC 822 message as bytes."""
    head = {"Content-Type": content_type, "Content-Transfer-Encoding": encoding, "MIME-Version": "1.0", **headers}
    return "".join(f"{k}: {v}\r\n" for k, v in head.items()).encode("ascii") + b"\r\n" + body


EMAIL_HEADERS = {
    "From": '"Dr. Dana Lee" <dana@example.edu>',  # RFC 5322 quotes a display name with a dot
    "To": "ads-students@example.edu",
    "Date": "Tue, 01 Sep 2026 09:30:00 -0700",
    "Subject": "Re: Fwd: Capstone kickoff",
    "Message-ID": "<msg-2@example.edu>",
    "In-Reply-To": "<msg-1@example.edu>",
    "References": "<msg-1@example.edu>",
}


def write(path: Path, data: str | bytes) -> Path:
    """Write text (UTF-8) or bytes, creating folders."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        path.write_bytes(data)
    return path


def assert_payload_types(docs: list) -> None:
    """Every metadata value must be a Qdrant-friendly str, int or float, and the common keys present."""
    for doc in docs:
        assert {"source", "doc_type", "title"} <= set(doc.metadata)
        assert all(type(value) in (str, int, float) for value in doc.metadata.values()), doc.metadata


# ---------------------------------------------------------------------------------------------- HTML


def test_html_boilerplate_removed_and_structure_kept() -> None:
    text, meta = html_to_text(PAGE_HTML)
    for noise in (
        "cookies",
        "Accept all",
        "Home",
        "Skip to content",
        "Share on",
        "bootcamp",
        "newsletter",
        "All rights reserved",
        "dataLayer",
        "font-family",
        "Example University",
    ):
        assert noise not in text, noise
    assert "# Admissions" in text  # h1 inside <div class="header-title"> survives
    assert "## Requirements" in text
    assert "Applications open on 1 October. Late applications are reviewed case by case." in text  # <br>, spaces
    assert "- A bachelor's degree\n  - in any field\n- Two letters of recommendation" in text
    assert "Is the GRE required? No, the GRE is optional." in text
    assert "Deadline: 15 January" in text
    # ids are often heading slugs: only an id made of boilerplate words counts, and "ads" is a course code here
    assert "ADS 590 meets weekly." in text and "Trivia night is monthly." in text
    assert meta["title"] == "Admissions | Data Science Program"
    assert meta["url"] == "https://example.edu/ads/admissions"  # canonical wins over og:url
    assert 0 < meta["noise_share"] < 1


def test_html_declared_charset(tmp_path: Path) -> None:
    page = '<html><head><meta charset="windows-1252"></head><body><p>Caf\xe9 \x93quotes\x94</p></body></html>'
    (doc,) = parse(write(tmp_path / "old.htm", page.encode("latin-1")))
    assert doc.text == "Café “quotes”"


def test_html_og_url_and_h1_title_fallback() -> None:
    html = '<html><head><meta property="og:url" content="https://x.edu/p"></head><body><h1>Hi</h1><p>t</p></body>'
    _, meta = html_to_text(html)
    assert meta == {"title": "Hi", "url": "https://x.edu/p", "noise_share": meta["noise_share"]}


def test_html_faq_accordions_kept() -> None:
    html = """<body><main><h1>FAQ</h1>
    <div class="faq-item"><button class="faq-question" aria-expanded="false" aria-controls="a1">Can I study
    part-time?</button><div id="a1" class="faq-answer" hidden><p>Yes, most students take two courses.</p></div></div>
    <details><summary>Is there a thesis?</summary><p>It is optional.</p></details>
    <button class="menu-toggle" aria-expanded="false">Menu</button><button>Print</button>
    </main></body>"""
    text, _ = html_to_text(html)
    assert text.split("\n\n") == [
        "# FAQ",
        "Can I study part-time?",
        "Yes, most students take two courses.",
        "Is there a thesis?",
        "It is optional.",
    ]


def test_noise_share() -> None:
    assert noise_share("<p>abcd</p>", "abcd") == pytest.approx(1 - 4 / 11, abs=1e-3)
    assert noise_share("", "") == 0.0
    assert noise_share("ab", "abcdef") == 0.0  # clamped


def test_html_without_body_or_text_raises() -> None:
    with pytest.raises(ParseError, match="no readable text"):
        html_to_text("<html><head><title>Only a title</title></head></html>")
    with pytest.raises(ParseError, match="no readable text"):
        html_to_text("<html><body><nav>Home</nav><script>x()</script></body></html>")


def test_html_table_sentences_one_per_row(tmp_path: Path) -> None:
    (doc,) = parse(write(tmp_path / "schedule.html", SCHEDULE_HTML))
    lines = doc.text.splitlines()
    rows = [line for line in lines if line.startswith("Class schedule — Autumn 2026:")]
    assert rows == [
        "Class schedule — Autumn 2026: Course ADS 510, Title Machine Learning, Units 4, Days Tue/Thu, Room Kent 120.",
        "Class schedule — Autumn 2026: Course ADS 520, Title Data Engineering, Units 4, Room Online.",  # empty cell
        "Class schedule — Autumn 2026: Course ADS 599, Title Capstone, Units 2, Days Mon, Room Kent 210.",
    ]
    assert "Labs: Lab L1, Day Fri." in lines  # no <caption>: the nearest heading above is the caption
    assert doc.metadata["doc_type"] == "html"


def test_html_table_raw_mode_differs(tmp_path: Path) -> None:
    path = write(tmp_path / "schedule.html", SCHEDULE_HTML)
    raw = parse(path, tables="raw")[0].text
    assert "Course | Title | Units | Days | Room" in raw
    assert "ADS 510 | Machine Learning | 4 | Tue/Thu | Kent 120" in raw
    assert "Course ADS 510" not in raw
    assert raw != parse(path)[0].text
    with pytest.raises(ValueError, match="tables"):
        parse(path, tables="markdown")


def test_html_rowspan_and_colspan() -> None:
    html = """<body><table><caption>T</caption><tr><th>Day</th><th>Time</th><th>Room</th></tr>
    <tr><td rowspan="2">Mon</td><td>9am</td><td>A</td></tr><tr><td>1pm</td><td>B</td></tr>
    <tr><td colspan="2">TBA</td><td>C</td></tr></table></body>"""
    text, _ = html_to_text(html)
    assert text.splitlines() == [
        "T: Day Mon, Time 9am, Room A.",
        "T: Day Mon, Time 1pm, Room B.",
        "T: Day TBA, Time TBA, Room C.",
    ]


def test_row_to_sentence() -> None:
    header = ["Course", "Title", "Units"]
    assert row_to_sentence("Schedule", header, ["ADS 510", "", "4"]) == "Schedule: Course ADS 510, Units 4."
    assert row_to_sentence("", header, ["ADS 510", "ML", "4"]) == "Course ADS 510, Title ML, Units 4."
    assert row_to_sentence("T", ["A"], ["x", "extra."]) == "T: A x, extra."  # more cells than header names
    assert row_to_sentence("T", header, ["", ""]) == ""


# ---------------------------------------------------------------------------------------------- CSV, text


def test_csv_table_to_text(tmp_path: Path) -> None:
    path = write(
        tmp_path / "tables" / "academic_calendar.csv",
        "Date,Event,Notes\n2026-08-24,First day of classes,\n\n2026-11-26,Thanksgiving,No classes\n",
    )
    (doc,) = parse(path, root=tmp_path)
    assert doc.text.splitlines() == [
        "Academic calendar: Date 2026-08-24, Event First day of classes.",
        "Academic calendar: Date 2026-11-26, Event Thanksgiving, Notes No classes.",
    ]
    assert doc.metadata["doc_type"] == "table"
    assert doc.metadata["caption"] == doc.metadata["title"] == "Academic calendar"
    assert doc.metadata["source"] == "tables/academic_calendar.csv"
    raw = parse(path, tables="raw")[0].text
    assert raw.splitlines()[0] == "Date | Event | Notes"
    assert "2026-11-26 | Thanksgiving | No classes" in raw
    # snake_case column names read as words; semicolon-separated files are sniffed
    (doc,) = parse(write(tmp_path / "fees.csv", "fee_name;amount_usd\nTuition per unit;1,150\n"))
    assert doc.text == "Fees: fee name Tuition per unit, amount usd 1,150."


def test_text_utf8_and_latin1(tmp_path: Path) -> None:
    (doc,) = parse(write(tmp_path / "notes.txt", "Office hours\n\nRoom 3 — Tuesdays."))
    assert doc.text == "Office hours\n\nRoom 3 — Tuesdays."
    assert doc.metadata["title"] == "Office hours"
    assert doc.metadata["doc_type"] == "text"
    (doc,) = parse(write(tmp_path / "old.txt", "Café à côté".encode("latin-1")))
    assert doc.text == "Café à côté"


def test_a_plain_text_calendar_names_each_event_before_its_date(tmp_path: Path) -> None:
    calendar = (
        "Academic calendar\nFall 2025\n"
        "Nov. 14\tFall Semester withdrawal deadline\n"
        "Oct. 13–17\tFall Break (for undergraduates only)\n"
        "Sept. 24, 2025\tRegistration begins\n"
        "May 20-21\tCommencement\n"
        " \tCommencement - TBD\n"  # no date in the first cell: left as it is
        "Room 3\tTuesdays\n"  # two cells, not a calendar row
        "Nov. 14 is the last day to withdraw.\n"  # a date in prose: left as it is
    )
    (doc,) = parse(write(tmp_path / "academic_calendar.txt", calendar))
    assert doc.text.splitlines() == [
        "Academic calendar",
        "Fall 2025",
        "Fall Semester withdrawal deadline: Nov. 14.",
        "Fall Break (for undergraduates only): Oct. 13–17.",
        "Registration begins: Sept. 24, 2025.",
        "Commencement: May 20-21.",
        " \tCommencement - TBD",
        "Room 3\tTuesdays",
        "Nov. 14 is the last day to withdraw.",
    ]
    assert parse(write(tmp_path / "raw.txt", calendar), tables="raw")[0].text == calendar.strip()
    # Windows line endings stay; a month must be a month ("Junk 5" is not a date)
    assert calendar_lines("September 3\tLabor Day\r\nJunk 5\tx\r\n") == "Labor Day: September 3.\r\nJunk 5\tx\r\n"


# ---------------------------------------------------------------------------------------------- Markdown


def test_markdown_front_matter(tmp_path: Path) -> None:
    md = (
        "---\nurl: https://example.edu/news/capstone\ntitle: Capstone showcase\ndate: 2026-05-14\n"
        "tags: [capstone, events]\nauthor: {name: X}\n---\n# Capstone day\n\n## Schedule\n\nPosters at 10am.\n"
    )
    (doc,) = parse(write(tmp_path / "articles" / "capstone.md", md), root=tmp_path)
    assert doc.text.startswith("# Capstone day\n\n## Schedule")  # headings kept, front matter gone
    meta = doc.metadata
    assert (meta["title"], meta["url"], meta["date"]) == (
        "Capstone showcase",
        "https://example.edu/news/capstone",
        "2026-05-14",
    )
    assert meta["tags"] == "capstone, events"
    assert "author" not in meta  # a mapping is not a payload value
    assert meta["doc_type"] == "markdown"
    assert "front_matter_error" not in meta
    assert_payload_types([doc])


def test_markdown_broken_yaml_still_parsed(tmp_path: Path) -> None:
    md = "---\ntitle: [unclosed\nurl: x: y: z\n---\n# Real title\n\nBody text.\n"
    (doc,) = parse(write(tmp_path / "broken.md", md))
    assert doc.text == "# Real title\n\nBody text."
    assert doc.metadata["title"] == "Real title"
    assert "not valid YAML" in doc.metadata["front_matter_error"]
    assert "front_matter_error" in doc.excluded_embed_metadata_keys


def test_markdown_without_front_matter(tmp_path: Path) -> None:
    (doc,) = parse(write(tmp_path / "plain_notes.markdown", "Just text, no heading.\n"))
    assert doc.metadata["title"] == "Plain notes"
    assert doc.metadata["url"] == "" and doc.metadata["date"] == ""


# ---------------------------------------------------------------------------------------------- e-mail


def test_email_headers_and_body(tmp_path: Path) -> None:
    body = (
        b"Hi all,\r\n\r\nThe kickoff is on Friday.\r\n\r\n"
        b"On Mon, 31 Aug 2026 at 10:00, Sam <sam@example.edu> wrote:\r\n> Where is the kickoff?\r\n"
    )
    (doc,) = parse(write(tmp_path / "emails" / "kickoff.eml", eml(EMAIL_HEADERS, body)), root=tmp_path)
    meta = doc.metadata
    assert meta["sender"] == "Dr. Dana Lee <dana@example.edu>"
    assert meta["to"] == "ads-students@example.edu"
    assert meta["date"] == "2026-09-01T09:30:00-07:00"
    assert meta["subject"] == meta["title"] == "Re: Fwd: Capstone kickoff"
    assert meta["thread"] == "Capstone kickoff"
    assert meta["message_id"] == "<msg-2@example.edu>"
    assert meta["source"] == "emails/kickoff.eml"
    assert doc.text.startswith(
        "From: Dr. Dana Lee <dana@example.edu>\nTo: ads-students@example.edu\n"
        "Date: Tue, 01 Sep 2026 09:30:00 -0700\nSubject: Re: Fwd: Capstone kickoff\n\nHi all,"
    )
    assert "> Where is the kickoff?" in doc.text  # quoted reply kept
    assert "wrote:" not in doc.text  # attribution line dropped
    assert "message_id" in doc.excluded_embed_metadata_keys and "message_id" in doc.excluded_llm_metadata_keys
    assert_payload_types([doc])


@pytest.mark.parametrize(
    ("content_type", "encoding", "body"),
    [
        ("text/plain; charset=iso-8859-1", "8bit", "Grüße aus Köln, café".encode("latin-1")),
        ("text/plain; charset=utf-16", "base64", base64.encodebytes("Grüße aus Köln, café".encode("utf-16"))),
        ("text/plain; charset=x-no-such-charset", "8bit", "Grüße aus Köln, café".encode()),
        ("text/plain; charset=utf-8", "8bit", "Grüße aus Köln, café".encode("latin-1")),  # mislabelled
    ],
)
def test_email_charsets(tmp_path: Path, content_type: str, encoding: str, body: bytes) -> None:
    raw = eml({"From": "a@x.edu", "Subject": "Charset"}, body, content_type=content_type, encoding=encoding)
    (doc,) = parse(write(tmp_path / "c.eml", raw))
    assert "Grüße aus Köln, café" in doc.text


def test_email_html_only_body(tmp_path: Path) -> None:
    raw = eml(
        {"From": "a@x.edu", "Subject": "HTML"},
        b"<html><body><p>Room <b>changed</b> to Kent 120.</p></body>",
        content_type="text/html; charset=utf-8",
    )
    (doc,) = parse(write(tmp_path / "h.eml", raw))
    assert doc.text.endswith("Room changed to Kent 120.")


def test_email_attachment_only_raises(tmp_path: Path) -> None:
    raw = (
        b"From: a@x.edu\r\nSubject: Slides\r\nMIME-Version: 1.0\r\n"
        b'Content-Type: multipart/mixed; boundary="B"\r\n\r\n--B\r\n'
        b'Content-Type: application/pdf\r\nContent-Disposition: attachment; filename="s.pdf"\r\n'
        b"Content-Transfer-Encoding: base64\r\n\r\nJVBERi0xLjQK\r\n--B--\r\n"
    )
    with pytest.raises(ParseError, match=r"slides\.eml: no text body \(attachment only\)"):
        parse(write(tmp_path / "slides.eml", raw))


# ---------------------------------------------------------------------------------------------- PDF


def test_pdf_two_columns_in_reading_order(tmp_path: Path) -> None:
    path = make_two_column_pdf(tmp_path / "handbook.pdf")
    pages = pdf_pages(path)
    assert [number for number, _ in pages] == [1, 2, 3]
    text = pages[1][1]
    markers = ["FULLWIDTH", "LEFTA", "LEFTB", "LEFTC", "RIGHTA", "RIGHTB", "RIGHTC", "FULLBOTTOM"]
    positions = [text.index(marker) for marker in markers]
    assert positions == sorted(positions), text  # whole left column before the right one
    assert "Program Handbook" not in text and "Page 2" not in text  # running header and footer gone
    # The naive order is PyMuPDF's content-stream order: columns interleaved, header and footer kept.
    naive = pdf_pages(path, reading_order=False)[1][1]
    assert naive.index("RIGHTA") < naive.index("LEFTB")
    assert "Program Handbook 2026" in naive and "Page 2 of 3" in naive


def test_pdf_documents_per_page_with_metadata(tmp_path: Path) -> None:
    docs = parse(make_two_column_pdf(tmp_path / "handbook" / "guide.pdf"), root=tmp_path)
    assert [doc.metadata["page"] for doc in docs] == [1, 2, 3]
    assert {doc.metadata["title"] for doc in docs} == {"Test Handbook"}
    assert {doc.metadata["source"] for doc in docs} == {"handbook/guide.pdf"}
    assert len({doc.id_ for doc in docs}) == 3
    assert_payload_types(docs)


def test_pdf_table_as_sentences(tmp_path: Path) -> None:
    path = make_table_pdf(tmp_path / "table.pdf")
    (doc,) = parse(path)
    assert "Table 1: Core courses: Course ADS 500, Title Probability, Units 4." in doc.text
    assert "Table 1: Core courses: Course ADS 505, Title Statistics, Units 3." in doc.text
    assert doc.text.index("Intro text") < doc.text.index("Course ADS 500")
    raw = parse(path, tables="raw")[0].text
    assert "Course | Title | Units" in raw and "Course ADS 500" not in raw


def test_pdf_blank_page_skipped(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 200), "Only page with text.")
    doc.new_page()  # no text layer at all, like a scanned image
    doc.save(tmp_path / "scan.pdf")
    with caplog.at_level(logging.WARNING):
        docs = parse(tmp_path / "scan.pdf")
    assert [d.metadata["page"] for d in docs] == [1]
    assert "page 2 has no text" in caplog.text


def test_pdf_corrupt_and_encrypted(tmp_path: Path) -> None:
    with pytest.raises(ParseError, match=r"bad\.pdf: corrupt PDF"):
        parse(write(tmp_path / "bad.pdf", b"%PDF-1.4\nthis is not really a pdf\n"))
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "secret")
    doc.save(tmp_path / "locked.pdf", encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="u", owner_pw="o")
    with pytest.raises(ParseError, match=r"locked\.pdf: encrypted PDF"):
        parse(tmp_path / "locked.pdf")


# ---------------------------------------------------------------------------------------------- guards


def test_guards_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(UnsupportedFile, match=r"slides\.key: unsupported file type '\.key': it is a damaged ZIP"):
        parse(write(tmp_path / "slides.key", b"PK\x03\x04" + bytes(64)))
    with pytest.raises(ParseError, match=r"slides\.pptx: corrupt PowerPoint presentation, cannot be opened"):
        parse(write(tmp_path / "slides.pptx", b"PK\x03\x04" + bytes(64)))  # a PowerPoint file by name, cut short
    assert parse(write(tmp_path / "notes.rst", b"Room 210."))[0].text == "Room 210."  # text is text, any suffix
    with pytest.raises(ParseError, match=r"empty\.txt: empty file"):
        parse(write(tmp_path / "empty.txt", b""))
    with pytest.raises(ParseError, match="file not found"):
        parse(tmp_path / "missing.md")
    huge = tmp_path / "huge.csv"
    with huge.open("wb") as handle:  # a sparse file: 51 MB on paper, nothing on disk
        handle.truncate(51 * 2**20)
    with pytest.raises(ParseError, match=r"huge\.csv: file is 51\.0 MB, over the 50 MB limit"):
        parse(huge)


def test_deterministic_ids(tmp_path: Path) -> None:
    path = write(tmp_path / "a" / "page.html", PAGE_HTML)
    first, again = parse(path, root=tmp_path), parse(path, root=tmp_path)
    assert first[0].id_ == again[0].id_
    assert first[0].metadata["source"] == "a/page.html"
    assert parse(path)[0].metadata["source"] == "page.html"  # no root: just the file name
    assert parse(path)[0].id_ != first[0].id_  # the id follows the source


# ---------------------------------------------------------------------------------------------- parse_folder


def test_parse_folder_skips_bad_files_and_keeps_good_ones(tmp_path: Path) -> None:
    corpus = tmp_path / "docs"
    write(corpus / "web" / "admissions.html", PAGE_HTML)
    write(corpus / "web" / "nobody.html", "<html><head><title>Empty</title></head></html>")
    write(corpus / "articles" / "news.md", "---\ntitle: News\n---\n# News\n\nHello.\n")
    write(corpus / "tables" / "academic_calendar.csv", "Date,Event\n2026-08-24,First day\n")
    write(corpus / "handbook" / "broken.pdf", b"%PDF-1.7 garbage")
    make_two_column_pdf(corpus / "handbook" / "handbook.pdf", pages=3)
    write(corpus / "empty.txt", b"")
    write(corpus / "notes.docx", b"PK\x03\x04")
    write(corpus / ".DS_Store", b"\x00\x01")  # hidden files are ignored
    os.symlink(corpus, corpus / "web" / "loop")  # a symlinked folder is not followed

    report = parse_folder(corpus, progress=False)

    assert isinstance(report, ParseReport)
    assert report.counts() == {"html": 1, "markdown": 1, "table": 1, "pdf": 3}
    assert [name for name, _ in report.skipped] == ["empty.txt", "handbook/broken.pdf", "notes.docx", "web/nobody.html"]
    reasons = dict(report.skipped)
    assert reasons["empty.txt"] == "empty file"
    assert reasons["handbook/broken.pdf"].startswith("corrupt PDF")
    assert reasons["notes.docx"].startswith("corrupt Word document")
    assert "no readable text" in reasons["web/nobody.html"]
    summary = report.summary()
    assert summary.startswith("parsed 4 files into 6 documents; skipped 4: empty.txt (empty file), handbook/")
    # Deterministic: same order and ids on a second run.
    again = parse_folder(corpus, progress=False)
    assert [d.id_ for d in again.documents] == [d.id_ for d in report.documents]
    assert_payload_types(report.documents)


def test_parse_folder_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(ParseError, match="not a folder"):
        parse_folder(tmp_path / "nope", progress=False)


def test_parse_cache_serves_a_second_run_and_notices_changes(tmp_path) -> None:
    from helpers.parsing import parse_folder

    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("---\ntitle: A\n---\n# A\n\nAlpha text.\n", encoding="utf-8")
    first = parse_folder(folder, progress=False, cache_dir=tmp_path / "cache")
    again = parse_folder(folder, progress=False, cache_dir=tmp_path / "cache")
    assert [d.text for d in again.documents] == [d.text for d in first.documents]
    assert [d.id_ for d in again.documents] == [d.id_ for d in first.documents]
    assert again.documents[0].metadata == first.documents[0].metadata
    (folder / "a.md").write_text("---\ntitle: A\n---\n# A\n\nBeta text.\n", encoding="utf-8")
    changed = parse_folder(folder, progress=False, cache_dir=tmp_path / "cache")
    assert "Beta" in changed.documents[0].text


def test_parse_cache_fingerprint_covers_parsers_only() -> None:
    """The analysis modules it ignores exist (a rename would not go unnoticed), and the hash is stable."""
    from helpers.parsing.cache import NOT_PARSERS, parser_fingerprint

    folder = Path(__file__).parents[1] / "helpers" / "parsing"
    assert {p.name for p in folder.glob("*.py")} >= NOT_PARSERS
    assert parser_fingerprint() == parser_fingerprint() and len(parser_fingerprint()) == 16


def test_a_calendar_s_td_header_rows_under_an_empty_corner_name_the_columns() -> None:
    calendar = """<h2>Important Dates</h2><table>
      <tr><td></td><td colspan="2">Session I</td><td>Session II</td></tr>
      <tr><td></td><td>4 weeks</td><td>12 weeks</td><td>6 weeks</td></tr>
      <tr><td>Session ends</td><td>June 23</td><td>August 18</td><td>August 4</td></tr>
      <tr><td>Grades due</td><td colspan="3">August 25</td></tr></table>"""
    text, _ = html_to_text(calendar)
    assert "Important Dates: Session ends, Session I 4 weeks June 23, Session I 12 weeks August 18" in text
    assert "Session II 6 weeks August 4." in text and "Session I, Session I" not in text
    plain = "<table><tr><td></td><td>7</td></tr><tr><td>a</td><td>1</td></tr></table>"  # one labelled row: data
    assert "7" in html_to_text(plain)[0].split("\n")[0]


def test_a_first_row_of_labels_in_td_cells_over_dates_and_figures_names_the_columns() -> None:
    refunds = """<h4>Refund Schedule</h4><table>
      <tr><td>Course Drop Date</td><td>Refund %</td></tr>
      <tr><td>By January 3</td><td>100%</td></tr><tr><td>January 5</td><td>50%</td></tr>
      <tr><td colspan="2">No refunds provided after January 6</td></tr></table>"""
    assert html_to_text(refunds)[0].splitlines() == [
        "#### Refund Schedule",
        "",
        "Refund Schedule: Course Drop Date By January 3, Refund % 100%.",
        "Refund Schedule: Course Drop Date January 5, Refund % 50%.",
        "Refund Schedule: No refunds provided after January 6.",  # a note across the table, read once
    ]
    courses = """<table><tr><td>Subject</td><td>Number</td><td>GEP 1</td><td>Days</td><td>Start</td></tr>
      <tr><td>BIOL</td><td>101</td><td>Science</td><td>MTuWTh</td><td>10:00AM</td></tr>
      <tr><td>ECON</td><td>101</td><td>Social Science</td><td>MF</td><td>9:30AM</td></tr></table>"""
    assert "Subject BIOL, Number 101, GEP 1 Science, Days MTuWTh, Start 10:00AM." in html_to_text(courses)[0]


def test_a_first_row_of_values_stays_a_row() -> None:
    fees = """<table><tr><td>Application fee</td><td>$90</td></tr><tr><td>Deposit</td><td>$500</td></tr>
      <tr><td>Late fee</td><td>$150</td></tr></table>"""  # the first row holds a figure: no header
    assert html_to_text(fees)[0].splitlines()[0] == "Application fee, $90."
    people = """<table><tr><td>Jose Alvarado</td><td>Admissions</td></tr><tr><td>Greg Green</td><td>Director</td>
      </tr><tr><td>Pat Vonesh</td><td>Advising</td></tr></table>"""  # no figures below: nothing says "header"
    assert html_to_text(people)[0].splitlines()[0] == "Jose Alvarado, Admissions."


def test_a_calendar_s_empty_date_cell_takes_the_date_above() -> None:
    calendar = """<h2>Important Dates</h2><table>
      <tr><td>January 6</td><td>Last day of the Schedule Adjustment Period</td></tr>
      <tr><td></td><td>Last day to add courses</td></tr><tr><td></td><td>Last day to audit</td></tr>
      <tr><td>January 18</td><td>Last day to drop with a W</td></tr></table>"""
    lines = html_to_text(calendar)[0].splitlines()
    assert "Important Dates: January 6, Last day to add courses." in lines
    assert "Important Dates: January 6, Last day to audit." in lines
    assert "\n | Last day to add courses" in html_to_text(calendar, tables="raw")[0]  # raw keeps the cells
    notes = """<table><tr><th>Item</th><th>Note</th></tr><tr><td>A</td><td>x</td></tr><tr><td></td><td>y</td></tr>
      <tr><td></td><td>z</td></tr><tr><td></td><td>w</td></tr></table>"""  # a mostly empty first column: none
    assert "Note y." in html_to_text(notes)[0] and "Item A, Note y" not in html_to_text(notes)[0]


def test_every_table_format_fills_an_empty_date_cell_from_the_row_above(tmp_path: Path) -> None:
    calendar = "Date,Event\nJanuary 6,Last day to add\n,Last day to audit\nJanuary 18,Drop\n"
    path = write(tmp_path / "calendar.csv", calendar)
    (doc,) = parse(path, root=tmp_path)
    assert "Date January 6, Event Last day to audit." in doc.text.splitlines()[1]
