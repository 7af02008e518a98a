"""The interactive app (notebooks 09 and 10): a lab bench to ask the documents, turn the knobs and see why.

    >>> app = open_app()                      # one cell: the widgets, over the ready index
    >>> app.compare("When is the ADS 530 final exam?", Knobs(retriever="dense"), Knobs(retriever="bm25"))
    >>> app.ask_gold("hb-023", Knobs(mode="short")).f1       # a gold question: reference, evidence, EM/F1
    >>> AppEngine().ask("…", Knobs(k=6, retriever="hybrid", alpha=0.7))   # the same, without widgets

What it leaves out: serving many users (use Voilà per user, or a real web app), authentication.
"""

from helpers.app.engine import EMPTY, AppEngine, Turn
from helpers.app.gold_mode import evidence_reached
from helpers.app.knobs import KnobPanel, Knobs
from helpers.app.search import SimilarityFloor
from helpers.app.side_by_side import compare
from helpers.app.views import sources_frame
from helpers.app.widgets import ChatApp, open_app

__all__ = [
    "EMPTY",
    "AppEngine",
    "ChatApp",
    "KnobPanel",
    "Knobs",
    "SimilarityFloor",
    "Turn",
    "compare",
    "evidence_reached",
    "open_app",
    "sources_frame",
]
