"""The prompt template as a knob: its check (`template_problem`, one sentence instead of a traceback) and the text
box the app edits it in (`TemplateBox`: `kit-template`, `kit-template-message`, `kit-template-reset`).
What it leaves out: the system prompt and the worked examples' answers (fixed in `helpers.generation.prompts`).
"""

from __future__ import annotations

import html
from string import Formatter

import ipywidgets as widgets

from helpers.generation import USER_TEMPLATE

FIELDS = ("context", "question", "instruction")
REQUIRED = {"context": "the numbered passages", "question": "the student's question"}
BRACES = "write {{ and }} for a literal brace"


def template_problem(template: str) -> str:
    """What is wrong with a user template, in one sentence ("" when the kit can fill it)."""
    try:
        names = [name for _, name, _, _ in Formatter().parse(template) if name is not None]
    except ValueError as err:
        return f"The template's braces do not pair ({err}): {BRACES}."
    allowed = ", ".join("{" + name + "}" for name in FIELDS)
    if any(name == "" or name.isdigit() for name in names):
        return f"The template has an empty or numbered field such as {{}}: name it, one of {allowed}."
    unknown = [name for name in names if name not in FIELDS]
    if unknown:
        return f"The template has an unknown field {{{unknown[0]}}}: it may use only {allowed}; {BRACES}."
    for name, what in REQUIRED.items():
        if name not in names:
            return f"The template needs {{{name}}}, where {what} go; without it the model never sees them."
    try:
        template.format(context="[1] a passage", question="a question", instruction="an instruction")
    except (ValueError, TypeError) as err:  # a format spec or conversion the text cannot take: "{question:>x}"
        return f"The template cannot be filled in ({err}): keep each field plain, like {{question}}."
    return ""


class TemplateBox:
    """A text area holding the user template, with its check shown live and a reset to the kit's template."""

    def __init__(self, template: str = USER_TEMPLATE) -> None:
        self.text = widgets.Textarea(template, layout=widgets.Layout(width="90%", height="7em"))
        self.text.add_class("kit-template")
        self.message = widgets.HTML()
        self.message.add_class("kit-template-message")
        self.reset = widgets.Button(description="the kit's template")
        self.reset.add_class("kit-template-reset")
        self.reset.on_click(lambda _: setattr(self, "value", USER_TEMPLATE))
        self.text.observe(self._check, names="value")
        self._check()

    @property
    def value(self) -> str:
        """The template as typed."""
        return self.text.value

    @value.setter
    def value(self, template: str) -> None:
        self.text.value = template

    def _check(self, *_: object) -> None:
        """Show what is wrong with the template as it is typed (nothing when it is fine)."""
        problem = template_problem(self.text.value)
        self.message.value = f"<span style='color: #b00'>{html.escape(problem)}</span>" if problem else ""

    @property
    def widget(self) -> widgets.Widget:
        """The text area, its message and the reset button."""
        hint = widgets.HTML("Fields: <code>{context}</code>, <code>{question}</code>, <code>{instruction}</code>")
        return widgets.VBox([hint, self.text, self.message, self.reset])
