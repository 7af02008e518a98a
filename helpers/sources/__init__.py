"""Several sources and a planner (the TUM chatbot's): the program documents, the student's own documents, a profile.

planner.py picks the sources a question needs, students.py keeps each student's documents behind a `student_id`
filter, context.py compiles the labelled context, aggregate.py answers list questions from payload values.
What it leaves out: the single-collection pipeline (`helpers.pipeline`) and metrics (`helpers.metrics`).
"""

from helpers.sources.aggregate import QUESTIONS as AGGREGATION_QUESTIONS
from helpers.sources.aggregate import distinct_values, expected_values, schedule_rows, store_rows
from helpers.sources.context import compile_context
from helpers.sources.planner import ACTIONS, KeywordPlanner, LLMPlanner, routing_accuracy
from helpers.sources.students import ProfileStore, StudentDocs, load_profiles

__all__ = [
    "ACTIONS",
    "AGGREGATION_QUESTIONS",
    "KeywordPlanner",
    "LLMPlanner",
    "ProfileStore",
    "StudentDocs",
    "compile_context",
    "distinct_values",
    "expected_values",
    "load_profiles",
    "routing_accuracy",
    "schedule_rows",
    "store_rows",
]
