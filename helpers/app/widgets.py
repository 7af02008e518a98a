"""The ipywidgets app: a question box, a chat history, the knobs, the streamed answer, sources and prompt.

`ChatApp` only lays widgets out and moves values between them and an `AppEngine`; every decision lives
in the engine and every table in `views.py`. Each widget carries a stable CSS class (`kit-question`,
`kit-ask`, `kit-answer`, `kit-sources`, `kit-prompt`, `kit-history`, `kit-status` …) so a browser test can
find it. `open_app()` is the one call a notebook makes: it builds the index on the spot if it is empty
(with a progress bar), shows the app, and starts loading the models in the background.
What it leaves out: several users at once (one kernel, one app) and cancelling an answer mid-stream.
"""

from __future__ import annotations

import html
from typing import Any

import ipywidgets as widgets
from IPython.display import display

from helpers.app.engine import AppEngine, Turn
from helpers.app.knobs import KnobPanel, Knobs
from helpers.app.views import answer_html, message_html, prompt_html, sources_html
from helpers.config import Settings


def tagged(widget: Any, css_class: str) -> Any:
    """The widget with a CSS class added (the browser test's handle on it)."""
    widget.add_class(css_class)
    return widget


class ChatApp:
    """The widgets of the app, wired to an `AppEngine`."""

    def __init__(self, engine: AppEngine) -> None:
        self.engine = engine
        self.knobs = KnobPanel(Knobs.from_settings(engine.settings))
        wide = widgets.Layout(width="60%")
        self.question = tagged(widgets.Text(placeholder="Ask about the program …", layout=wide), "kit-question")
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

    @property
    def widget(self) -> widgets.Widget:
        """The whole app as one widget."""
        prompt = widgets.Accordion(children=[self.prompt], titles=("Prompt and token budget",))
        chat = widgets.Accordion(children=[self.history], titles=("Chat history",), selected_index=0)
        rows = [
            widgets.HTML("<h3>Ask the program documents</h3>"),
            widgets.HBox([self.question, self.ask_button, self.clear_button]),
            self.status,
            self.knobs.widget(),
            self.answer,
            self.sources,
            prompt,
            chat,
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
            self.knobs.set_facets(search.facets("doc_type"), search.facets("term"))
            self.set_status("Ready: type a question and press Ask.")
        else:
            self.set_status(f"Loading in the background: {step} …")

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
        try:
            turn = self.engine.ask(self.question.value, self.knobs.value, self.turns, on_token)
        finally:
            self.ask_button.disabled = False
        self.show(turn)
        return turn

    def ask(self, question: str) -> Turn:
        """Type `question` into the box and press Ask (for notebooks and tests)."""
        self.question.value = question
        return self.submit()

    def show(self, turn: Turn) -> None:
        """Put a turn on screen: answer or message, sources, prompt, history, status."""
        self.last = turn
        body = answer_html(turn.answer) if turn.answer is not None else ""
        if turn.message:
            body = message_html(turn.status, turn.message) + body
        self.answer.value = body
        self.sources.value = sources_html(turn.hits, turn.answer)
        self.prompt.value = prompt_html(turn.answer, self.engine.budget)
        if turn.answer is not None:
            self.turns += [{"role": "user", "content": turn.question}, {"role": "assistant", "content": turn.text}]
            self.history.value = "".join(
                f"<p class='kit-turn-{t['role']}'><b>{t['role']}:</b> {html.escape(t['content'])}</p>"
                for t in self.turns
            )
        first = turn.answer.timings.get("first_token") if turn.answer else None
        timing = f"{turn.seconds:.1f} s" + (f" (first token after {first:.1f} s)" if first else "")
        searched = f"; searched for: {turn.query}" if turn.query and turn.query != turn.question else ""
        self.set_status(f"{turn.status} in {timing}{searched}")

    def clear(self) -> None:
        """Start a new chat (follow-ups no longer lean on earlier questions)."""
        self.turns = []
        self.history.value = ""
        self.answer.value = self.sources.value = self.prompt.value = ""
        self.set_status("New chat.")


def open_app(settings: Settings | None = None, engine: AppEngine | None = None) -> ChatApp | None:
    """Show the app over the ready index (built here, with a progress bar, if empty); models load in the background."""
    engine = engine or AppEngine(settings=settings)
    try:
        if engine.pipeline.store.count() == 0:
            print("The course index is empty: building it now (about a minute) …")
            print(engine.pipeline.ingest(progress=True))
    except RuntimeError as err:  # StoreError: the embedded folder is held by another kernel, a server is down …
        display(widgets.HTML(message_html("error", str(err))))
        return None
    app = ChatApp(engine)
    display(app.widget)
    app.set_status("Loading in the background …")
    engine.start_warm_up(app.knobs.value, app.on_warm_up_step)
    return app
