"""Build the 2026-27 Program Handbook PDF from handbook_content.md and facts.yaml (deterministic).

    .venv/bin/python course_data/build/build_handbook.py

The prose lives in handbook_content.md (a small Markdown-like markup described at its top); the course
catalog and the tables are generated from facts.yaml so their numbers cannot drift. Layout: letter
pages with a running header and a "Page N" footer; chapters marked "%%two" are set in two columns.
The last page is a scanned image with no text layer (build_scanned_page.py), for OCR.
The two sentences listed under `split_across_page_break` in facts.yaml are planted so that each one
straddles a page break exactly after its `break_after` words: the script builds the PDF, measures
where the sentence fell (PyMuPDF), adjusts a spacer before the section and builds again.
"""

from __future__ import annotations

import re
from pathlib import Path

import pymupdf
import yaml
from build_scanned_page import add_scanned_page  # the script's own folder is on sys.path
from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER, TA_LEFT
from reportlab.lib.pagesizes import letter
from reportlab.lib.styles import ParagraphStyle
from reportlab.platypus import (
    BaseDocTemplate,
    Flowable,
    Frame,
    NextPageTemplate,
    PageBreak,
    PageTemplate,
    Paragraph,
    Spacer,
    Table,
    TableStyle,
)

BUILD = Path(__file__).resolve().parent
OUT = BUILD.parent / "docs" / "handbook" / "program_handbook_2026-27.pdf"
CONTENT = BUILD / "handbook_content.md"

PAGE_W, PAGE_H = letter
MARGIN_X, MARGIN_TOP, MARGIN_BOTTOM, GUTTER = 60, 72, 72, 18
FRAME_BOTTOM_Y = PAGE_H - MARGIN_BOTTOM  # in PyMuPDF coordinates (origin top-left)
HEADER = "Lakeside University · MS in Applied Data Science · Program Handbook 2026–27"

# ----------------------------------------------------------------------------------------- styles
BODY = ParagraphStyle("body", fontName="Times-Roman", fontSize=10.5, leading=14, alignment=TA_LEFT,
                      spaceAfter=6)
BODY2 = ParagraphStyle("body2", parent=BODY, fontSize=9.5, leading=12.5, spaceAfter=5)
BULLET = ParagraphStyle("bullet", parent=BODY, leftIndent=16, bulletIndent=5, spaceAfter=3)
BULLET2 = ParagraphStyle("bullet2", parent=BODY2, leftIndent=13, bulletIndent=3, spaceAfter=3)
H1 = ParagraphStyle("h1", fontName="Helvetica-Bold", fontSize=18, leading=22, spaceBefore=4, spaceAfter=10,
                    textColor=colors.HexColor("#12355b"), keepWithNext=True)
H1_2 = ParagraphStyle("h1two", parent=H1, fontSize=15, leading=19)
H2 = ParagraphStyle("h2", fontName="Helvetica-Bold", fontSize=12.5, leading=16, spaceBefore=10, spaceAfter=5,
                    textColor=colors.HexColor("#12355b"), keepWithNext=True)
H2_2 = ParagraphStyle("h2two", parent=H2, fontSize=11, leading=14, spaceBefore=8)
H3 = ParagraphStyle("h3", fontName="Helvetica-Bold", fontSize=10.5, leading=13, spaceBefore=6, spaceAfter=3,
                    keepWithNext=True)
COURSE_TITLE = ParagraphStyle("course", fontName="Helvetica-Bold", fontSize=9.5, leading=12, spaceBefore=5,
                              spaceAfter=1, keepWithNext=True)
CELL = ParagraphStyle("cell", fontName="Helvetica", fontSize=8.5, leading=10.5)
CELL_HEAD = ParagraphStyle("cellhead", parent=CELL, fontName="Helvetica-Bold")
CAPTION = ParagraphStyle("caption", fontName="Helvetica-Bold", fontSize=9.5, leading=12, spaceBefore=6,
                         spaceAfter=4, keepWithNext=True)
