"""Bring your own documents: the kit's pipeline, app and evaluation on any folder (notebook 10).

    >>> docs = ingest_folder("course_data/byod_example/riverbend_makerspace")   # a collection of its own
    >>> print(docs.ask("When does the makerspace open on Saturdays?"))
    >>> result = evaluate_questions(docs.pipeline, load_questions("course_data/byod_example/questions.csv"))

The command line does the same: `python -m helpers eval --docs FOLDER --questions FILE [--limit N]`.
What it leaves out: file formats the parsers do not know (they are skipped and listed), and LLM judges.
"""

from helpers.byod.evaluate import evaluate_questions, plot_evaluation
from helpers.byod.ingest import ByodError, collection_name, folder_settings, ingest_folder, open_realworld

__all__ = [
    "ByodError",
    "collection_name",
    "evaluate_questions",
    "folder_settings",
    "ingest_folder",
    "open_realworld",
    "plot_evaluation",
]
