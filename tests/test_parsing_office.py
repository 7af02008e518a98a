"""Tests of the Word, PowerPoint and Excel parsers: every file is built here by python-docx, python-pptx and openpyxl.

A folder holding one of each goes through `parse_folder` (and once through `RAGPipeline.ingest`): the chunks
name the heading, the slide (its number as the page, and its title) and the sheet. Files are found by their
content, not their suffix; macro-enabled twins read like the plain files; a truncated, password-protected or
images-only file is skipped with a reason, never a traceback.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import docx
import openpyxl
import pptx
import pytest
from openpyxl.drawing.image import Image as SheetImage
from PIL import Image
from pptx.util import Inches
from test_parsing import assert_payload_types, write

from helpers.chunking import chunk_documents
from helpers.config import Settings
from helpers.parsing import ParseError, parse, parse_folder
from helpers.parsing.office import cell_text
from helpers.parsing.sniff import sniff

# ---------------------------------------------------------------------------------------------- builders


def png_bytes() -> bytes:
    """A tiny PNG, for documents that hold only a picture."""
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), "teal").save(buffer, format="PNG")
    return buffer.getvalue()


def saved(thing: object) -> bytes:
    """A python-docx / python-pptx / openpyxl object saved to bytes."""
    buffer = io.BytesIO()
    thing.save(buffer)  # type: ignore[attr-defined]
    return buffer.getvalue()


def docx_bytes() -> bytes:
    """A handbook: a title, two heading levels, a bulleted list and a table under a heading."""
    document = docx.Document()
    document.add_heading("Makerspace handbook", 0)  # level 0 is the Title style
    document.add_paragraph("Welcome to Riverbend Makerspace.")
    document.add_heading("Safety", 1)
    document.add_paragraph("Every member completes the safety induction first.")
    document.add_heading("Laser cutter", 2)
    document.add_paragraph("Never leave the laser cutter running unattended.")
    document.add_paragraph("Wear the orange goggles", style="List Bullet")
    document.add_heading("Materials", 2)
    table = document.add_table(rows=3, cols=2)
    for row, cells in zip(table.rows, [("Material", "Max thickness"), ("Plywood", "6 mm"), ("Acrylic", "5 mm")],
                          strict=True):  # fmt: skip
        for cell, text in zip(row.cells, cells, strict=True):
            cell.text = text
    document.add_heading("Opening hours", 1)
    document.add_paragraph("The workshop opens at 10:00 on Saturdays.")
    return saved(document)


def pptx_bytes() -> bytes:
    """A deck: a title slide, a slide with bullets and speaker notes, a table slide, a picture-only slide, and a
    slide with no title."""
    deck = pptx.Presentation()
    first = deck.slides.add_slide(deck.slide_layouts[0])
    first.shapes.title.text = "Riverbend Makerspace"
    first.placeholders[1].text = "Member briefing"
    fees = deck.slides.add_slide(deck.slide_layouts[1])
    fees.shapes.title.text = "Membership fees"
    fees.placeholders[1].text_frame.text = "Adults pay $45 a month"
    fees.placeholders[1].text_frame.add_paragraph().text = "Students pay $30 a month"
    fees.notes_slide.notes_text_frame.text = "Mention the family discount of 20 percent."
    classes = deck.slides.add_slide(deck.slide_layouts[5])  # title only
    classes.shapes.title.text = "Autumn classes"
    grid = classes.shapes.add_table(3, 2, Inches(1), Inches(2), Inches(6), Inches(2)).table
    for r, cells in enumerate([("Class", "Day"), ("Woodturning", "Tuesday"), ("Soldering", "Thursday")]):
        for c, text in enumerate(cells):
            grid.cell(r, c).text = text
    pictures = deck.slides.add_slide(deck.slide_layouts[6])  # blank
    pictures.shapes.add_picture(io.BytesIO(png_bytes()), Inches(1), Inches(1))
    untitled = deck.slides.add_slide(deck.slide_layouts[6])
    untitled.shapes.add_textbox(Inches(1), Inches(1), Inches(6), Inches(1)).text_frame.text = "Lockers cost $8."
    return saved(deck)


def xlsx_bytes() -> bytes:
    """A workbook: a price list, an hours sheet (a date and times), and an empty sheet."""
    book = openpyxl.Workbook()
    prices = book.active
    prices.title = "Prices"
    for row in [("Item", "Price", "Unit"), ("Locker", 8, "month"), ("Plywood sheet", 12.5, "sheet")]:
        prices.append(row)
    hours = book.create_sheet("Opening hours")
    for row in [("Day", "Opens", "Closes"), ("Saturday", "10:00", "18:00"), ("Closed on", None, None)]:
        hours.append(row)
    book.create_sheet("Notes")  # no cells: no document
    return saved(book)


MACRO_TYPES = {
    "docx": (b"wordprocessingml.document.main+xml", b"application/vnd.ms-word.document.macroEnabled.main+xml",
             "word/vbaProject.bin"),
    "pptx": (b"presentationml.presentation.main+xml",
             b"application/vnd.ms-powerpoint.presentation.macroEnabled.main+xml", "ppt/vbaProject.bin"),
    "xlsx": (b"spreadsheetml.sheet.main+xml", b"application/vnd.ms-excel.sheet.macroEnabled.main+xml",
             "xl/vbaProject.bin"),
}  # fmt: skip


def macro_enabled(data: bytes, kind: str) -> bytes:
    """The same package as Office saves a .docm/.pptm/.xlsm: the macro-enabled main content type and a VBA part.

    The VBA part here is placeholder bytes (a real one is an OLE file of compiled macros): it must never be read.
    """
    plain, macro, vba = MACRO_TYPES[kind]
    source, out = zipfile.ZipFile(io.BytesIO(data)), io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        for info in source.infolist():
            part = source.read(info)
            if info.filename == "[Content_Types].xml":
                start = part.index(plain)
                start = part.rindex(b'"', 0, start) + 1  # the whole ContentType value
                end = part.index(b'"', start)
                part = part[:start] + macro + part[end:]
            package.writestr(info.filename, part)
        package.writestr(vba, b"\xd0\xcf\x11\xe0 Attribute VB_Name = 'Module1'; Sub AutoOpen(): Shell 'calc': End Sub")
    return out.getvalue()


def encrypted_office_bytes() -> bytes:
    """A fake password-protected OOXML file: Office stores an encrypted .docx/.pptx/.xlsx in an OLE2 compound file
    (magic D0 CF 11 E0 A1 B1 1A E1) with `EncryptionInfo` and `EncryptedPackage` streams, not in a ZIP. This is
    that header, filler, and the two stream names as an OLE directory holds them (UTF-16-LE); nothing real inside.
    """
    header = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504)
    names = b"".join(name.encode("utf-16-le").ljust(64, b"\x00") + bytes(64) for name in
                     ("Root Entry", "EncryptionInfo", "EncryptedPackage"))  # fmt: skip
    return header + bytes(512) + names + bytes(1024)


def ole_header_only() -> bytes:
    """OLE2 magic and filler only (no stream names): a password-protected file or an old .doc, by content alone."""
    return b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(4088)


def images_only(kind: str) -> bytes:
    """A Word, PowerPoint or Excel file that holds one picture and no text."""
    picture = io.BytesIO(png_bytes())
    if kind == "docx":
        document = docx.Document()
        document.add_picture(picture)
        return saved(document)
    if kind == "pptx":
        deck = pptx.Presentation()
        deck.slides.add_slide(deck.slide_layouts[6]).shapes.add_picture(picture, Inches(1), Inches(1))
        return saved(deck)
    book = openpyxl.Workbook()
    book.active.add_image(SheetImage(picture), "B2")
    return saved(book)


def office_folder(folder: Path) -> Path:
    """One Word, one PowerPoint and one Excel file."""
    write(folder / "handbook.docx", docx_bytes())
    write(folder / "briefing.pptx", pptx_bytes())
    write(folder / "price_list.xlsx", xlsx_bytes())
    return folder


# ---------------------------------------------------------------------------------------------- the three formats


def test_a_folder_of_office_files_names_heading_slide_and_sheet(tmp_path: Path) -> None:
    report = parse_folder(office_folder(tmp_path / "docs"), progress=False)
    assert report.skipped == [] and report.notes == []
    assert report.counts() == {"docx": 5, "pptx": 4, "xlsx": 2}
    assert_payload_types(report.documents)
    # Word: one document per section, named by its heading trail, which also opens its text as a "#" line.
    sections = {doc.metadata["heading"]: doc.text for doc in report.documents if doc.metadata["doc_type"] == "docx"}
    assert list(sections) == ["Makerspace handbook", "Safety", "Safety > Laser cutter", "Safety > Materials",
                              "Opening hours"]  # fmt: skip
    assert sections["Safety > Laser cutter"].startswith("## Safety > Laser cutter\n\nNever leave")
    nodes = chunk_documents(report.documents, "header_sections")
    by_source: dict[str, list] = {}
    for node in nodes:
        by_source.setdefault(node.metadata["source"], []).append(node)
    # Word: a header-aware chunker gives each chunk the headings above it as its section path.
    paths = {node.metadata["section_path"]: node.text for node in by_source["handbook.docx"]}
    assert all(node.metadata["section_path"] == node.metadata["heading"] for node in by_source["handbook.docx"])
    assert "Safety > Laser cutter" in paths and "unattended" in paths["Safety > Laser cutter"]
    assert "Materials: Material Plywood, Max thickness 6 mm." in paths["Safety > Materials"]  # table-to-text
    assert "- Wear the orange goggles" in paths["Safety > Laser cutter"]
    assert "10:00 on Saturdays" in paths["Opening hours"]
    assert by_source["handbook.docx"][0].metadata["title"] == "Makerspace handbook"
    # PowerPoint: the slide's number is the page, its title the section; notes included; picture-only slide left out.
    slides = {node.metadata["page"]: node for node in by_source["briefing.pptx"]}
    assert sorted(slides) == [1, 2, 3, 5]
    fees = slides[2]
    assert fees.metadata["slide_title"] == fees.metadata["section_path"] == "Membership fees"
    assert "Students pay $30 a month" in fees.text and "Speaker notes: Mention the family discount" in fees.text
    assert "Autumn classes: Class Woodturning, Day Tuesday." in slides[3].text
    assert slides[5].metadata["section_path"] == "Slide 5" and slides[5].metadata["slide_title"] == ""
    assert fees.metadata["title"] == "Riverbend Makerspace"  # the deck: the first slide's title
    # Excel: each sheet its own document, each row with its header, named by the sheet.
    sheets = {node.metadata["sheet"]: node for node in by_source["price_list.xlsx"]}
    assert set(sheets) == {"Prices", "Opening hours"}  # the empty sheet gives nothing
    assert "Prices: Item Locker, Price 8, Unit month." in sheets["Prices"].text
    assert "Price 12.5" in sheets["Prices"].text
    assert sheets["Opening hours"].metadata["section_path"] == "Opening hours"
    assert "Opening hours: Day Closed on." in sheets["Opening hours"].text


def test_raw_tables_mode_keeps_cells_as_lines(tmp_path: Path) -> None:
    [sheet, _] = parse(write(tmp_path / "prices.xlsx", xlsx_bytes()), tables="raw")
    assert "Item | Price | Unit\nLocker | 8 | month" in sheet.text
    [materials] = [d for d in parse(write(tmp_path / "handbook.docx", docx_bytes()), tables="raw") if "|" in d.text]
    assert materials.metadata["heading"] == "Safety > Materials"  # the table stays in its section
    assert "Material | Max thickness\nPlywood | 6 mm" in materials.text


def test_word_sections_start_at_each_heading(tmp_path: Path) -> None:
    document = docx.Document()
    document.add_paragraph("Read this first.")  # before any heading: a section of its own, with no heading
    document.add_heading("Rules", 1)  # nothing under it: no section of its own, the trail below names it
    document.add_heading("Tools", 2)
    document.add_paragraph("Return every tool.")
    sections = [(d.metadata["heading"], d.text) for d in parse(write(tmp_path / "rules.docx", saved(document)))]
    assert sections == [("", "Read this first."), ("Rules > Tools", "## Rules > Tools\n\nReturn every tool.")]
    headings_only = docx.Document()
    headings_only.add_heading("Agenda", 1)
    headings_only.add_heading("Minutes", 1)
    [first, second] = parse(write(tmp_path / "agenda.docx", saved(headings_only)))
    assert (first.text, second.metadata["heading"]) == ("# Agenda", "Minutes")


def test_ids_are_deterministic_and_distinct_per_slide_and_sheet(tmp_path: Path) -> None:
    folder = office_folder(tmp_path / "docs")
    first, again = parse_folder(folder, progress=False), parse_folder(folder, progress=False)
    ids = [doc.id_ for doc in first.documents]
    assert ids == [doc.id_ for doc in again.documents] and len(set(ids)) == len(ids)


def test_the_same_text_in_two_word_sections_keeps_two_chunk_ids(tmp_path: Path) -> None:
    document = docx.Document()
    for heading in ("Lathe", "Drill press"):
        document.add_heading(heading, 1)
        document.add_paragraph("Switch it off at the wall before you change a part. " * 30)  # chunks past the heading
    nodes = chunk_documents(parse(write(tmp_path / "machines.docx", saved(document))))
    assert len({node.node_id for node in nodes}) == len(nodes)  # none would overwrite another in the store


def test_embedder_does_not_see_the_heading_slide_title_and_sheet_twice(tmp_path: Path) -> None:
    [_, section, *_] = parse(write(tmp_path / "handbook.docx", docx_bytes()))
    assert "heading" in section.excluded_embed_metadata_keys
    [slide, *_] = parse(write(tmp_path / "briefing.pptx", pptx_bytes()))
    assert {"slide_title", "page"} <= set(slide.excluded_embed_metadata_keys)
    [sheet, *_] = parse(write(tmp_path / "prices.xlsx", xlsx_bytes()))
    assert "sheet" in sheet.excluded_embed_metadata_keys


def test_cell_values_read_as_excel_shows_them() -> None:
    import datetime as dt

    assert [cell_text(v) for v in (None, True, 3.0, 0.1 + 0.2, 7, "x")] == ["", "TRUE", "3", "0.3", "7", "x"]
    assert cell_text(dt.datetime(2026, 9, 7)) == "2026-09-07"
    assert cell_text(dt.datetime(2026, 9, 7, 14, 30)) == "2026-09-07 14:30"


# ---------------------------------------------------------------------------------------------- by content


@pytest.mark.parametrize(
    ("make", "kind"), [(docx_bytes, "docx"), (pptx_bytes, "pptx"), (xlsx_bytes, "xlsx")], ids=["docx", "pptx", "xlsx"]
)
def test_office_files_are_found_by_their_content(make, kind: str, tmp_path: Path) -> None:
    data = make()
    assert sniff(write(tmp_path / "file.zip", data)).kind == kind  # the ZIP's members decide
    assert sniff(write(tmp_path / "cut", data[: len(data) // 2])).kind == kind  # cut short: its first member names
    report = parse_folder(write(tmp_path / "docs" / "exported", data).parent, progress=False)  # no suffix
    assert set(report.counts()) == {kind} and report.skipped == []
    assert report.notes == [("exported", f"has no suffix; read as {report_label(kind)} by its content")]


def report_label(kind: str) -> str:
    return {"docx": "a Word document", "pptx": "a PowerPoint presentation", "xlsx": "an Excel workbook"}[kind]


def test_a_word_file_saved_as_txt_is_read_as_word(tmp_path: Path) -> None:
    report = parse_folder(write(tmp_path / "docs" / "handbook.txt", docx_bytes()).parent, progress=False)
    assert report.counts() == {"docx": 5}  # its five sections
    assert report.notes == [("handbook.txt", "saved as '.txt' but is a Word document; read as a Word document")]


def test_a_plain_zip_is_named_not_read(tmp_path: Path) -> None:
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as package:
        package.writestr("notes.txt", "Room 210")
    with pytest.raises(ParseError, match=r"unsupported file type '\.zip': it is a ZIP archive, not a Word"):
        parse(write(tmp_path / "notes.zip", archive.getvalue()))


@pytest.mark.parametrize(
    ("make", "kind", "suffix"),
    [(docx_bytes, "docx", ".docm"), (pptx_bytes, "pptx", ".pptm"), (xlsx_bytes, "xlsx", ".xlsm")],
    ids=["docm", "pptm", "xlsm"],
)
def test_macro_enabled_files_read_like_the_plain_ones(make, kind: str, suffix: str, tmp_path: Path) -> None:
    plain = parse(write(tmp_path / f"plain.{kind}", make()))
    macro = parse(write(tmp_path / f"macro{suffix}", macro_enabled(make(), kind)))
    assert [d.text for d in macro] == [d.text for d in plain]
    assert {d.metadata["doc_type"] for d in macro} == {kind}
    assert not any("AutoOpen" in d.text for d in macro)  # the VBA part is never read


# ---------------------------------------------------------------------------------------------- bad files


@pytest.mark.parametrize(("make", "name"), [(docx_bytes, "Word document"), (pptx_bytes, "PowerPoint presentation"),
                                            (xlsx_bytes, "Excel workbook")], ids=["docx", "pptx", "xlsx"])  # fmt: skip
def test_truncated_files_are_reported_as_corrupt(make, name: str, tmp_path: Path) -> None:
    data = make()
    suffix = {"Word document": ".docx", "PowerPoint presentation": ".pptx", "Excel workbook": ".xlsx"}[name]
    for cut in (len(data) // 2, len(data) - 30, 300, 10):
        path = write(tmp_path / f"cut{cut}{suffix}", data[:cut])
        with pytest.raises(ParseError, match=f"corrupt {name}, cannot be opened"):
            parse(path)


def test_password_protected_files_say_so(tmp_path: Path) -> None:
    for suffix in (".docx", ".pptx", ".xlsx", ".xlsm", ""):
        path = write(tmp_path / f"locked{suffix}", encrypted_office_bytes())
        with pytest.raises(ParseError, match="password-protected") as caught:
            parse(path)
        assert "remove the password" in caught.value.reason
    with pytest.raises(ParseError, match=r"it is a password-protected Word document"):
        parse(tmp_path / "locked.docx")
    # Only the OLE header: by content, it could also be an old .doc renamed; the reason names both.
    with pytest.raises(ParseError, match=r"OLE compound file, not the ZIP a '\.xlsx' file is: password-protected"):
        parse(write(tmp_path / "header_only.xlsx", ole_header_only()))
    with pytest.raises(ParseError, match=r"an old Office file \(\.doc, \.xls or \.ppt\); save it again as \.docx"):
        parse(write(tmp_path / "minutes.doc", ole_header_only()))


@pytest.mark.parametrize("kind", ["docx", "pptx", "xlsx"])
def test_images_only_files_are_skipped_as_empty(kind: str, tmp_path: Path) -> None:
    path = write(tmp_path / f"pictures.{kind}", images_only(kind))
    with pytest.raises(ParseError, match=r"has no readable text \(only 1 image; the kit reads no images"):
        parse(path)
    blank = {"docx": docx.Document, "pptx": pptx.Presentation, "xlsx": openpyxl.Workbook}[kind]()
    with pytest.raises(ParseError, match=r"has no readable text \(the .* is empty\)"):
        parse(write(tmp_path / f"blank.{kind}", saved(blank)))


def test_a_zip_bomb_is_refused_unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("helpers.parsing.office.MAX_UNZIPPED", 1000)  # the real limit would need a huge test file
    with pytest.raises(ParseError, match=r"unzips to \d+ MB, over the 0 MB limit"):
        parse(write(tmp_path / "handbook.docx", docx_bytes()))


# ---------------------------------------------------------------------------------------------- through the pipeline


def test_ingested_office_files_are_cited_by_heading_slide_and_sheet(tmp_settings: Settings, tmp_path: Path) -> None:
    from helpers.app.views import where  # here: the parsing tests above need no store, embedder or app
    from helpers.chunking import DEFAULT_STRATEGY
    from helpers.generation import extract_citations
    from helpers.pipeline import RAGPipeline

    folder = office_folder(tmp_path / "docs")
    pipeline = RAGPipeline(tmp_settings)  # the default chunking: no section paths, the parsers' fields name the part
    try:
        report = pipeline.ingest(folder, progress=False)
        assert report.skipped == [] and report.documents == 11 and report.points == report.chunks
        fees = pipeline.retrieve("How much do students pay for membership?", k=3)
        laser = pipeline.retrieve("Can I leave the laser cutter running?", k=3)
        lockers = pipeline.retrieve("What is the price of a locker per month?", k=3)
    finally:
        pipeline.close()
    [slide] = [hit for hit in fees if hit.source == "briefing.pptx" and hit.metadata["page"] == 2]
    assert slide.metadata["strategy"] == DEFAULT_STRATEGY and slide.metadata["section_path"] == ""
    assert "Speaker notes" in slide.text
    [section] = [hit for hit in laser if hit.source == "handbook.docx" and "unattended" in hit.text]
    [sheet] = [hit for hit in lockers if hit.source == "price_list.xlsx" and hit.metadata["sheet"] == "Prices"]
    assert "Locker, Price 8" in sheet.text
    # What an answer citing them shows: the slide's number as the page and its title, the heading trail, the sheet.
    cited = extract_citations("Students pay $30 [1]; never leave it running [2]; $8 [3].", [slide, section, sheet])
    assert [str(citation) for citation in cited] == [
        "[1] briefing.pptx, page 2, Membership fees, chunk 0",
        "[2] handbook.docx, Safety > Laser cutter, chunk 0",
        "[3] price_list.xlsx, Prices, chunk 0",
    ]
    assert [where(hit) for hit in (slide, section, sheet)] == ["p. 2 · Membership fees", "Safety > Laser cutter",
                                                               "Prices"]  # fmt: skip
