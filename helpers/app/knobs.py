"""The app's knobs: one frozen `Knobs` value (plain data: the engine and the tests never touch a widget), and the
`KnobPanel` of widgets that produces it, each with a stable CSS class (`kit-knob-<name>`) for the browser test.
What it leaves out: saving knob settings between sessions (the defaults come from `Settings`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, fields

import ipywidgets as widgets
from traitlets import TraitError

from helpers.app.prompt_template import TemplateBox
from helpers.config import CHUNK_STRATEGIES, RETRIEVERS, Settings
from helpers.generation import MODES, USER_TEMPLATE

ANY = "(any)"
MODELS = ("local", "endpoint")
FUNCTIONS = ("yours", "the kit's")  # the student's functions in the slots (my_rag.py), or the kit's own
DEFAULTS = Settings()  # the knobs' defaults are the configuration's defaults (their one home: helpers.config)


def model_knob(llm_backend: str) -> str:
    """The model knob of an LLM backend: "endpoint" for an OpenAI-compatible one, else "local"."""
    return "endpoint" if llm_backend == "openai" else "local"


@dataclass(frozen=True)
class Knobs:
    """Everything a student can turn in the app."""

    k: int = DEFAULTS.retrieval.top_k
    retriever: str = DEFAULTS.retrieval.retriever
    alpha: float = DEFAULTS.retrieval.hybrid_alpha  # dense weight of the weighted hybrid (1 = dense only, 0 = BM25)
    drop_below: float = DEFAULTS.retrieval.similarity_threshold  # drop passages whose cosine is below; 0 keeps all
    refuse_below: float = DEFAULTS.generation.refusal_threshold  # best passage's cosine below: refuse, no LLM call
    rerank: bool = DEFAULTS.rerank.reranker != "none"
    multi_query: bool = DEFAULTS.query.multi_query
    doc_type: str = ANY
    term: str = ANY
    model: str = model_knob(DEFAULTS.llm.llm_backend)  # "local" (the packaged GGUF) or "endpoint" (OPENAI_BASE_URL)
    mode: str = "sentence"  # the answer: "sentence" (with citations) or "short" (a phrase, as F1/EM expect)
    chunking: str = DEFAULTS.chunking.chunk_strategy  # another strategy searches its own collection
    template: str = USER_TEMPLATE  # the user turn, with {context}, {question} and {instruction}
    functions: str = FUNCTIONS[0]  # "yours": the functions you wrote run their slots; "the kit's": the kit's own

    @classmethod
    def from_settings(cls, settings: Settings) -> Knobs:
        """The defaults of the configuration."""
        return cls(
            k=settings.retrieval.top_k,
            retriever=settings.retrieval.retriever,
            alpha=settings.retrieval.hybrid_alpha,
            drop_below=settings.retrieval.similarity_threshold,
            refuse_below=settings.generation.refusal_threshold,
            rerank=settings.rerank.reranker != "none",
            multi_query=settings.query.multi_query,
            model=model_knob(settings.llm.llm_backend),
            chunking=settings.chunking.chunk_strategy,
        )

    def filters(self) -> dict[str, object] | None:
        """The metadata filter as the plain dict every retriever takes (None: no filter)."""
        spec = {key: value for key, value in (("doc_type", self.doc_type), ("term", self.term)) if value != ANY}
        return spec or None

    def replace(self, **changes: object) -> Knobs:
        """A copy with some knobs changed."""
        return dataclasses.replace(self, **changes)

    def changes(self, other: Knobs) -> dict[str, tuple[object, object]]:
        """The knobs `other` sets differently: name → (this value, other's value)."""
        pairs = ((f.name, getattr(self, f.name), getattr(other, f.name)) for f in fields(self))
        return {name: (mine, theirs) for name, mine, theirs in pairs if mine != theirs}


def tagged(widget: widgets.Widget, css_class: str) -> widgets.Widget:
    """The widget with a CSS class added (the browser test's handle on it)."""
    widget.add_class(css_class)
    return widget


def _slider(kind: type, value: float, low: float, high: float, step: float, label: str, name: str) -> widgets.Widget:
    """A labelled slider with its CSS class."""
    style = {"description_width": "initial"}
    return tagged(kind(value, min=low, max=high, step=step, description=label, style=style), f"kit-knob-{name}")


def _choice(options: Sequence[str], label: str, name: str) -> widgets.Widget:
    """A labelled dropdown with its CSS class."""
    dropdown = widgets.Dropdown(options=options, description=label, style={"description_width": "initial"})
    return tagged(dropdown, f"kit-knob-{name}")


class KnobPanel:
    """The knob widgets, laid out in rows, read back as a `Knobs` value and set from one."""

    def __init__(self, knobs: Knobs, doc_types: Sequence[str] = (), terms: Sequence[str] = ()) -> None:
        self.k = _slider(widgets.IntSlider, knobs.k, 1, 10, 1, "k", "k")
        self.retriever = _choice(RETRIEVERS, "retriever", "retriever")
        self.alpha = _slider(widgets.FloatSlider, knobs.alpha, 0, 1, 0.1, "hybrid weight", "alpha")
        self.drop_below = _slider(widgets.FloatSlider, 0, 0, 0.9, 0.05, "drop passages below cosine", "threshold")
        self.refuse_below = _slider(widgets.FloatSlider, 0, 0, 0.9, 0.05, "refuse below cosine", "refuse")
        self.rerank = tagged(widgets.Checkbox(knobs.rerank, description="rerank", indent=False), "kit-knob-rerank")
        multi_query = widgets.Checkbox(False, description="multi-query", indent=False)
        self.multi_query = tagged(multi_query, "kit-knob-multi-query")
        self.doc_type = _choice((ANY,), "doc type", "doc-type")
        self.term = _choice((ANY,), "term", "term")
        self.model = _choice(MODELS, "model", "model")
        self.mode = _choice(MODES, "answer", "mode")
        self.chunking = _choice(CHUNK_STRATEGIES, "chunking", "chunking")
        self.template = TemplateBox(knobs.template)
        self.functions = _choice(FUNCTIONS, "functions", "functions")
        defaults = widgets.Button(description="defaults", tooltip="the configured knobs")
        self.defaults = tagged(defaults, "kit-knob-defaults")
        self.defaults.on_click(lambda _: self.set(knobs))
        self.set_facets(doc_types, terms)
        self.retriever.observe(self._sync_alpha, names="value")
        self.set(knobs)

    def set_facets(self, doc_types: Sequence[str], terms: Sequence[str]) -> None:
        """Fill the filter dropdowns with the values the index holds."""
        for dropdown, values in ((self.doc_type, doc_types), (self.term, terms)):
            dropdown.options = (ANY, *values)
            dropdown.value = ANY

    def _sync_alpha(self, *_: object) -> None:
        """The hybrid weight only means something for the weighted hybrid."""
        self.alpha.disabled = self.retriever.value != "hybrid"

    @property
    def value(self) -> Knobs:
        """The knobs as they are set now."""
        values = {f.name: getattr(self, f.name).value for f in fields(Knobs)}
        for name in ("alpha", "drop_below", "refuse_below"):
            values[name] = round(values[name], 2)
        return Knobs(**{**values, "doc_type": values["doc_type"] or ANY, "term": values["term"] or ANY})

    def set(self, knobs: Knobs) -> None:
        """Turn every widget to the value `knobs` holds (a filter value the index lacks becomes "(any)"); a value a
        widget does not offer (`chunking="fixed"`) is said in one line and the widget keeps its own."""
        for f in fields(Knobs):
            widget, value = getattr(self, f.name), getattr(knobs, f.name)
            unknown_facet = f.name in ("doc_type", "term") and value not in widget.options
            try:
                widget.value = ANY if unknown_facet else value
            except TraitError:
                offered = ", ".join(map(str, getattr(widget, "options", ()))) or "a value of its own type"
                print(f"The knob {f.name} cannot be {value!r}; it offers {offered}. It stays {widget.value!r}.")
        self._sync_alpha()

    def widget(self) -> widgets.Widget:
        """The panel: retrieval knobs, then the rest, then the answer's knobs, then the template (folded)."""
        rows = [
            widgets.HBox([self.k, self.retriever, self.alpha, self.drop_below]),
            widgets.HBox([self.rerank, self.multi_query, self.doc_type, self.term, self.model]),
            widgets.HBox([self.mode, self.chunking, self.refuse_below, self.functions, self.defaults]),
            widgets.Accordion(children=[self.template.widget], titles=("Prompt template (the user turn)",)),
        ]
        return tagged(widgets.VBox(rows), "kit-knob-panel")
