"""Generation: the grounded prompt, context under a token budget, citations, refusal, guard, scores.

    >>> answer = generate_answer(question, hits, make_llm(settings))   # or RAGPipeline().ask(question)

What it leaves out: retrieval (`helpers.retrieval`), the LLM clients (`helpers.llm`) and LLM-judged metrics.
"""

from helpers.generation.answer import (
    STATUSES,
    Answer,
    Citation,
    best_similarity,
    closed_book_answer,
    extract_citations,
    generate_answer,
    hit_section,
    strip_citations,
)
from helpers.generation.budget import TokenBudget, budget_table, fit_context
from helpers.generation.fewshot import ExampleSelector, example_pool
from helpers.generation.guard import REJECTION, GuardResult, check_input, clean_output
from helpers.generation.prompts import (
    FIXED_EXAMPLES,
    MODES,
    REFUSAL,
    SYSTEM_PROMPT,
    USER_TEMPLATE,
    Example,
    build_messages,
    fixed_prompt_tokens,
    format_context,
    worked_examples,
)

__all__ = [
    "FIXED_EXAMPLES",
    "MODES",
    "REFUSAL",
    "REJECTION",
    "STATUSES",
    "SYSTEM_PROMPT",
    "USER_TEMPLATE",
    "Answer",
    "Citation",
    "Example",
    "ExampleSelector",
    "GuardResult",
    "TokenBudget",
    "best_similarity",
    "budget_table",
    "build_messages",
    "check_input",
    "clean_output",
    "closed_book_answer",
    "example_pool",
    "extract_citations",
    "fit_context",
    "fixed_prompt_tokens",
    "format_context",
    "generate_answer",
    "hit_section",
    "strip_citations",
    "worked_examples",
]
