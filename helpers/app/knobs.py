"""The app's knobs: one frozen `Knobs` value, and the `KnobPanel` of widgets that produces it.

`Knobs` is plain data (k, retriever, hybrid weight, similarity threshold, rerank, multi-query, metadata
filter, model), so the engine and the tests never touch a widget. `KnobPanel` lays the widgets out, each
with a stable CSS class (`kit-knob-k`, `kit-knob-alpha` …) for the browser test, and reads them back.
What it leaves out: saving knob settings between sessions (the defaults come from `Settings`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import ipywidgets as widgets

from helpers.config import RETRIEVERS, Settings

ANY = "(any)"
MODELS = ("local", "endpoint")


@dataclass(frozen=True)
class Knobs:
    """Everything a student can turn in the app."""

    k: int = 4
    retriever: str = "hybrid"
    alpha: float = 0.5  # dense weight of the weighted hybrid (1 = dense only, 0 = BM25 only)
    threshold: float = 0.0  # minimum dense (cosine) similarity a passage needs; 0 keeps every hit
    rerank: bool = False
    multi_query: bool = False
    doc_type: str = ANY
    term: str = ANY
    model: str = "local"  # "local" (the packaged GGUF) or "endpoint" (OPENAI_BASE_URL)

    @classmethod
    def from_settings(cls, settings: Settings) -> Knobs:
        """The defaults of the configuration."""
        return cls(
            k=settings.top_k,
            retriever=settings.retriever,
            alpha=settings.hybrid_alpha,
            threshold=settings.similarity_threshold,
            rerank=settings.reranker != "none",
            multi_query=settings.multi_query,
            model="endpoint" if settings.llm_backend == "openai" else "local",
        )

    def filters(self) -> dict[str, object] | None:
        """The metadata filter as the plain dict every retriever takes (None: no filter)."""
        spec = {key: value for key, value in (("doc_type", self.doc_type), ("term", self.term)) if value != ANY}
        return spec or None

    def replace(self, **changes: object) -> Knobs:
        """A copy with some knobs changed."""
        return dataclasses.replace(self, **changes)


def _tagged(widget: widgets.Widget, name: str) -> widgets.Widget:
    """The widget with the CSS class `kit-knob-<name>`."""
    widget.add_class(f"kit-knob-{name}")
    return widget


class KnobPanel:
    """The knob widgets, laid out in two rows, read back as a `Knobs` value."""

    def __init__(self, knobs: Knobs, doc_types: Sequence[str] = (), terms: Sequence[str] = ()) -> None:
        style = {"description_width": "initial"}
        self.k = _tagged(widgets.IntSlider(knobs.k, min=1, max=10, description="k", style=style), "k")
        self.retriever = _tagged(
            widgets.Dropdown(options=RETRIEVERS, value=knobs.retriever, description="retriever", style=style),
            "retriever",
        )
        self.alpha = _tagged(
            widgets.FloatSlider(knobs.alpha, min=0, max=1, step=0.1, description="hybrid weight", style=style),
            "alpha",
        )
        self.threshold = _tagged(
            widgets.FloatSlider(knobs.threshold, min=0, max=0.9, step=0.05, description="threshold", style=style),
            "threshold",
        )
        self.rerank = _tagged(widgets.Checkbox(knobs.rerank, description="rerank", indent=False), "rerank")
        self.multi_query = _tagged(
            widgets.Checkbox(knobs.multi_query, description="multi-query", indent=False), "multi-query"
        )
        self.doc_type = _tagged(widgets.Dropdown(description="doc type", style=style), "doc-type")
        self.term = _tagged(widgets.Dropdown(description="term", style=style), "term")
        self.model = _tagged(widgets.Dropdown(options=MODELS, value=knobs.model, description="model"), "model")
        self.set_facets(doc_types, terms)
        self.retriever.observe(self._sync_alpha, names="value")
        self._sync_alpha()

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
        return Knobs(
            k=self.k.value,
            retriever=self.retriever.value,
            alpha=round(self.alpha.value, 2),
            threshold=round(self.threshold.value, 2),
            rerank=self.rerank.value,
            multi_query=self.multi_query.value,
            doc_type=self.doc_type.value or ANY,
            term=self.term.value or ANY,
            model=self.model.value,
        )

    def widget(self) -> widgets.Widget:
        """The panel: retrieval knobs on the first row, the rest on the second."""
        first = widgets.HBox([self.k, self.retriever, self.alpha, self.threshold])
        second = widgets.HBox([self.rerank, self.multi_query, self.doc_type, self.term, self.model])
        return _tagged(widgets.VBox([first, second]), "panel")
