"""The interactive app (notebook 09): ask the course documents, turn the knobs, see sources, scores and prompt.

    >>> app = open_app()                      # one cell: the widgets, over the ready index
    >>> app.ask("What is the application fee?").answer.citations
    >>> AppEngine().ask("…", Knobs(k=6, retriever="hybrid", alpha=0.7))   # the same, without widgets

`knobs.py` (what can be turned), `search.py` (knobs → retriever from helpers.retrieval / rerank / query),
`engine.py` (question → `Turn`: answer or a clear message, models warmed up in the background),
`views.py` (sources table with per-stage scores, prompt with its token budget), `widgets.py` (the layout).
What it leaves out: serving many users (use Voilà per user, or a real web app), authentication.
"""

from helpers.app.engine import EMPTY, AppEngine, Turn
from helpers.app.knobs import ANY, KnobPanel, Knobs
from helpers.app.search import PipelineDense, SearchBuilder, SimilarityFloor, standalone_query
from helpers.app.views import answer_html, message_html, prompt_html, sources_frame, sources_html
from helpers.app.widgets import ChatApp, open_app

__all__ = [
    "ANY",
    "EMPTY",
    "AppEngine",
    "ChatApp",
    "KnobPanel",
    "Knobs",
    "PipelineDense",
    "SearchBuilder",
    "SimilarityFloor",
    "Turn",
    "answer_html",
    "message_html",
    "open_app",
    "prompt_html",
    "sources_frame",
    "sources_html",
    "standalone_query",
]
