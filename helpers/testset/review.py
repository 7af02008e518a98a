"""A small review widget: one generated pair at a time, accept / edit / reject, save the accepted ones as JSONL.
The same methods (`accept`, `reject`, `save`) work without a screen, which is how the CI run and the tests drive it.
What it leaves out: several reviewers and their agreement (agreement.py compares with a second LLM pass).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from helpers.testset.export import save_jsonl
from helpers.testset.generate import Generated


class Review:
    """Decisions about a list of pairs: None (not seen yet), "accepted" or "rejected"; edits kept."""

    def __init__(self, pairs: Sequence[Generated]) -> None:
        self.pairs = list(pairs)
        self.decisions: list[str | None] = [None] * len(self.pairs)
        self.position = 0

    def accept(self, index: int, question: str | None = None, answer: str | None = None) -> None:
        """Accept a pair, optionally with an edited question and/or answer."""
        pair = self.pairs[index]
        self.pairs[index] = replace(pair, question=question or pair.question, answer=answer or pair.answer)
        self.decisions[index] = "accepted"

    def reject(self, index: int) -> None:
        """Reject a pair."""
        self.decisions[index] = "rejected"

    @property
    def accepted(self) -> list[Generated]:
        """The accepted pairs, edits included."""
        return [p for p, d in zip(self.pairs, self.decisions, strict=True) if d == "accepted"]

    def counts(self) -> dict[str, int]:
        """How many pairs are accepted, rejected and still open."""
        return {name: sum(d == key for d in self.decisions)
                for name, key in (("accepted", "accepted"), ("rejected", "rejected"), ("open", None))}  # fmt: skip

    def save(self, path: str | Path) -> Path:
        """Write the accepted pairs as JSONL."""
        return save_jsonl(self.accepted, path)

    def widget(self, out_path: str | Path):  # -> ipywidgets.VBox
        """The interactive reviewer: edit the boxes, then Accept or Reject; Save writes `out_path`."""
        import ipywidgets as w

        question = w.Textarea(layout=w.Layout(width="95%", height="3.5em"))
        answer = w.Text(layout=w.Layout(width="95%"))
        chunk, status = w.HTML(), w.HTML()
        buttons = {name: w.Button(description=name, button_style=style) for name, style in
                   (("Accept", "success"), ("Reject", "danger"), ("Back", ""), ("Save", "info"))}  # fmt: skip

        def show() -> None:
            if not self.pairs:
                status.value = "<i>nothing to review</i>"
                return
            pair = self.pairs[self.position]
            question.value, answer.value = pair.question, pair.answer
            text = html.escape(pair.chunk_text[:900])
            if pair.answer:
                text = text.replace(html.escape(pair.answer), f"<mark>{html.escape(pair.answer)}</mark>")
            chunk.value = f"<small>{html.escape(pair.source)}</small><br><div style='max-width:80em'>{text}</div>"
            counts = self.counts()
            status.value = (
                f"pair {self.position + 1} of {len(self.pairs)} — {self.decisions[self.position] or 'open'}"
                f" · accepted {counts['accepted']}, rejected {counts['rejected']}, open {counts['open']}"
            )

        def step(decide=lambda: None, move: int = 1) -> None:
            if self.pairs:
                decide()
                self.position = min(max(self.position + move, 0), len(self.pairs) - 1)
                show()

        def save(_) -> None:
            status.value += f" · saved {len(self.accepted)} pairs to {self.save(out_path)}"

        buttons["Accept"].on_click(lambda _: step(lambda: self.accept(self.position, question.value, answer.value)))
        buttons["Reject"].on_click(lambda _: step(lambda: self.reject(self.position)))
        buttons["Back"].on_click(lambda _: step(move=-1))
        buttons["Save"].on_click(save)
        show()
        return w.VBox([status, w.Label("Question"), question, w.Label("Answer"), answer, w.HBox(list(buttons.values())),
                       chunk])  # fmt: skip
