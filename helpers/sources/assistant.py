"""One question, several sources (the TUM chatbot's way): plan → scope → gather the sections the plan names → answer.

It asks back when the plan is ask_followup alone, answers a list question with a schedule condition from the payload
(no LLM call), and otherwise gives the LLM the student's chunks, the course index's top-k and the profile.
What it leaves out: several rounds (the student's reply to the follow-up starts a new question).
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from helpers.config import RetrievalSettings
from helpers.generation.prompts import INSTRUCTIONS, SHORT_REFUSAL, USER_TEMPLATE
from helpers.metrics.answers import f1_score
from helpers.sources.aggregate import count_rows, distinct_values
from helpers.sources.context import compile_context
from helpers.sources.planner import Plan, Planner
from helpers.sources.scope import Scope, derive_scope, list_field, query_hint
from helpers.sources.students import Profile, ProfileStore, StudentDocs
from helpers.store import KitStore

FOLLOWUP = "Could you say a little more? Which fee, date, course or rule do you mean?"
HOW_MANY = re.compile(r"\bhow many\b", re.I)
SYSTEM_PROMPT = (
    "You answer a student's questions about their university program. The context has labelled sections: "
    "STUDENT PROFILE and STUDENT DOCUMENTS describe the student who asks ('I', 'my'); PROGRAM INFORMATION "
    "holds numbered passages from the program's documents. Use only the context. "
    f"If it does not contain the answer, reply: {SHORT_REFUSAL}"
)


@dataclass(frozen=True)
class SourcedAnswer:
    """What the assistant did for one question, and its answer."""

    question: str
    student_id: str
    plan: Plan
    scope: Scope
    text: str
    context: str
    asked_back: bool = False
    from_payload: bool = False
    seconds: float = 0.0


DEFAULT_K = RetrievalSettings().top_k  # program chunks per question: the configured top_k's default


class SourcesAssistant:
    """Answers a student's question from the sources its plan names."""

    def __init__(self, pipeline: Any, students: StudentDocs, schedule: KitStore,
                 profiles: Mapping[str, Profile] | ProfileStore, llm: Any, rows: Sequence[Mapping[str, object]],
                 k: int = DEFAULT_K, budget_chars: int = 2400, use_scope: bool = True) -> None:  # fmt: skip
        self.pipeline, self.students, self.schedule = pipeline, students, schedule
        self.profiles, self.llm = profiles, llm
        self.rows, self.k, self.budget_chars, self.use_scope = rows, k, budget_chars, use_scope

    def messages(self, question: str, context: str) -> list[dict[str, str]]:
        """The chat messages: the sources' rules, then the labelled context and the question (short mode)."""
        user = USER_TEMPLATE.format(context=context, question=question, instruction=INSTRUCTIONS["short"])
        return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]

    def from_payload(self, question: str, scope: Scope) -> str | None:
        """A list question's answer from the schedule payload, or None when it is not one the schedule holds."""
        name = list_field(question)
        if name is None or not scope.where:
            return None
        if HOW_MANY.search(question):
            return str(count_rows(self.schedule, scope.where))
        return ", ".join(distinct_values(self.schedule, name, scope.where))

    def answer(self, question: str, student_id: str, planner: Planner) -> SourcedAnswer:
        """Plan, scope, gather and answer one question for one student."""
        start = time.perf_counter()
        profile = self.profiles.get(student_id)
        plan = planner.plan(question)
        scope = derive_scope(question, profile, self.rows) if self.use_scope else Scope()
        if "ask_followup" in plan:
            return SourcedAnswer(question, student_id, plan, scope, FOLLOWUP, "", asked_back=True,
                                 seconds=time.perf_counter() - start)  # fmt: skip
        if "list_values" in plan and (listed := self.from_payload(question, scope)) is not None:
            return SourcedAnswer(question, student_id, plan, scope, listed, f"payload filter {scope.where}",
                                 from_payload=True, seconds=time.perf_counter() - start)  # fmt: skip
        mine = self.students.search(question, student_id, k=3) if "search_student_docs" in plan else []
        wants_program = bool(plan & {"search_kb", "list_values"})
        program = self.pipeline.retrieve(query_hint(question, scope), self.k) if wants_program else []
        context = compile_context(plan, profile, mine, program, self.budget_chars)
        text = self.llm.chat(self.messages(question, context), 60).text.strip() if context else SHORT_REFUSAL
        return SourcedAnswer(question, student_id, plan, scope, text, context, seconds=time.perf_counter() - start)


def score_answers(answers: Sequence[SourcedAnswer], records: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """F1 on the answerable questions, and the share of vague ones (label ask_followup) that were asked back."""
    answerable = [(a, r) for a, r in zip(answers, records, strict=True) if r["answer"]]
    vague = [a for a, r in zip(answers, records, strict=True) if not r["answer"]]
    return {
        "answer F1": sum(f1_score(a.text, [r["answer"]]) for a, r in answerable) / max(len(answerable), 1),
        "vague asked back": sum(a.asked_back for a in vague) / max(len(vague), 1),
        "answerable asked back": sum(a.asked_back for a, _ in answerable) / max(len(answerable), 1),
        "questions": float(len(answers)),
    }
