"""Which academic year and term a document covers, and which one a question asks about (time-aware retrieval).

Each chunk carries its document's `academic_year` ("2023-24"), first rule that matches: a value it already carries,
its path (`2023-24`, `Winter-2024`, `2024-wi`, `202309`), its text when it names one year only, else none (a year
filter never hides it); and `academic_term` when its path names one. Fall 2023 belongs to 2023-24, as do Winter,
Spring and Summer 2024. `asked_period(question)` reads a question as `explicit` (with `terms`), `relative` ("this
fall") or `none`; `version_family(source)` is a path with its period taken out (the versions of one document).
What it leaves out: dates inside a term, "next fall" (read as `relative`) and the reader as a judge of the year.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from llama_index.core.schema import TextNode

PERIOD_KEY = "academic_year"
TERM_KEY = "academic_term"
SEASON = r"(autumn|fall|winter|spring|summer)"
SPRING_SIDE = {"winter", "spring", "summer"}  # these terms belong to the academic year that ends in their year
TERM_CODES = {"wi": "winter", "sp": "spring", "su": "summer", "fa": "fall"}
ACADEMIC_YEAR = re.compile(r"(?<!\d)(20\d\d)\s*[-–/_]\s*(?:20)?(\d\d)(?!\d)")  # 2023-24, 2023-2024, 2023/24
TERM_IN_PATH = re.compile(rf"{SEASON}[-_ ]?(20\d\d)(?!\d)", re.I)  # Winter-2024, fall_2023
SESSION_IN_PATH = re.compile(rf"{SEASON}[-_ ]session[-_ ](?:i+|\d)[-_ ](20\d\d)(?!\d)", re.I)  # Summer-Session-I-2023
CODE_IN_PATH = re.compile(r"(?<!\d)(20\d\d)[-_](wi|sp|su|fa)\b", re.I)  # 2024-wi
MONTH_IN_PATH = re.compile(r"(?<!\d)(20\d\d)(0[1-9]|1[0-2])(?!\d)")  # 202309
TERM_IN_TEXT = re.compile(rf"\b{SEASON}\b(?:\s+(?:quarter|term|semester|session))?\s+(?:of\s+)?(20\d\d)\b", re.I)
SEASON_WORD = re.compile(rf"\b{SEASON}\b", re.I)
YEAR = re.compile(r"(?<![\d-])(20\d\d)(?![\d-])")
RELATIVE = re.compile(r"\b(this|current|upcoming)\s+(autumn|fall|winter|spring|summer|year|term|quarter|semester"
                      r"|session)\b", re.I)  # fmt: skip


def academic_year(start: int) -> str:
    """The academic year that starts in the fall of `start`: 2023 -> "2023-24"."""
    return f"{start}-{(start + 1) % 100:02d}"


def term_year(season: str, year: int) -> str:
    """The academic year that holds a term: ("fall", 2023) and ("winter", 2024) -> "2023-24"."""
    return academic_year(year - 1 if season.lower() in SPRING_SIDE else year)


def _span(match: re.Match[str]) -> str | None:
    """A written academic year ("2023-24", "2023-2024") if its two years follow each other, else None."""
    start, end = int(match[1]), int(match[2])
    return academic_year(start) if (start + 1) % 100 == end else None


def _first_span(text: str) -> str | None:
    """The first well-formed academic year written in `text`."""
    return next((year for match in ACADEMIC_YEAR.finditer(text) if (year := _span(match))), None)


def year_of_path(path: str) -> str | None:
    """The academic year a file's path names, or None."""
    if year := _first_span(path):
        return year
    if match := TERM_IN_PATH.search(path):
        return term_year(match[1], int(match[2]))
    if match := CODE_IN_PATH.search(path):
        return term_year(TERM_CODES[match[2].lower()], int(match[1]))
    if match := MONTH_IN_PATH.search(path):
        year, month = int(match[1]), int(match[2])
        return academic_year(year if month >= 8 else year - 1)  # August on is the fall
    return None


def named_years(text: str) -> set[str]:
    """Every academic year a text names: written ("2023-24") or through a term ("Winter 2024")."""
    spans = {year for match in ACADEMIC_YEAR.finditer(text) if (year := _span(match))}
    return spans | {term_year(season, int(year)) for season, year in TERM_IN_TEXT.findall(text)}


