"""Build the two table documents of the course corpus from facts.yaml (deterministic output).

    .venv/bin/python course_data/build/build_tables.py

Writes:
  course_data/docs/tables/class_schedule.html   the registrar's class schedule as a saved web page:
                                                one <table> per term, printed schedule only (room
                                                changes announced by e-mail are NOT reflected)
  course_data/docs/tables/academic_calendar.csv both academic years, one event per row, ISO dates
"""

from __future__ import annotations

import csv
import html
import io
from pathlib import Path

import yaml

BUILD = Path(__file__).resolve().parent
DOCS = BUILD.parent / "docs"
TERMS = ["Autumn 2026", "Winter 2027", "Spring 2027", "Summer 2027"]
HEADER = ["Course", "Title", "Units", "Section", "Days", "Time", "Room", "Instructor", "Modality",
          "Capacity", "Term"]
TERM_DATES = {  # instruction dates, for the caption's note (from the calendar of 2026-27)
    "Autumn 2026": ("September 24", "December 4, 2026"),
    "Winter 2027": ("January 4", "March 12, 2027"),
    "Spring 2027": ("March 29", "June 4, 2027"),
    "Summer 2027": ("June 21", "August 27, 2027"),
}


def load_facts() -> dict:
    return yaml.safe_load((BUILD / "facts.yaml").read_text(encoding="utf-8"))


def units_text(units) -> str:
    """Units as printed in the schedule: 4, 0, or a range such as 1–4."""
    if isinstance(units, int):
        return str(units)
    if str(units).startswith("1-4"):
        return "1–4"
    return str(units)


def time_text(section: dict) -> str:
    if section["start"] == "Arranged":
        return "Arranged"
    return f"{section['start']} – {section['end']}"


def schedule_rows(facts: dict, term: str) -> list[list[str]]:
    titles = {c["code"]: c for c in facts["courses"]}
    rows = []
    for s in facts["sections"]:
        if s["term"] != term:
            continue
        course = titles[s["course"]]
        rows.append([s["course"], course["title"], units_text(course["units"]), s["section"], s["days"],
                     time_text(s), s["room"], s["instructor"], s["modality"], str(s["capacity"]), s["term"]])
    return rows


def build_schedule(facts: dict) -> str:
    e = html.escape
    parts = []
    for term in TERMS:
        rows = schedule_rows(facts, term)
        start, end = TERM_DATES[term]
        anchor = term.lower().replace(" ", "-")
        lines = [f'<section class="term" id="{anchor}">',
                 f"<h2>{e(term)}</h2>",
                 f'<p class="term-dates">Instruction: {start} to {end}. {len(rows)} sections.</p>',
                 '<table class="schedule">',
                 f"<caption>Class schedule — {e(term)}</caption>",
                 "<thead><tr>" + "".join(f'<th scope="col">{e(h)}</th>' for h in HEADER) + "</tr></thead>",
                 "<tbody>"]
        for row in rows:
            lines.append("<tr>" + "".join(f"<td>{e(cell)}</td>" for cell in row) + "</tr>")
        lines += ["</tbody>", "</table>", "</section>"]
        parts.append("\n".join(lines))
    notes = "".join(f"<li>{e(n)}</li>" for n in facts["schedule_notes"])
    tables = "\n\n".join(parts)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Class Schedule 2026–27 | MS in Applied Data Science | Lakeside University</title>
