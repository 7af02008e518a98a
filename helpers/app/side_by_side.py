"""A/B: one question under two sets of knobs, side by side: both answers, the knobs that differ, and every passage
either side retrieved with its rank in A and in B (matched by chunk, or by document when A and B chunk apart).
What it leaves out: more than two settings at once (notebook 08's ablation does that over many questions).
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pandas as pd

from helpers.app.engine import AppEngine, Turn
from helpers.app.gold_mode import GoldReport, gold_scores_html
from helpers.app.knobs import FUNCTIONS, Knobs
from helpers.app.views import MISSING, answer_html, message_html, where
from helpers.mechanisms import in_use
from helpers.types import Hit

ONLY_A, ONLY_B, BOTH = "only in A", "only in B", "in both"


def first_ranks(hits: Sequence[Hit], by: str) -> dict[str, tuple[int, Hit]]:
    """Key → (best rank, its hit); the key is the chunk id (`by` "chunk") or the document."""
    ranks: dict[str, tuple[int, Hit]] = {}
    for rank, hit in enumerate(hits, start=1):
        ranks.setdefault(hit.node_id if by == "chunk" else hit.source, (rank, hit))
    return ranks


def passage_text(hit: Hit, words: int = 12) -> str:
    """Where a passage is and how it starts: "p. 4 · Fees: The application fee is …"."""
    place, start = where(hit), " ".join(hit.text.split()[:words])
    return (f"{place}: " if place != MISSING else "") + start + (" …" if len(hit.text.split()) > words else "")


def source_diff(a: Sequence[Hit], b: Sequence[Hit], by: str = "chunk") -> pd.DataFrame:
    """One row per passage (or document) either side retrieved: its rank in A and in B, and where it is."""
    in_a, in_b = first_ranks(a, by), first_ranks(b, by)
    rows = []
    for key in [*in_a, *(key for key in in_b if key not in in_a)]:  # A's order, then what only B found
        rank_a, rank_b = in_a.get(key, (None, None))[0], in_b.get(key, (None, None))[0]
        hit = (in_a.get(key) or in_b[key])[1]
        rows.append({
            "source": hit.source,
            "passage": passage_text(hit) if by == "chunk" else "(the document)",
            "rank in A": rank_a or MISSING,
            "rank in B": rank_b or MISSING,
            "in": BOTH if rank_a and rank_b else ONLY_A if rank_a else ONLY_B,
        })  # fmt: skip
    return pd.DataFrame(rows, columns=["source", "passage", "rank in A", "rank in B", "in"])


def knob_text(value: object) -> str:
    """A knob's value for the changes line (a template only as "edited"; "yours" with the slots yours run)."""
    text = str(value)
    if text == FUNCTIONS[0]:
        return f"yours ({', '.join(in_use()) or 'none yet'})"
    return "a template" if "{" in text else text


@dataclass
class SideBySide:
    """One question answered under knobs A and under knobs B."""

    question: str
    knobs_a: Knobs
    knobs_b: Knobs
    a: Turn
    b: Turn
    gold: tuple[GoldReport, GoldReport] | None = None  # both sides scored, when the question is a gold one

    @property
    def by(self) -> str:
        """How passages are matched: by chunk, or by document when A and B chunk differently."""
        return "chunk" if self.knobs_a.chunking == self.knobs_b.chunking else "document"

    @property
    def diff(self) -> pd.DataFrame:
        """Every passage either side retrieved, its ranks, and whether it is only in A, only in B or in both."""
        return source_diff(self.a.hits, self.b.hits, self.by)

    @property
    def same_answer(self) -> bool:
        """Whether A and B answered with the same text (white space aside)."""
        return " ".join(self.a.text.split()) == " ".join(self.b.text.split())

    def counts(self) -> dict[str, int]:
        """How many passages are only in A, only in B, in both."""
        found = self.diff["in"].value_counts()
        return {where_: int(found.get(where_, 0)) for where_ in (ONLY_A, ONLY_B, BOTH)}

    def _repr_html_(self) -> str:
        return side_by_side_html(self, self.gold)


def compare(engine: AppEngine, question: str, a: Knobs, b: Knobs, on_step: Callable[[str], None] = print) -> SideBySide:
    """Ask `question` under knobs `a`, then `b`, with the same engine."""
    first = engine.ask(question, a, on_step=on_step)
    return SideBySide(question, a, b, first, engine.ask(question, b, on_step=on_step))


def side_html(label: str, turn: Turn, gold: GoldReport | None) -> str:
    """One column: the side's status, its answer or message, and its gold scores."""
    body = (message_html(turn.status, turn.message) if turn.message else "") + (
        answer_html(turn.answer) if turn.answer is not None else ""
    )
    scores = f"<div>{gold_scores_html(gold)}</div>" if gold is not None else ""
    return (
        f"<div class='kit-ab-answer-{label.lower()}' style='flex: 1; padding: 0 1em'>"
        f"<b>{label}</b> <i>({html.escape(turn.status)}, {turn.seconds:.1f} s)</i>{body}{scores}</div>"
    )


def side_by_side_html(pair: SideBySide, gold: tuple[GoldReport, GoldReport] | None = None) -> str:
    """Both answers side by side, whether they are equal, and the passages each side retrieved, diffed."""
    changed = pair.knobs_a.changes(pair.knobs_b).items()
    changes = "; ".join(f"{name} {knob_text(x)} → {knob_text(y)}" for name, (x, y) in changed)
    same = "The two answers are the same text." if pair.same_answer else "The two answers differ."
    counts = pair.counts()
    summary = f"{counts[BOTH]} in both, {counts[ONLY_A]} only in A, {counts[ONLY_B]} only in B (matched by {pair.by})"
    table = pair.diff.to_html(classes="kit-ab-sources", border=0, index=False)
    gold_a, gold_b = gold or (None, None)
    return (
        f"<div class='kit-ab-changes'><b>B differs from A in:</b> {html.escape(changes or 'nothing')}</div>"
        f"<div style='display: flex'>{side_html('A', pair.a, gold_a)}{side_html('B', pair.b, gold_b)}</div>"
        f"<p class='kit-ab-same'><b>{same}</b></p>"
        f"<p class='kit-ab-summary'><b>Passages:</b> {summary}</p>{table}"
    )
