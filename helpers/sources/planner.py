"""Which sources a question needs (the TUM chatbot's planner): keyword rules, or the LLM with a validated schema.

A plan is a set of `ACTIONS`. The LLM picks one of eight routes, each a fixed set of actions (why routes:
docs/decisions.md); a reply that does not validate falls back to the keyword plan (`fallbacks`).
What it leaves out: plans with an order or with arguments (which filters to use is decided by the caller).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ValidationError

from helpers.config import Settings, get_settings
from helpers.llm.cache import DiskCache, llm_cache, prompt_key

ACTIONS = ("search_kb", "search_student_docs", "use_profile", "list_values", "ask_followup")
Plan = frozenset[str]


class Planner(Protocol):
    """One interface for every planner."""

    name: str

    def plan(self, question: str) -> Plan: ...


ME = re.compile(r"\b(i|i'm|i've|me|my|mine|am i)\b", re.IGNORECASE)
MY_DOCS = re.compile(
    r"\b(transcript|cv|resume|résumé|statement|gpa|grades?|experience|background|skills?|worked|studied|"
    r"prior|undergrad\w*|bachelor|beng|bsc|courses? i took|have i taken|my degree)\b",
    re.IGNORECASE,
)
MY_PROFILE = re.compile(
    r"\b(my track|track am i|international|visa|i-20|opt|domestic|entry term|start|full[- ]time|eligible|"
    r"am i (in|on|an?)|which track|my program)\b",
    re.IGNORECASE,
)
LISTING = re.compile(
    r"\b(list|all (the )?(courses|tracks|sections|instructors|electives)|which (courses|sections|instructors|electives)"
    r"|what (courses|sections|electives) (are|meet|run)|how many (courses|sections))\b",
    re.IGNORECASE,
)
VAGUE = re.compile(r"^\s*(and|what about|how about|so|ok|then)?\s*(it|that|this|those|them|the deadline|the fee)"
                   r"\s*\??\s*$|^\s*(how much|when|where|is it|can i|what about)( is| does)?( it| that| this)?"
                   r"\s*\??\s*$",
                   re.IGNORECASE)  # fmt: skip


class KeywordPlanner:
    """Regular expressions: vague → ask back; listing → list_values; about me → profile and/or my documents."""

    name = "keyword"

    def plan(self, question: str) -> Plan:
        """The set of actions for one question."""
        if VAGUE.search(question) or len(question.split()) < 3:
            return frozenset({"ask_followup"})
        actions = {"list_values"} if LISTING.search(question) else {"search_kb"}
        if ME.search(question):
            if MY_DOCS.search(question):
                actions.add("search_student_docs")
            if MY_PROFILE.search(question) or not MY_DOCS.search(question):
                actions.add("use_profile")
        return frozenset(actions)


ROUTES: dict[str, tuple[str, ...]] = {
    "program": ("search_kb",),
    "list": ("list_values",),
    "my_documents": ("search_student_docs",),
    "my_profile": ("use_profile",),
    "program+my_profile": ("search_kb", "use_profile"),
    "program+my_documents": ("search_kb", "search_student_docs"),
    "program+my_profile+my_documents": ("search_kb", "search_student_docs", "use_profile"),
    "too_vague": ("ask_followup",),
}
Route = Literal[tuple(ROUTES)]  # the routes' names, in ROUTES's order (the JSON schema's enum)

SYSTEM_PROMPT = """Classify a student's question by the sources needed to answer it.
program = facts about the program (fees, dates, rules, courses, people), nothing about the asker.
list = asks to list or count all items of a kind (all tracks, courses meeting on a day, instructors in a term).
my_documents = only the asker's own transcript, CV or statement of purpose (their grades, projects, experience).
my_profile = only the asker's profile (their track, degree level, international or domestic status, entry term).
program+my_profile = a program rule applied to the asker's track, status or term.
program+my_documents = a program rule checked against the asker's grades, courses or experience.
program+my_profile+my_documents = needs the program rules, the asker's track and their documents.
too_vague = cannot be understood without an earlier message ("How much is it?").
Examples:
Q: What is the tuition deposit? -> program
Q: Which courses meet on Mondays in Spring 2027? -> list
Q: What grade did I get in statistics? -> my_documents
Q: Is my status domestic? -> my_profile
Q: Do I need health insurance as an international student? -> program+my_profile
Q: Does my calculus grade satisfy the math prerequisite? -> program+my_documents
Q: Which elective suits my track and the projects on my CV? -> program+my_profile+my_documents
Q: Where is that? -> too_vague
Reply with JSON: {"route": "..."}"""


class RouteReply(BaseModel):
    """What the LLM planner must reply: one of eight routes, each a fixed set of actions."""

    route: Route


class LLMPlanner:
    """The LLM picks the actions; its JSON is validated, cached, and replaced by the keyword plan if invalid."""

    name = "llm"

    def __init__(self, make_llm: Callable[[], Any], settings: Settings | None = None,
                 cache: DiskCache | None = None) -> None:  # fmt: skip
        self.settings = settings or get_settings()
        self._make, self._llm = make_llm, None
        self.cache = cache or llm_cache(self.settings)
        self.fallbacks = 0
        self.seconds: list[float] = []

    def reply(self, question: str) -> str:
        """The model's raw JSON for one question (from the disk cache when seen before)."""
        messages = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": f"Q: {question}"}]
        schema = RouteReply.model_json_schema()
        key = prompt_key(self.settings.llm.name, {"plan": messages, "schema": schema})
        stored = self.cache.get(key)
        if stored is None:
            if self._llm is None:
                self._llm = self._make()
            completion = self._llm.chat_json(messages, schema, 40)
            stored = {"text": completion.text, "seconds": completion.seconds}
            self.cache.put(key, stored)
        self.seconds.append(float(stored["seconds"]))
        return str(stored["text"])

    def plan(self, question: str) -> Plan:
        """The validated route's set of actions (the keyword plan when the reply does not validate)."""
        try:
            route = RouteReply.model_validate(json.loads(self.reply(question), strict=False)).route
        except (json.JSONDecodeError, ValidationError):
            self.fallbacks += 1
            return KeywordPlanner().plan(question)
        return frozenset(ROUTES[route])


def routing_accuracy(planner: Planner, questions: Sequence[Mapping[str, Any]]) -> tuple[float, list[dict[str, Any]]]:
    """Share of questions whose plan equals the labelled set of actions, and one row per question."""
    rows = []
    for record in questions:
        got, want = planner.plan(record["question"]), frozenset(record["actions"])
        rows.append({"id": record["id"], "question": record["question"], "expected": " + ".join(sorted(want)),
                     "planned": " + ".join(sorted(got)), "correct": got == want})  # fmt: skip
    return (sum(r["correct"] for r in rows) / len(rows) if rows else 0.0), rows


class SingleSourcePlanner:
    """The baseline without a planner: every question searches the program's documents only."""

    name = "program documents only"

    def plan(self, question: str) -> Plan:
        """Always search_kb."""
        return frozenset({"search_kb"})


class LabelledPlanner:
    """The labelled actions of each question (the upper bound a perfect planner would reach)."""

    name = "labels (perfect planner)"

    def __init__(self, records: Sequence[dict[str, Any]]) -> None:
        self.labels = {r["question"]: frozenset(r["actions"]) for r in records}

    def plan(self, question: str) -> Plan:
        """The label of a known question; search_kb for anything else."""
        return self.labels.get(question, frozenset({"search_kb"}))