<link rel="canonical" href="{facts['program']['website_pages']['schedule']}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/assets/css/scds-site.css">
<script src="/assets/js/analytics.js" defer></script>
</head>
<body>
<a class="skip-link" href="#content">Skip to main content</a>
<div id="cookie-banner" class="cookie-consent">This site uses cookies to improve your experience.
<button type="button">Accept</button> <button type="button">Settings</button></div>
<header class="site-header">
<div class="brand"><a href="https://datascience.lakeside.edu/">Lakeside University · School of Computing and Data Sciences</a></div>
<nav class="main-menu" aria-label="Main menu">
<ul>
<li><a href="https://datascience.lakeside.edu/">Home</a></li>
<li><a href="https://datascience.lakeside.edu/curriculum">Curriculum</a></li>
<li><a href="https://datascience.lakeside.edu/admissions">Admissions</a></li>
<li><a href="https://datascience.lakeside.edu/tuition-and-fees">Tuition and fees</a></li>
<li><a href="https://datascience.lakeside.edu/class-schedule" aria-current="page">Class schedule</a></li>
<li><a href="https://datascience.lakeside.edu/academic-calendar">Academic calendar</a></li>
<li><a href="https://datascience.lakeside.edu/faq">FAQ</a></li>
<li><a href="https://datascience.lakeside.edu/contact">Contact</a></li>
</ul>
</nav>
</header>
<nav class="breadcrumb" aria-label="Breadcrumb"><a href="https://datascience.lakeside.edu/">Home</a> › <a href="https://datascience.lakeside.edu/curriculum">Curriculum</a> › Class schedule</nav>
<main id="content">
<h1>Class Schedule, 2026–27 Academic Year</h1>
<p class="lede">Office of the Registrar · MS in Applied Data Science (MS-ADS) course sections for Autumn 2026,
Winter 2027, Spring 2027 and Summer 2027. Times are Harbor City time. Hybrid sections meet in the listed room
and are live-streamed; online students may join them remotely.</p>
<p class="updated">Schedule published by the Office of the Registrar. Changes made after publication are
announced to enrolled students by their instructors.</p>
<ul class="jump-links">
<li><a href="#autumn-2026">Autumn 2026</a></li>
<li><a href="#winter-2027">Winter 2027</a></li>
<li><a href="#spring-2027">Spring 2027</a></li>
<li><a href="#summer-2027">Summer 2027</a></li>
</ul>

{tables}

<section class="notes">
<h2>Schedule notes</h2>
<ul>{notes}</ul>
</section>
</main>
<aside class="sidebar">
<h2>Related links</h2>
<ul>
<li><a href="https://datascience.lakeside.edu/academic-calendar">Academic calendar</a></li>
<li><a href="https://datascience.lakeside.edu/policies">Academic policies</a></li>
<li><a href="https://datascience.lakeside.edu/capstone-studio">Capstone Studio</a></li>
</ul>
</aside>
<footer class="site-footer">
<p>Lakeside University · School of Computing and Data Sciences · {facts['program']['mailing_address']}</p>
<p>Questions about registration: {facts['program']['student_services']['registrar_email']} ·
Graduate Student Services: {facts['program']['student_services']['phone']}</p>
<p>© 2026 Lakeside University. Accessibility · Privacy · Non-discrimination statement</p>
</footer>
</body>
</html>
"""


def calendar_term(date: str, starts: list[tuple[str, str]]) -> str:
    """The quarter an event falls in: the last quarter whose instruction began on or before the date
    (events before Autumn instruction begins belong to Autumn)."""
    term = starts[0][1]
    for start, name in starts:
        if date >= start:
            term = name
    return term


def build_calendar(facts: dict) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["academic_year", "term", "date", "end_date", "event"])
    for year in ("2025-26", "2026-27"):
        block = facts["calendar"][year]
        events = block["events"]
        first, second = year.split("-")
        y1, y2 = int(first), int(first[:2] + second)
        names = [f"Autumn {y1}", f"Winter {y2}", f"Spring {y2}", f"Summer {y2}"]
        starts = []
        for quarter, name in zip(["Autumn", "Winter", "Spring", "Summer"], names, strict=False):
            begin = next(ev["date"] for ev in events if ev["event"] == f"{quarter} quarter instruction begins")
            starts.append((begin, name))
        for ev in events:
            writer.writerow([year, calendar_term(ev["date"], starts), ev["date"], ev.get("end_date", ""),
                             ev["event"]])
    return out.getvalue()


def main() -> None:
    facts = load_facts()
    target = DOCS / "tables"
    target.mkdir(parents=True, exist_ok=True)
    (target / "class_schedule.html").write_text(build_schedule(facts), encoding="utf-8")
    (target / "academic_calendar.csv").write_text(build_calendar(facts), encoding="utf-8")
    n_sections = sum(len(schedule_rows(facts, t)) for t in TERMS)
    n_events = {y: len(facts["calendar"][y]["events"]) for y in ("2025-26", "2026-27")}
    print(f"class_schedule.html: {n_sections} sections; academic_calendar.csv: {n_events}")


if __name__ == "__main__":
    main()
