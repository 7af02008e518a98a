"""Generation: the grounded prompt, context under a token budget, citations, refusal, guard, scores.

    >>> llm = make_llm(settings)                           # helpers.llm: a local GGUF, or an OpenAI endpoint
    >>> answer = generate_answer(question, hits, llm)      # or RAGPipeline().ask(question)
    >>> answer.text, answer.citations, answer.status       # "… $90 [1].", [[1] web/fees.html, chunk 2], "answered"

Like minbpe, one file per idea (the LLM clients and their caches live lower, in `helpers.llm`): `prompts.py`
(system prompt, template, worked examples, modes), `budget.py` (context under a token budget), `fewshot.py`
(examples chosen by similarity), `guard.py` (prompt-injection guard, output clean-up), `answer.py` (hits →
`Answer`), `scores.py` (an answer scored against a gold question).
What it leaves out: retrieval (`helpers.retrieval`) and LLM-judged metrics (notebook 08).
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
    is_refusal,
    strip_citations,
)
from helpers.generation.budget import TokenBudget, budget_table, fit_context
from helpers.generation.fewshot import FEW_SHOT, ExampleSelector, example_pool
from helpers.generation.guard import REJECTION, GuardResult, check_input, clean_output, is_injection
from helpers.generation.prompts import (
    FIXED_EXAMPLES,
    MODES,
    REFUSAL,
    SHORT_REFUSAL,
    SYSTEM_PROMPT,
    USER_TEMPLATE,
    Example,
    build_messages,
    closed_book_messages,
    fixed_prompt_tokens,
    format_context,
    worked_examples,
)

__all__ = [
    "FEW_SHOT",
    "FIXED_EXAMPLES",
    "MODES",
    "REFUSAL",
    "REJECTION",
    "SHORT_REFUSAL",
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
    "closed_book_messages",
    "example_pool",
    "extract_citations",
    "fit_context",
    "fixed_prompt_tokens",
    "format_context",
    "generate_answer",
    "hit_section",
    "is_injection",
    "is_refusal",
    "strip_citations",
    "worked_examples",
]