COVER_TITLE = ParagraphStyle("covertitle", fontName="Helvetica-Bold", fontSize=28, leading=34,
                             alignment=TA_CENTER, textColor=colors.HexColor("#12355b"))
COVER_SUB = ParagraphStyle("coversub", fontName="Helvetica", fontSize=14, leading=20, alignment=TA_CENTER)
COVER_SMALL = ParagraphStyle("coversmall", parent=BODY, alignment=TA_CENTER)
TOC = ParagraphStyle("toc", fontName="Helvetica", fontSize=10.5, leading=15)


# -------------------------------------------------------------------------------- content parsing
def inline(text: str) -> str:
    """Escape &, < and > for reportlab, then turn **bold** into <b> and [[BREAK]] into a line break."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", text)
    return text.replace("[[BREAK]]", "<br/>")


def read_content(facts: dict) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """The content file as (kind, text) items, plus the course notes ("@ADS 501: ...")."""
    planted = planted_paragraphs(facts)
    items: list[tuple[str, str]] = []
    notes: dict[str, str] = {}
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            items.append(("p", " ".join(paragraph)))
            paragraph.clear()

    for raw in CONTENT.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if line.startswith("%% ") or line == "%%":
            continue
        if not line:
            flush()
            continue
        if line in ("%%one", "%%two"):
            flush()
            items.append(("layout", line[2:]))
        elif line.startswith("@"):
            flush()
            code, note = line[1:].split(":", 1)
            notes[code.strip()] = note.strip()
        elif line.startswith("#"):
            flush()
            level = len(line) - len(line.lstrip("#"))
            items.append((f"h{level}", line[level:].strip()))
        elif line.startswith("- "):
            flush()
            items.append(("bullet", line[2:]))
        elif line.startswith("{{") and line.endswith("}}"):
            flush()
            items.append(("directive", line[2:-2]))
        elif line.startswith("[[") and line.endswith("]]") and line[2:-2] in planted:
            flush()
            items.append(("planted", planted[line[2:-2]]))
        else:
            paragraph.append(line)
    flush()
    return items, notes


def planted_paragraphs(facts: dict) -> dict[str, str]:
    """The two page-break paragraphs: the facts sentence with [[BREAK]] after break_after, plus a follow-up."""
    follow = {
        "PROBATION": "An extension must be requested by the student, in writing, before the end of the second "
                     "probationary quarter, and it is granted only when the student's grades in the probationary "
                     "quarters show clear and sustained improvement.",
        "INCOMPLETE": "The F then counts in the GPA like any other grade, and a required course must be repeated. "
                      "Students should therefore agree a realistic schedule for the outstanding work with the "
                      "instructor as soon as the Incomplete is granted.",
    }
    out = {}
    for entry in facts["split_across_page_break"]:
        key = "PROBATION" if "probation" in entry["sentence"] else "INCOMPLETE"
        sentence, cut = entry["sentence"], entry["break_after"]
        index = sentence.index(cut) + len(cut)
        out[key] = sentence[:index] + "[[BREAK]]" + sentence[index:] + " " + follow[key]
    return out


# ------------------------------------------------------------------------------ generated blocks
def cell(text: str, head: bool = False) -> Paragraph:
    return Paragraph(inline(str(text)), CELL_HEAD if head else CELL)


def grid_table(caption: str, header: list[str], rows: list[list[str]], widths: list[float]) -> list[Flowable]:
    """A captioned, fully ruled table (ruled so that PDF table detection finds it)."""
    data = [[cell(h, True) for h in header]] + [[cell(c) for c in row] for row in rows]
    table = Table(data, colWidths=widths, repeatRows=1, hAlign="LEFT")
    table.setStyle(TableStyle([
        ("GRID", (0, 0), (-1, -1), 0.5, colors.HexColor("#7a8a99")),
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#dde6ef")),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("TOPPADDING", (0, 0), (-1, -1), 3), ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
    ]))
    return [Paragraph(inline(caption), CAPTION), table, Spacer(1, 8)]


def money(value: int) -> str:
    return f"${value:,}"


def table_tracks(facts: dict, width: float) -> list[Flowable]:
    mle, adsc = facts["tracks"]["MLE"], facts["tracks"]["ADSc"]
    rows = [
        ["Shared core", "18 units (ADS 501, 510, 520, 530, 545 and ADS 590)", "18 units (ADS 501, 510, 520, 530, 545 and ADS 590)"],
        ["Track-required courses", "ADS 631, ADS 632, ADS 633, ADS 634 (4 courses, 16 units)",
         "ADS 641, ADS 642, ADS 646 (3 courses, 10 units)"],
        ["Electives", "2 courses, 8 units; both 600-level ADS courses", "4 courses, 16 units; at least 2 from the Analytics cluster"],
        ["Capstone", "ADS 698A + ADS 698B, 6 units over two consecutive quarters",
         "ADS 699, 4 units in one quarter"],
        ["Capstone team size", "3 to 5 students", "2 to 4 students"],
        ["Thesis option", "Yes: ADS 697, 6 units, replaces ADS 698A/698B", "No"],
        ["Fully online variant", "Not available", "Available (with one Residency Weekend)"],
        ["Total units", str(mle["total_units"]), str(adsc["total_units"])],
    ]
    return grid_table("Table 1. Degree requirements of the two tracks, 2026-27",
                      ["Requirement", "Machine Learning Engineering (MLE)", "Analytics and Decision Science (ADSc)"],
                      rows, [0.22 * width, 0.39 * width, 0.39 * width])


def table_plans(facts: dict, width: float) -> list[Flowable]:
    names = ["Autumn, year 1", "Winter, year 1", "Spring, year 1", "Summer, year 1", "Autumn, year 2"]
    keys = ["autumn_year_1", "winter_year_1", "spring_year_1", "summer_year_1", "autumn_year_2"]
    plans = [facts["tracks"][t]["sample_full_time_plan"] for t in ("MLE", "ADSc")]
    rows = []
    for i, (name, key) in enumerate(zip(names, keys, strict=False)):
        rows.append([name] + [", ".join(p[key]) + f" ({p['units_by_quarter'][i]} units)" for p in plans])
    rows.append(["Total", "48 units", "48 units"])
    return grid_table("Table 2. Sample full-time plans (five quarters)", ["Quarter", "MLE track", "ADSc track"],
                      rows, [0.2 * width, 0.4 * width, 0.4 * width])


def table_grades(facts: dict, width: float) -> list[Flowable]:
    rows = []
    for g in facts["policies"]["grading_scale"]:
        points = g["points"]
        rows.append([g["grade"], f"{points:.1f}" if isinstance(points, float) else str(points)])
    return grid_table("Table 3. Grading scale", ["Grade", "Grade points"], rows, [0.3 * width, 0.7 * width])


def table_fees(facts: dict, width: float) -> list[Flowable]:
    now, then = facts["tuition_and_fees"], facts["tuition_and_fees"]["previous_year_2025_26"]
    rows = [
        ["Full-time tuition, 8 to 16 units (per quarter, Autumn, Winter, Spring)",
         money(now["full_time_tuition_per_quarter"]), money(then["full_time_tuition_per_quarter"])],
        ["Per-unit tuition (under 8 units, all Summer units, units above 16)",
         money(now["part_time_rate_per_unit"]), money(then["part_time_rate_per_unit"])],
        ["Student services fee (per quarter)", money(now["student_services_fee_per_quarter"]),
         money(then["student_services_fee_per_quarter"])],
        ["Technology fee (per quarter)", money(now["technology_fee_per_quarter"]),
         money(then["technology_fee_per_quarter"])],
        ["LU-SHIP health insurance (per quarter, Autumn, Winter, Spring)",
         money(now["health_insurance"]["fee_per_quarter"]), money(then["health_insurance_fee_per_quarter"])],
        ["Matriculation fee (one time, first quarter)", money(now["matriculation_fee"]), money(then["matriculation_fee"])],
        ["Late payment fee", money(now["late_payment_fee"]), money(then["late_payment_fee"])],
        ["LU FlexPay setup fee (per quarter)", now["payment_plan"]["setup_fee"].split()[0],
         then["payment_plan_setup_fee"].split()[0]],
    ]
    return grid_table("Table 4. Tuition and fees, 2026-27 and 2025-26", ["Charge", "2026-27", "2025-26"],
                      rows, [0.6 * width, 0.2 * width, 0.2 * width])


def table_coa(facts: dict, width: float) -> list[Flowable]:
    coa = facts["tuition_and_fees"]["cost_of_attendance_first_year_2026_27"]
    labels = [("tuition", "Tuition (three quarters at the flat rate)"),
              ("student_services_and_technology_fees", "Student services and technology fees"),
              ("health_insurance", "LU-SHIP health insurance"), ("matriculation_fee", "Matriculation fee"),
              ("books_and_supplies", "Books and supplies"), ("housing_and_food", "Housing and food"),
              ("transportation", "Transportation"), ("personal", "Personal expenses"),
              ("total", "Total estimated cost of attendance")]
    rows = [[label, money(coa[key])] for key, label in labels]
    return grid_table("Table 5. Estimated first-year cost of attendance, full-time, 2026-27",
                      ["Item", "Amount"], rows, [0.7 * width, 0.3 * width])


def table_certificate(facts: dict, width: float) -> list[Flowable]:
    rows = [
        ["Units required", "48", "20 (five 4-unit courses)"],
        ["Entry terms", "Autumn only", "Autumn, Winter or Spring"],
        ["Tuition, 2026-27", "$14,850 per quarter full-time, or $1,245 per unit", "$1,095 per unit (no flat rate)"],
        ["Minimum to earn the credential", "Cumulative GPA 3.00; B- in core courses, B in capstone",
         "Cumulative GPA 2.75; C in each course"],
        ["Typical duration", "5 quarters full-time; about 8 quarters part-time", "4 quarters part-time"],
        ["Maximum duration", "3 years full-time, 4 years part-time (5 years in all)", "2 years"],
        ["Format", "In person (both tracks) or fully online (ADSc only)", "Fully online or in person"],
        ["I-20 and STEM OPT", "Yes (STEM-designated, CIP 30.7001)", "No"],
        ["Application fee", "$90 (2027 entry)", "$60"],
    ]
    return grid_table("Table 6. The MS and the Graduate Certificate in Data Analytics compared",
                      ["Feature", "MS in Applied Data Science", "Graduate Certificate (GCDA)"],
                      rows, [0.26 * width, 0.4 * width, 0.34 * width])


COURSE_GROUPS = [
    ("Before the program", lambda c: c["track"] == "pre-program"),
    ("Core courses", lambda c: c["track"] == "core"),
    ("Machine Learning Engineering track courses", lambda c: c["track"] == "MLE" and c["code"] in
     ("ADS 631", "ADS 632", "ADS 633", "ADS 634")),
    ("Analytics and Decision Science track courses", lambda c: c["track"] == "ADSc" and c["code"] != "ADS 699"),
    ("Electives: Analytics cluster", lambda c: c.get("cluster") == "Analytics"),
    ("Electives: Machine Learning cluster", lambda c: c.get("cluster") == "Machine Learning"),
    ("Independent study and internship", lambda c: c["code"] in ("ADS 680", "ADS 695")),
    ("Thesis and Capstone Studio", lambda c: c["code"] in ("ADS 697", "ADS 698A", "ADS 698B", "ADS 699")),
]


def units_phrase(course: dict) -> str:
    units = course["units"]
    if course["code"] == "ADS 090":
        return "0 units, noncredit"
    if isinstance(units, int):
        return f"{units} unit" + ("" if units == 1 else "s")
    if str(units).startswith("1-4"):
        return "1 to 4 units, variable"
    return "3 units per quarter, 6 units in total"


def course_catalog(facts: dict, notes: dict[str, str]) -> list[Flowable]:
    flow: list[Flowable] = []
    seen = set()
    for group, test in COURSE_GROUPS:
        courses = [c for c in facts["courses"] if test(c) and c["code"] not in seen]
        if not courses:
            continue
        flow.append(Paragraph(inline(group), H2_2))
        for c in courses:
            seen.add(c["code"])
            description = c["description"].replace(" (QEB B12)", "")  # the lab's room number is table-only
            parts = [description]
            if c["code"] in notes:
                parts.append(notes[c["code"]])
            prereq = c["prerequisites"]
            parts.append(f"Prerequisites: {prereq[0].upper() + prereq[1:]}.")
            parts.append("Offered: " + ", ".join(c["quarters_offered"]) + ".")
            if c.get("grading"):
                grading = c["grading"]
                parts.append("Grading: " + grading[0].upper() + grading[1:] + ".")
            if c.get("cluster"):
                parts.append(f"{c['cluster']} cluster elective.")
            flow.append(Paragraph(inline(f"{c['code']} {c['title']} ({units_phrase(c)})"), COURSE_TITLE))
            flow.append(Paragraph(inline(" ".join(parts)), BODY2))
    missing = {c["code"] for c in facts["courses"]} - seen
    assert not missing, f"courses missing from the catalog: {missing}"
    return flow


# -------------------------------------------------------------------------------- page templates
class TuneSpacer(Flowable):
    """Vertical space that may split across frames; its height is set by the page-break tuner."""

    def __init__(self, height: float) -> None:
        super().__init__()
        self.height = height

    def wrap(self, aw, ah):
        return aw, self.height

    def split(self, aw, ah):
        if self.height <= ah:
            return [self]
        if ah < 1:
            return []
        return [TuneSpacer(ah - 0.5), TuneSpacer(self.height - ah + 0.5)]

    def draw(self) -> None:
        pass


def decorate(canvas, doc) -> None:
    """Running header and "Page N" footer on every page (and note which pages are two-column)."""
    if doc.pageTemplate.id == "two":
        doc.two_column_pages.append(doc.page)
    canvas.saveState()
    canvas.setFont("Helvetica", 8.5)
    canvas.setFillColor(colors.HexColor("#44546a"))
    canvas.drawString(MARGIN_X, PAGE_H - 34, HEADER)
    canvas.setStrokeColor(colors.HexColor("#9fb0c2"))
    canvas.line(MARGIN_X, PAGE_H - 40, PAGE_W - MARGIN_X, PAGE_H - 40)
    canvas.line(MARGIN_X, 44, PAGE_W - MARGIN_X, 44)
    canvas.drawCentredString(PAGE_W / 2, 30, f"Page {doc.page}")
    canvas.restoreState()


class Handbook(BaseDocTemplate):
    def __init__(self, path: str, **kwargs) -> None:
        super().__init__(path, pagesize=letter, leftMargin=MARGIN_X, rightMargin=MARGIN_X, topMargin=MARGIN_TOP,
                         bottomMargin=MARGIN_BOTTOM, invariant=1, **kwargs)
        width, height = self.width, self.height
        column = (width - GUTTER) / 2
        one = Frame(MARGIN_X, MARGIN_BOTTOM, width, height, id="body", leftPadding=0, rightPadding=0,
                    topPadding=0, bottomPadding=0)
        left = Frame(MARGIN_X, MARGIN_BOTTOM, column, height, id="left", leftPadding=0, rightPadding=0,
                     topPadding=0, bottomPadding=0)
        right = Frame(MARGIN_X + column + GUTTER, MARGIN_BOTTOM, column, height, id="right", leftPadding=0,
                      rightPadding=0, topPadding=0, bottomPadding=0)
        self.addPageTemplates([PageTemplate("one", [one], onPage=decorate),
                               PageTemplate("two", [left, right], onPage=decorate)])
        self.chapters: list[tuple[str, int]] = []
        self.two_column_pages: list[int] = []

    def afterFlowable(self, flowable: Flowable) -> None:
        if isinstance(flowable, Paragraph) and flowable.style.name in ("h1", "h1two"):
            self.chapters.append((flowable.getPlainText(), self.page))


# ---------------------------------------------------------------------------------------- story
def story(facts: dict, tune: dict[str, float], toc: list[tuple[str, int]]) -> list[Flowable]:
    items, notes = read_content(facts)
    width = PAGE_W - 2 * MARGIN_X
    column = (width - GUTTER) / 2
    two = False
    flow: list[Flowable] = []
    tables = {"tracks": table_tracks, "plans": table_plans, "grades": table_grades, "fees": table_fees,
              "coa": table_coa, "certificate": table_certificate}
    for index, (kind, text) in enumerate(items):
        next_kind = items[index + 1][0] if index + 1 < len(items) else ""
        if kind == "layout":
            two = text == "two"
            flow += [NextPageTemplate(text), PageBreak()]
        elif kind == "h1":
            flow.append(Paragraph(inline(text), H1_2 if two else H1))
        elif kind in ("h2", "h3"):  # sections within a chapter (the content uses ###)
            style = H2_2 if two else H2
            if next_kind == "planted":  # keepWithNext would move the whole split paragraph to the next page
                style = ParagraphStyle(style.name + "free", parent=style, keepWithNext=False)
            flow.append(Paragraph(inline(text), style))
        elif kind == "p":
            flow.append(Paragraph(inline(text), BODY2 if two else BODY))
        elif kind == "planted":
            style = ParagraphStyle("planted", parent=BODY2 if two else BODY, allowOrphans=1, allowWidows=1)
            flow.append(Paragraph(inline(text), style))
        elif kind == "bullet":
            match = re.match(r"^(\d+)\.\s+(.*)$", text)
            bullet, body = (match.group(1) + ".", match.group(2)) if match else ("•", text)
            flow.append(Paragraph(inline(body), BULLET2 if two else BULLET, bulletText=bullet))
        elif kind == "directive":
            if text.startswith("tune:"):
                flow.append(TuneSpacer(tune.get(text[5:], 0.0)))
            elif text == "cover":
                flow += cover(facts)
            elif text == "contents":
                flow += contents(toc)
            elif text == "courses":
                flow += course_catalog(facts, notes)
            elif text.startswith("table:"):
                flow += tables[text[6:]](facts, column if two else width)
            else:
                raise ValueError(f"unknown directive {{{{{text}}}}}")
    return flow


def cover(facts: dict) -> list[Flowable]:
    p = facts["program"]
    return [Spacer(1, 120), Paragraph("Lakeside University", COVER_SUB), Spacer(1, 6),
            Paragraph(inline(p["school"]), COVER_SUB), Spacer(1, 40),
            Paragraph("MS in Applied Data Science", COVER_TITLE), Spacer(1, 10),
            Paragraph("Program Handbook 2026–27", COVER_TITLE), Spacer(1, 40),
            Paragraph(inline(f"For students enrolled in the {p['degree']}, Autumn 2026 through Summer 2027"),
                      COVER_SMALL),
            Spacer(1, 120),
            Paragraph(inline(f"Graduate Student Services · {p['student_services']['location']} · "
                             f"{p['student_services']['general_email']} · {p['student_services']['phone']}"),
                      COVER_SMALL),
            Paragraph(inline(p["mailing_address"]), COVER_SMALL),
            Paragraph(inline(p["website_base_url"]), COVER_SMALL),
            PageBreak()]


def contents(toc: list[tuple[str, int]]) -> list[Flowable]:
    flow: list[Flowable] = [Paragraph("Contents", ParagraphStyle("contents", parent=H1))]
    rows = [[Paragraph(inline(title), TOC), Paragraph(str(page), TOC)] for title, page in toc]
    if rows:
        table = Table(rows, colWidths=[400, 60], hAlign="LEFT")
        table.setStyle(TableStyle([("ALIGN", (1, 0), (1, -1), "RIGHT"), ("TOPPADDING", (0, 0), (-1, -1), 1),
                                   ("BOTTOMPADDING", (0, 0), (-1, -1), 1)]))
        flow.append(table)
    return flow


def build(facts: dict, tune: dict[str, float], toc: list[tuple[str, int]]) -> list[tuple[str, int]]:
    OUT.parent.mkdir(parents=True, exist_ok=True)
    doc = Handbook(str(OUT), title="MS in Applied Data Science Program Handbook 2026–27",
                   author="Lakeside University, School of Computing and Data Sciences",
                   subject="Program Handbook, academic year 2026-27", creator="build_handbook.py")
    doc.build(story(facts, tune, toc))
    build.two_column_pages = doc.two_column_pages
    return doc.chapters


# ----------------------------------------------------------------------------- page-break tuning
def locate(facts: dict) -> dict[str, dict]:
    """For each planted sentence: page and bottom of its first half, and page of its second half."""
    found = {}
    with pymupdf.open(OUT) as pdf:
        texts = [" ".join(page.get_text().split()) for page in pdf]
        for entry in facts["split_across_page_break"]:
            key = "probation" if "probation" in entry["sentence"] else "incomplete"
            sentence, cut = entry["sentence"], entry["break_after"]
            first = " ".join(sentence[: sentence.index(cut) + len(cut)].split())
            second = " ".join(sentence[sentence.index(cut) + len(cut):].split())
            p1 = next((i for i, t in enumerate(texts) if first in t), None)
            p2 = next((i for i, t in enumerate(texts) if second in t), None)
            tail = " ".join(first.split()[-3:])
            rects = pdf[p1].search_for(tail) if p1 is not None else []
            found[key] = {"first_page": p1, "second_page": p2, "bottom": rects[-1].y1 if rects else None,
                          "x0": rects[-1].x0 if rects else None}
    return found


def main() -> None:
    facts = yaml.safe_load((BUILD / "facts.yaml").read_text(encoding="utf-8"))
    tune = {"probation": 0.0, "incomplete": 0.0}
    toc = build(facts, tune, [])
    leading = BODY2.leading
    for _ in range(12):
        chapters = build(facts, tune, toc)
        where = locate(facts)
        done = all(w["first_page"] is not None and w["second_page"] == w["first_page"] + 1 for w in where.values())
        if done and chapters == toc:
            break
        toc = chapters
        for key, w in where.items():
            if w["first_page"] is not None and w["second_page"] == w["first_page"] + 1:
                continue
            if w["bottom"] is None:  # first half itself split across pages: push the whole paragraph down
                tune[key] += leading * 3
                continue
            room = FRAME_BOTTOM_Y - w["bottom"]
            tune[key] += max(room - leading / 2, 1.0) if w["x0"] > PAGE_W / 2 else room + leading
    else:
        raise SystemExit(f"could not plant the page-break sentences: {locate(facts)}, tune={tune}")
    where = locate(facts)
    scanned = add_scanned_page(OUT)  # the image-only page OCR has to read (build_scanned_page.py)
    with pymupdf.open(OUT) as pdf:
        pages = pdf.page_count
    size = OUT.stat().st_size
    print(f"{OUT.relative_to(BUILD.parent.parent)}: {pages} pages, {size / 1024:.0f} KiB; "
          f"spacers {', '.join(f'{k} {v:.1f} pt' for k, v in tune.items())}")
    print(f"  two-column pages: {build.two_column_pages}")
    print(f"  scanned image-only page: {scanned}")
    for key, w in where.items():
        print(f"  {key}: first half on page {w['first_page'] + 1}, rest on page {w['second_page'] + 1}")


if __name__ == "__main__":
    main()
