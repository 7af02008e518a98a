"""The ipywidgets app: question box, chat, knobs, streamed answer, sources, prompt, A/B and gold questions.
`ChatApp` only lays widgets out and moves values to and from an `AppEngine`; `open_app()` is what a notebook calls.
What it leaves out: several users at once (one kernel, one app) and cancelling an answer mid-stream.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import ipywidgets as widgets
from IPython.display import display

from helpers.app.engine import AppEngine, Turn
from helpers.app.gold_mode import GoldReport, default_questions
from helpers.app.knobs import KnobPanel, Knobs, tagged
from helpers.app.panels import ABPanel, GoldPanel
from helpers.app.side_by_side import SideBySide, compare
from helpers.app.views import answer_html, floors_html, message_html, prompt_html, sources_html
from helpers.config import Settings
from helpers.corpus import Question


class ChatApp:
    """The widgets of the app, wired to an `AppEngine`."""

    def __init__(self, engine: AppEngine, questions: Sequence[Question] = ()) -> None:
        self.engine = engine
        self.knobs = KnobPanel(Knobs.from_settings(engine.settings))
        self.ab = ABPanel(Knobs.from_settings(engine.settings))
        self.gold = GoldPanel(questions)
        box = widgets.Text(placeholder="Ask about the program …", layout=widgets.Layout(width="60%"))
        self.question = tagged(box, "kit-question")
        self.ask_button = tagged(widgets.Button(description="Ask", button_style="primary"), "kit-ask")
        self.clear_button = tagged(widgets.Button(description="New chat"), "kit-clear")
        self.status = tagged(widgets.HTML(), "kit-status")
        self.answer = tagged(widgets.HTML(), "kit-answer")
        self.history = tagged(widgets.HTML(), "kit-history")
        self.sources = tagged(widgets.HTML(), "kit-sources")
        self.prompt = tagged(widgets.HTML(), "kit-prompt")
        self.turns: list[dict[str, str]] = []  # the chat so far, as user/assistant messages
        self.last: Turn | None = None
        self.ask_button.on_click(lambda _: self.submit())
        self.clear_button.on_click(lambda _: self.clear())
        self.ab.run.on_click(lambda _: self.compare())
        self.ab.copy.on_click(lambda _: self.ab.knobs.set(self.knobs.value))
        self.gold.choice.observe(self._type_gold_question, names="value")

    @property
    def widget(self) -> widgets.Widget:
        """The whole app as one widget."""
        prompt = widgets.Accordion(children=[self.prompt], titles=("Prompt and token budget",))
        chat = widgets.Accordion(children=[self.history], titles=("Chat history",), selected_index=0)
        rows = [
            widgets.HTML("<h3>Ask the program documents</h3>"),
            widgets.HBox([self.question, self.ask_button, self.clear_button]),
            self.gold.picker,
            self.status,
            tagged(self.knobs.widget(), "kit-knobs-a"),
            self.answer,
            self.gold.result,
            self.sources,
            prompt,
            chat,
            self.ab.widget,
        ]
        return tagged(widgets.VBox(rows), "kit-app")

    def _ipython_display_(self) -> None:
        display(self.widget)

    def set_status(self, text: str) -> None:
        """One line under the question box."""
        self.status.value = f"<span style='color: #555'>{html.escape(text)}</span>"

    def on_warm_up_step(self, step: str) -> None:
        """Report the background loading; when it is done, fill the filter dropdowns from the index."""
        if step == "ready":
            search = self.engine.search
            for panel in (self.knobs, self.ab.knobs):
                panel.set_facets(search.facets("doc_type"), search.facets("term"))
            self.set_status(f"Ready: type a question and press Ask. {self.engine.yours}")
        else:
            self.set_status(f"Loading in the background: {step} … {self.engine.yours}")

    def submit(self) -> Turn:
        """Answer what is in the question box, streaming the answer into the app."""
        self.ask_button.disabled = True
        if not self.engine.ready.is_set():
            self.set_status("Waiting for the models to finish loading …")
        pieces: list[str] = []

        def on_token(piece: str) -> None:
            pieces.append(piece)
            self.answer.value = f"<div class='kit-answer-streaming'>{html.escape(''.join(pieces))} ▌</div>"

        self.answer.value = "<i>Searching …</i>"
        knobs, gold = self.knobs.value, self.gold.active(self.question.value)
        history = list(gold.history) if gold is not None else self.turns  # a gold question brings its own chat
        try:
            turn = self.engine.ask(self.question.value, knobs, history, on_token, self.set_status)
        finally:
            self.ask_button.disabled = False
        self.show(turn, knobs)
        return turn

    def ask(self, question: str, knobs: Knobs | None = None) -> Turn:
        """Type `question` into the box (and turn knobs A to `knobs`), then press Ask (for notebooks and tests)."""
        self.question.value = question
        if knobs is not None:
            self.knobs.set(knobs)
        return self.submit()

    def show(self, turn: Turn, knobs: Knobs) -> None:
        """Put a turn on screen: answer or message, gold report, floors and sources, prompt, history, status."""
        self.last = turn
        message = message_html(turn.status, turn.message) if turn.message else ""
        self.answer.value = message + (answer_html(turn.answer) if turn.answer is not None else "")
        gold = self.gold.show(turn)
        self.sources.value = floors_html(knobs, turn.hits) + sources_html(turn.hits, turn.answer)
        self.prompt.value = prompt_html(turn.answer, self.engine.budget)
        if turn.answer is not None and gold is None:  # a gold question stands alone: it does not join the chat
            self.turns += [{"role": "user", "content": turn.question}, {"role": "assistant", "content": turn.text}]
            self.history.value = "".join(
                f"<p class='kit-turn-{t['role']}'><b>{t['role']}:</b> {html.escape(t['content'])}</p>"
                for t in self.turns
            )
        first = turn.answer.timings.get("first_token") if turn.answer else None
        timing = f"{turn.seconds:.1f} s" + (f" (first token after {first:.1f} s)" if first else "")
        searched = f"; searched for: {turn.query}" if turn.query and turn.query != turn.question else ""
        self.set_status(f"{turn.status} in {timing}{searched}")

    def compare(self, question: str | None = None, a: Knobs | None = None, b: Knobs | None = None) -> SideBySide:
        """The question (default: the box's) under knobs A and B (default: the panels'), shown side by side."""
        self.question.value = self.question.value if question is None else question
        for knobs, panel in ((a, self.knobs), (b, self.ab.knobs)):
            if knobs is not None:
                panel.set(knobs)
        self.ab.run.disabled = True
        self.ab.result.value = "<i>Asking with knobs A, then with knobs B …</i>"
        try:
            pair = compare(self.engine, self.question.value, self.knobs.value, self.ab.knobs.value, self.set_status)
        finally:
            self.ab.run.disabled = False
        pair.gold = self.gold.reports(pair)
        self.ab.show(pair)
        self.set_status(f"A/B: A {pair.a.status} ({pair.a.seconds:.1f} s), B {pair.b.status} ({pair.b.seconds:.1f} s)")
        return pair

    def ask_gold(self, question: str | Question, knobs: Knobs | None = None) -> GoldReport | None:
        """Choose a gold question (by id), ask it (under `knobs`, default: panel A's) and return its report."""
        chosen = self.gold.select(question)
        if chosen is None:
            self.set_status(f"This app has no gold question {question!r}: pick one from the dropdown.")
            return None
        self.ask(chosen.question, knobs)
        return self.gold.last

    def _type_gold_question(self, *_: object) -> None:
        """A chosen gold question goes into the question box; the last report is cleared."""
        if self.gold.selected is not None:
            self.question.value = self.gold.selected.question
        self.gold.result.value = ""

    def clear(self) -> None:
        """Start a new chat (follow-ups no longer lean on earlier questions)."""
        self.turns = []
        self.history.value = ""
        self.answer.value = self.sources.value = self.prompt.value = ""
        self.set_status("New chat.")


def open_app(
    settings: Settings | None = None, engine: AppEngine | None = None, questions: Sequence[Question] | None = None
) -> ChatApp | None:
    """Show the app over the ready index (built here if empty); `questions` fill the gold mode (default: gold dev)."""
    engine = engine or AppEngine(settings=settings)
    try:
        if engine.pipeline.store.count() == 0:
            print("The course index is empty: building it now (about a minute) …")
            print(engine.pipeline.ingest(progress=True))
    except RuntimeError as err:  # StoreError: the embedded folder is held by another kernel, a server is down …
        display(widgets.HTML(message_html("error", str(err))))
        return None
    app = ChatApp(engine, default_questions(engine.settings) if questions is None else questions)
    display(app.widget)
    app.set_status(f"Loading in the background … {engine.yours}")
    engine.start_warm_up(app.knobs.value, app.on_warm_up_step)
    return app
