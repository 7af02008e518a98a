"""The context in labelled sections (the TUM chatbot's): STUDENT PROFILE, STUDENT DOCUMENTS, PROGRAM INFORMATION.

Only the sections the plan asks for are included (a question about fees never sees a transcript), and every
chunk gets an equal share of the character budget, so one long chunk cannot crowd out the others.
What it leaves out: token counting (a character budget) and the prompt around the context (`helpers.generation`).
"""

from __future__ import annotations

from collections.abc import Sequence

from helpers.sources.planner import Plan
from helpers.sources.students import Profile
from helpers.types import Hit


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: max(limit - 1, 0)].rsplit(" ", 1)[0] + "…"


def compile_context(plan: Plan, profile: Profile | None, student_hits: Sequence[Hit], program_hits: Sequence[Hit],
                    budget_chars: int = 3000) -> str:  # fmt: skip
    """The labelled context string; sections the plan does not ask for are left out."""
    mine = list(student_hits) if "search_student_docs" in plan else []
    program = list(program_hits) if plan & {"search_kb", "list_values"} else []
    sections = []
    if profile is not None and "use_profile" in plan:
        sections.append("STUDENT PROFILE\n" + profile.as_text())
    used = sum(len(s) for s in sections)
    share = (budget_chars - used) // max(len(mine) + len(program), 1)
    if mine:
        lines = [f"- ({h.metadata.get('title') or h.source}) {_cut(h.text, share)}" for h in mine]
        sections.append("STUDENT DOCUMENTS\n" + "\n".join(lines))
    if program:
        lines = [f"[{i}] ({h.source}) {_cut(h.text, share)}" for i, h in enumerate(program, start=1)]
        sections.append("PROGRAM INFORMATION\n" + "\n".join(lines))
    return "\n\n".join(sections)
