"""Metadata filters derived from the question and the student's profile (the TUM chatbot scopes every search this way).

The term, days, modality, instructor, course, track and degree level a question states or implies through the profile
("my track"); `where` keeps those the class schedule can filter on, `query_hint` adds the profile's to the search text.
What it leaves out: ranges ("after 5 pm"), negation ("not online"), relative dates beyond "next <season>".
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from helpers.chunking.facets import SEASONS, TERM, TRACKS
from helpers.sources.students import Profile

BARE_SEASON = re.compile(r"\b(?:next|this|in|during|the)\s+(autumn|fall|winter|spring|summer)\b", re.I)
MY_TERM = re.compile(r"\b(my (first|entry|starting|start) (term|quarter)|my entry term|when i start|i start)\b", re.I)
DAYS = {"mon": "Mon", "tue": "Tue", "wed": "Wed", "thu": "Thu", "fri": "Fri"}
DAY = re.compile(r"\b(mon|tues?|wednes|thurs?|fri)(days?)?\b", re.I)
MODALITY = re.compile(r"\b(online|hybrid|in[- ]person)\b", re.I)
COURSE = re.compile(r"\bADS\s?(\d{3}[A-Z]?)\b", re.I)
MY_TRACK = re.compile(r"\b(my track|track am i|my concentration)\b", re.I)
MY_DEGREE = re.compile(r"\b(my degree|my program|degree level)\b", re.I)
LIST_FIELDS = (
    ("instructor", re.compile(r"\b(instructors?|who teach(es)?|faculty|professors?|teachers?)\b", re.I)),
    ("room", re.compile(r"\brooms?\b", re.I)),
    ("section", re.compile(r"\bsections?\b", re.I)),
    ("course", re.compile(r"\b(courses?|classes|class|electives?|ads \d{3})\b", re.I)),
)
SCHEDULE_KEYS = ("term", "days", "modality", "instructor", "course")


@dataclass(frozen=True)
class Scope:
    """The conditions one question states or implies, and where each came from."""

    conditions: dict[str, str] = field(default_factory=dict)
    from_profile: tuple[str, ...] = ()

    @property
    def where(self) -> dict[str, str]:
        """The conditions the class-schedule payload can filter on."""
        return {k: v for k, v in self.conditions.items() if k in SCHEDULE_KEYS}


def _term(question: str, profile: Profile | None, terms: Sequence[str]) -> tuple[str | None, bool]:
    """The term the question names (or implies through the profile), and whether it came from the profile."""
    if match := TERM.search(question):
        return f"{SEASONS[match.group(1).lower()]} {match.group(2)}", False
    if match := BARE_SEASON.search(question):
        season = SEASONS[match.group(1).lower()]
        named = [t for t in terms if t.startswith(season)]
        if len(named) == 1:
            return named[0], False
    if profile is not None and MY_TERM.search(question):
        return profile.term, True
    return None, False


def _instructor(question: str, instructors: Sequence[str]) -> str | None:
    """The schedule instructor whose surname (last word of the name) the question names."""
    for name in instructors:
        surname = name.split()[-1]
        if re.search(rf"\b{re.escape(surname)}\b", question, re.I):
            return name
    return None


def derive_scope(question: str, profile: Profile | None, rows: Sequence[Mapping[str, object]] = ()) -> Scope:
    """Every condition the question states, plus what "my track / my first term / my degree" means for this student."""
    conditions: dict[str, str] = {}
    from_profile: list[str] = []
    terms = sorted({str(r["term"]) for r in rows})
    term, implied = _term(question, profile, terms)
    if term:
        conditions["term"] = term
        from_profile += ["term"] if implied else []
    if match := DAY.search(question):
        conditions["days"] = DAYS[match.group(1).lower()[:3]]
    if match := MODALITY.search(question):
        conditions["modality"] = match.group(1).lower().replace("-", " ")
    if name := _instructor(question, sorted({str(r["instructor"]) for r in rows})):
        conditions["instructor"] = name
    if match := COURSE.search(question):
        conditions["course"] = f"ADS {match.group(1).upper()}"
    named = [track for track, pattern in TRACKS.items() if pattern.search(question)]
    if len(named) == 1:
        conditions["track"] = named[0]
    elif profile is not None and MY_TRACK.search(question):
        conditions["track"] = profile.track
        from_profile.append("track")
    if profile is not None and MY_DEGREE.search(question):
        conditions["degree_level"] = profile.degree_level
        from_profile.append("degree_level")
    return Scope(conditions, tuple(from_profile))


def list_field(question: str) -> str | None:
    """The schedule field a list question asks for, or None when it is not about the schedule."""
    for name, pattern in LIST_FIELDS:
        if pattern.search(question):
            return name
    return None


def query_hint(question: str, scope: Scope) -> str:
    """The search text with the profile-derived values added (few chunks of the course index carry such payload)."""
    extra = [scope.conditions[k] for k in scope.from_profile if k in scope.conditions]
    return f"{question} ({', '.join(extra)})" if extra else question


def scope_matches(records: Sequence[Mapping], profiles: Mapping[str, Profile], rows: Sequence[Mapping[str, object]]
                  ) -> list[dict[str, object]]:  # fmt: skip
    """Per labelled list question with a schedule spec: the derived field and filter against the label."""
    out = []
    for record in records:
        spec = record.get("list")
        if not spec:
            continue
        scope = derive_scope(record["question"], profiles.get(record["student_id"]), rows)
        name = list_field(record["question"])
        out.append({"id": record["id"], "split": record["split"], "question": record["question"],
                    "label": f"{spec['field']} where {spec['where']}", "derived": f"{name} where {scope.where}",
                    "correct": name == spec["field"] and scope.where == spec["where"]})  # fmt: skip
    return out
