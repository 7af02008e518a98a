"""The gold-question mode: a question whose answer is known, asked in the app: the reference, whether the evidence
reached the reader (or where it stopped), and the answer's SQuAD EM and F1 (or the expected refusal).
What it leaves out: averages over many questions (notebook 08 and `helpers.byod.evaluate_questions` do that).
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from helpers.app.engine import Turn
from helpers.config import Settings
from helpers.corpus import DOCS_DIR, Evidence, Question, load_gold
from helpers.generation.scores import score_answer
from helpers.mechanisms import MEASURES, kits_own
from helpers.metrics import chunk_supports, holding_answer
from helpers.types import Hit

ASKED = ("answered", "refused")  # the statuses whose passages the model read


def reader_passages(turn: Turn) -> list[Hit]:
    """The passages the model read: those in the prompt, none when it was not asked."""
    return list(turn.answer.hits) if turn.answer is not None and turn.status in ASKED else []


def supporting(hits: Sequence[Hit], quote: Evidence) -> list[int]:
    """The 1-based positions of the hits that support one evidence quote."""
    return [n for n, hit in enumerate(hits, start=1) if chunk_supports(hit.text, hit.source, quote)]


def evidence_reached(question: Question, passages: Sequence[Hit]) -> bool:
    """Whether a reference answer is in the passages given to the reader."""
    return bool(holding_answer(passages, question))


@dataclass
class GoldReport:
    """One gold question asked in the app, and how it went."""

    question: Question
    turn: Turn
    answer_in: list[int] = field(default_factory=list)  # [n] of the reader's passages holding a reference answer
    answer_in_hits: list[int] = field(default_factory=list)  # ranks of the retrieved hits holding it
    quotes_in: list[list[int]] = field(default_factory=list)  # per evidence quote, the [n] that support it
    em: float = math.nan  # NaN: the question has no reference answer (a refusal is right)
    f1: float = math.nan

    @property
    def reached(self) -> bool:
        """Whether the evidence (a reference answer) reached the passages given to the reader."""
        return bool(self.answer_in)

    @property
    def refused(self) -> bool:
        """Whether the app gave no answer (refused, nothing retrieved, guarded)."""
        return self.turn.status != "answered"

    def _repr_html_(self) -> str:
        return gold_html(self)


def gold_report(question: Question, turn: Turn) -> GoldReport:
    """Score one turn of the app against its gold question."""
    passages = reader_passages(turn)
    quotes = [supporting(passages, quote) for quote in question.evidence]
    report = GoldReport(question, turn, holding_answer(passages, question), holding_answer(turn.hits, question), quotes)
    if question.answer:
        with kits_own(slots=MEASURES):  # both sides of mine-against-the-kit's are scored by the kit's metrics
            scores = score_answer(question, turn.answer) if turn.answer is not None else {"em": 0.0, "f1": 0.0}
        report.em, report.f1 = float(scores["em"]), float(scores["f1"])
    return report


def numbers(found: Sequence[int]) -> str:
    """Passage numbers as "[1], [3]", or "none"."""
    return ", ".join(f"[{n}]" for n in found) or "none"


def evidence_sentence(report: GoldReport) -> str:
    """Whether the evidence reached the reader, in words."""
    if not report.question.answer:
        return "No reference answer: the right outcome is a refusal."
    if report.reached:
        return f"Yes: the reference answer is in passage {numbers(report.answer_in)} given to the reader."
    if report.answer_in_hits:
        why = "the token budget cut it" if reader_passages(report.turn) else "the model was not asked"
        ranks = ", ".join(f"#{n}" for n in report.answer_in_hits)
        return f"No: retrieved at rank {ranks}, but {why}."
    return "No: no retrieved passage holds the reference answer (a retrieval miss)."


def gold_scores_html(report: GoldReport) -> str:
    """Evidence reached or not, then EM and F1 or the expected refusal (`kit-gold-evidence`, `kit-gold-scores`)."""
    if report.question.answer:
        scores = f"EM {report.em:.0f} · F1 {report.f1:.2f}"
    else:
        scores = "refused ✓" if report.refused else "answered ✗ (a refusal was expected)"
    return (
        f"<span class='kit-gold-evidence'><b>Evidence reached the reader?</b> {evidence_sentence(report)}</span><br>"
        f"<span class='kit-gold-scores'><b>Answer against the reference:</b> {scores}</span>"
    )


def gold_html(report: GoldReport) -> str:
    """The gold mode's panel: the question, its reference, evidence reached or not, quotes, EM and F1."""
    q = report.question
    reference = html.escape(" | ".join(q.answers) or "(none: the question should be refused)")
    quotes = "".join(
        f"<li>“{html.escape(e.quote[:160])}” ({html.escape(e.doc)}): in {numbers(found)}</li>"
        for e, found in zip(q.evidence, report.quotes_in, strict=True)
    )
    quotes = f"Evidence quotes, and the passages given to the reader that hold them:<ul>{quotes}</ul>" if quotes else ""
    return (
        f"<div class='kit-gold-report'><b>Gold question {html.escape(q.id)}</b> ({html.escape(q.category)}): "
        f"{html.escape(q.question)}<br><span class='kit-gold-reference'><b>Reference:</b> {reference}</span><br>"
        f"{gold_scores_html(report)}<div class='kit-gold-quotes'>{quotes}</div></div>"
    )


def question_label(question: Question) -> str:
    """How a question is listed in the gold dropdown: "hb-023 · How much is the one-time matriculation fee?"."""
    text = question.question if len(question.question) <= 90 else question.question[:89] + "…"
    return f"{question.id} · {text}"


def default_questions(settings: Settings) -> list[Question]:
    """The gold `dev` split when the app runs on the course documents; no questions for any other folder."""
    same = Path(settings.paths.corpus_dir).resolve() == DOCS_DIR.resolve()
    return load_gold("dev") if same else []