def year_of_text(text: str) -> str | None:
    """The academic year a text names, when it names one only (a calendar that runs from Spring 2026 to Winter 2027
    is not one year's version)."""
    named = named_years(text)
    return named.pop() if len(named) == 1 else None


def term_name(season: str, year: int) -> str:
    """A term as the payload writes it: ("autumn", 2023) -> "Fall 2023"."""
    season = "fall" if season.lower() == "autumn" else season.lower()
    return f"{season.capitalize()} {year}"


def term_of_path(path: str) -> str | None:
    """The term a file's path names ("Winter-2024", "2024-wi", "202309": Fall 2023), or None."""
    if match := TERM_IN_PATH.search(path) or SESSION_IN_PATH.search(path):
        return term_name(match[1], int(match[2]))
    if match := CODE_IN_PATH.search(path):
        return term_name(TERM_CODES[match[2].lower()], int(match[1]))
    if match := MONTH_IN_PATH.search(path):
        month = int(match[2])
        return term_name("fall" if month >= 8 else "spring" if month <= 5 else "summer", int(match[1]))
    return None


def season_of(season: str, year: str) -> str:
    """The term of a season in an academic year: ("winter", "2023-24") -> "Winter 2024"."""
    start = int(year[:4])
    return term_name(season, start + 1 if season.lower() in SPRING_SIDE else start)


def named_terms(text: str) -> set[str]:
    """Every term a text names with its year ("Winter 2024", "fall of 2022")."""
    return {term_name(season, int(year)) for season, year in TERM_IN_TEXT.findall(text)}


def version_family(source: str) -> str:
    """The source with its period replaced by "*": every version of one document has the same family."""
    for pattern in (ACADEMIC_YEAR, TERM_IN_PATH, CODE_IN_PATH, MONTH_IN_PATH):
        source = pattern.sub("*", source)
    return source


def add_periods(nodes: list[TextNode]) -> None:
    """Give each chunk its document's academic year (rules 1-3 above) and term (from its path); `base.NOT_EMBEDDED`
    keeps both out of the embedder's and the LLM's sight, so ids and vectors stay as they were."""
    by_document: dict[str, list[TextNode]] = {}
    for node in nodes:
        by_document.setdefault(str(node.metadata.get("source", node.ref_doc_id)), []).append(node)
    for source, chunks in by_document.items():
        carried = chunks[0].metadata.get(PERIOD_KEY)
        year = carried or year_of_path(source) or year_of_text("\n".join(c.get_content() for c in chunks))
        for chunk in chunks if year else ():
            chunk.metadata[PERIOD_KEY] = year
        term = chunks[0].metadata.get(TERM_KEY) or term_of_path(source)
        for chunk in chunks if term else ():
            chunk.metadata[TERM_KEY] = term


@dataclass(frozen=True)
class AskedPeriod:
    """The period a question asks about: `kind` is "explicit", "relative" or "none"; `years` the academic years
    an explicit question allows (two for a bare year: "in 2024" may be 2023-24 or 2024-25); `terms` the terms it
    names with a year ("Winter 2024"), empty when it names a year only."""

    kind: str
    years: tuple[str, ...] = ()
    terms: tuple[str, ...] = ()


def asked_period(question: str) -> AskedPeriod:
    """The academic year(s) a question names, or that it means the current one ("this fall") or names none."""
    if named := named_years(question):  # every year it names ("in Autumn 2026 than in Autumn 2025": both)
        terms = named_terms(question)
        if not terms and len(named) == 1 and (season := SEASON_WORD.search(question)):  # "the 2023-24 winter"
            terms = {season_of(season[1], next(iter(named)))}
        return AskedPeriod("explicit", tuple(sorted(named)), tuple(sorted(terms)))
    years = set(YEAR.findall(question))  # several ("from 2023 to 2033") name a span, not a version
    if len(years) == 1:  # a year and a season apart ("Summer Session II begin in 2023"), or a bare year
        year, season = int(years.pop()), SEASON_WORD.search(question)
        if season:
            return AskedPeriod("explicit", (term_year(season[1], year),), (term_name(season[1], year),))
        return AskedPeriod("explicit", (academic_year(year - 1), academic_year(year)))
    return AskedPeriod("relative" if RELATIVE.search(question) else "none")
