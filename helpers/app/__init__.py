"""The interactive app (notebooks 09 and 10): a lab bench to ask the documents, turn the knobs and see why.

    >>> app = open_app()                      # one cell: the widgets, over the ready index
    >>> app.compare("When is the ADS 530 final exam?", Knobs(retriever="dense"), Knobs(retriever="bm25"))
    >>> app.ask_gold("hb-023", Knobs(mode="short")).f1       # a gold question: reference, evidence, EM/F1
    >>> AppEngine().ask("…", Knobs(k=6, retriever="hybrid", alpha=0.7))   # the same, without widgets

What it leaves out: serving many users (use Voilà per user, or a real web app), authentication.
"""

from helpers.app.chunking_knob import ChunkingIndexes, strategy_collection
from helpers.app.engine import EMPTY, AppEngine, Turn
from helpers.app.gold_mode import GoldReport, evidence_reached, gold_report
from helpers.app.knobs import ANY, KnobPanel, Knobs
from helpers.app.prompt_template import template_problem
from helpers.app.search import SearchBuilder, SimilarityFloor, standalone_query
from helpers.app.side_by_side import SideBySide, compare, source_diff
from helpers.app.views import answer_html, floors_html, message_html, prompt_html, sources_frame, sources_html
from helpers.app.widgets import ChatApp, open_app

__all__ = [
    "ANY",
    "EMPTY",
    "AppEngine",
    "ChatApp",
    "ChunkingIndexes",
    "GoldReport",
    "KnobPanel",
    "Knobs",
    "SearchBuilder",
    "SideBySide",
    "SimilarityFloor",
    "Turn",
    "answer_html",
    "compare",
    "evidence_reached",
    "floors_html",
    "gold_report",
    "message_html",
    "open_app",
    "prompt_html",
    "source_diff",
    "sources_frame",
    "sources_html",
    "standalone_query",
    "strategy_collection",
    "template_problem",
]
