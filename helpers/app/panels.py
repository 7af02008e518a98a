"""The app's two lab-bench panels: A/B (a second set of knobs, `kit-ab-…`) and the gold-question picker
(`kit-gold-…`); while the question box holds a chosen gold question, every answer is scored against it.
What it leaves out: the wiring to the engine (`widgets.ChatApp`) and the HTML (`side_by_side`, `gold_mode`).
"""

from __future__ import annotations

from collections.abc import Sequence

import ipywidgets as widgets

from helpers.app.engine import Turn
from helpers.app.gold_mode import GoldReport, gold_html, gold_report, question_label
from helpers.app.knobs import KnobPanel, Knobs, tagged
from helpers.app.side_by_side import SideBySide, side_by_side_html
from helpers.corpus import Question

NO_GOLD = "(none: your own question)"
NO_QUESTIONS = (
    "<i>No gold questions for this folder: open the app with your question file, "
    "<code>open_app(engine=…, questions=load_questions(FILE))</code>.</i>"
)


class ABPanel:
    """Knobs B, the compare button, and the side-by-side result."""

    def __init__(self, knobs: Knobs) -> None:
        self.knobs = KnobPanel(knobs)
        self.run = tagged(widgets.Button(description="Compare A and B", button_style="info"), "kit-ab-run")
        self.copy = tagged(widgets.Button(description="B = A"), "kit-ab-copy")
        self.result = tagged(widgets.HTML(), "kit-ab-result")

    @property
    def widget(self) -> widgets.Widget:
        """The panel: a heading, knobs B, the buttons, the result."""
        heading = widgets.HTML(
            "<h4>A/B: the same question under knobs A (above) and knobs B (here)</h4>"
            "Change one knob of B, press Compare: both answers, and which passages only one side found."
        )
        knobs = tagged(widgets.Box([self.knobs.widget()]), "kit-ab-knobs")
        return tagged(widgets.VBox([heading, knobs, widgets.HBox([self.run, self.copy]), self.result]), "kit-ab")

    def show(self, pair: SideBySide) -> None:
        """Put an A/B on screen, each side scored against the gold question when it is one."""
        self.result.value = side_by_side_html(pair, pair.gold)


class GoldPanel:
    """The dropdown of gold questions and the report of the last gold answer."""

    def __init__(self, questions: Sequence[Question]) -> None:
        self.questions = {q.id: q for q in questions}
        options = [(NO_GOLD, ""), *((question_label(q), q.id) for q in questions)]
        style, layout = {"description_width": "initial"}, widgets.Layout(width="80%")
        dropdown = widgets.Dropdown(options=options, value="", description="gold question", style=style, layout=layout)
        self.choice = tagged(dropdown, "kit-gold-question")
        self.choice.disabled = not self.questions
        self.result = tagged(widgets.HTML(), "kit-gold-result")
        self.last: GoldReport | None = None

    @property
    def selected(self) -> Question | None:
        """The chosen gold question (None: the student's own)."""
        return self.questions.get(self.choice.value or "")

    def active(self, text: str) -> Question | None:
        """The chosen gold question if the question box still holds it, else None."""
        chosen = self.selected
        return chosen if chosen is not None and chosen.question.strip() == text.strip() else None

    def select(self, question: str | Question) -> Question | None:
        """Choose a gold question by id (or the `Question` itself); None when this app has no such question."""
        qid = question if isinstance(question, str) else question.id
        if qid in self.questions:
            self.choice.value = qid
        return self.questions.get(qid)

    def show(self, turn: Turn) -> GoldReport | None:
        """Score a turn against the active gold question and show the report (nothing, and None, without one)."""
        gold = self.active(turn.question)
        self.last = gold_report(gold, turn) if gold is not None else None
        self.result.value = gold_html(self.last) if self.last is not None else ""
        return self.last

    def reports(self, pair: SideBySide) -> tuple[GoldReport, GoldReport] | None:
        """Both sides of an A/B scored against the active gold question (None without one)."""
        gold = self.active(pair.question)
        return (gold_report(gold, pair.a), gold_report(gold, pair.b)) if gold is not None else None

    @property
    def picker(self) -> widgets.Widget:
        """The dropdown, or a note saying how to get one."""
        return self.choice if self.questions else widgets.HTML(NO_QUESTIONS)
