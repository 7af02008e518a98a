"""The slots "prompt" and "budget" really drive what notebook 07 measures, and `reset` gives the kit's back.

A seeded handful of gold `dev` questions, each given four passages: its evidence quote at rank 2 between
other questions' quotes (no retrieval, no store). The reader is a stand-in that answers as a perfect reader
would, from the prompt alone: the reference answer and the number of the passage that holds it, read from
the "[n] text" lines of the last user message, else "unknown". So the numbers the notebook's own scoring
(`run_answers`, `summarize`) reports — F1, citation precision, prompt tokens — move only when the prompt or the
passages that reach the reader change. Allowed here: these tests check the plumbing around the model.
What it leaves out: a real model (notebook 07 runs one) and the checks of the exercises (tests/test_checks.py).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator

import pytest

from helpers.chunking import count_tokens
from helpers.corpus import Question, load_gold
from helpers.generation import Answer, TokenBudget, build_messages, fit_context, generate_answer
from helpers.generation.budget import fit_passages
from helpers.generation.prompts import INSTRUCTIONS, numbered_prompt
from helpers.generation.scores import run_answers, summarize
from helpers.llm import Completion
from helpers.mechanisms import chosen, reset, use
from helpers.metrics.answer_relevance import contains_answer
from helpers.types import Hit

PASSAGE = re.compile(r"^\[(\d+)\] (.*)$", re.M)


class PerfectReader:
    """Answers `answer [n]` when passage [n] of the last user message holds the answer, else "unknown"."""

    name = "perfect-reader"

    def __init__(self, answers: list[str]) -> None:
        self.answers = answers

    def chat(self, messages: list[dict[str, str]], max_tokens: int) -> Completion:
        found = [n for n, text in PASSAGE.findall(messages[-1]["content"]) if contains_answer(text, self.answers)]
        reply = f"{self.answers[0]} [{found[0]}]" if found else "unknown"
        return Completion(reply, sum(count_tokens(m["content"]) for m in messages), 5, 0.1)

    def stream(self, messages: list[dict[str, str]], max_tokens: int) -> Iterator[str]:
        yield self.chat(messages, max_tokens).text

    def close(self) -> None:
        pass


def handful(n: int = 6, seed: int = 0) -> list[Question]:
    """Answerable dev questions whose single evidence quote holds the answer (a seeded sample)."""
    usable = [
        q for q in load_gold(split="dev")
        if q.answer and len(q.evidence) == 1 and contains_answer(q.evidence[0].quote, q.answers)
    ]  # fmt: skip
    return random.Random(seed).sample(usable, n)


def passages_for(question: Question, others: list[Question]) -> list[Hit]:
    """Four passages: another question's quote, this question's evidence (rank 2), two more quotes."""
    quotes = [o.evidence[0] for o in others if o.id != question.id][:3]
    ranked = [quotes[0], question.evidence[0], *quotes[1:]]
    return [Hit(f"{e.doc}#{i}", e.quote, {"source": e.doc, "chunk": i}, {"dense": 0.6}) for i, e in enumerate(ranked)]


def measure(questions: list[Question], budget: TokenBudget | None = None) -> dict[str, float]:
    """F1, citation precision and prompt tokens of the perfect reader over `questions` (notebook 07's summary)."""
    pool = handful(12, seed=1)

    def answer(q: Question) -> Answer:
        return generate_answer(q.question, passages_for(q, pool), PerfectReader(list(q.answers)), mode="short",
                               budget=budget)  # fmt: skip

    row = summarize({"run": run_answers(questions, answer, progress=False)}).loc["run"]
    return {name: float(row[name]) for name in ("F1", "citation precision", "prompt tokens")}


@pytest.fixture(autouse=True)
def kit_functions() -> Iterator[None]:
    """Every test starts and ends with the kit's own functions in every slot."""
    reset()
    yield
    reset()


def numbered_from_zero(question: str, passages: list[str]) -> str:
    """A wrong prompt: the passages numbered [0], [1] … (the answer then cites numbers that point elsewhere)."""
    return "Context:\n" + "\n\n".join(f"[{n}] {text}" for n, text in enumerate(passages)) + f"\n\nQuestion: {question}"


def question_only(question: str, passages: list[str]) -> str:
    """A wrong prompt: the passages left out."""
    return f"Question: {question}"


def every_second_without_labels(passages: list[str], room: int, count: Callable[[str], int]) -> list[str]:
    """A wrong fitting: drops every second passage and forgets the labels' tokens."""
    return fit_passages(passages, room + 4 * len(passages), count)[::2]


def everything(passages: list[str], room: int, count: Callable[[str], int]) -> list[str]:
    """A wrong fitting: ignores the room."""
    return list(passages)


def test_the_kit_reference_through_chosen_is_todays_prompt_and_fitting() -> None:
    assert chosen("prompt", numbered_prompt) is numbered_prompt and chosen("budget", fit_passages) is fit_passages
    hits = [Hit("a", "The fee\nis  $90.", {"source": "fees.md"}), Hit("b", "Tuition is $14,850.", {"source": "t.md"})]
    user = build_messages("Fee?", hits, "short", style="phrase")[-1]["content"]
    assert user == (
        "Context:\n[1] The fee is $90.\n\n[2] Tuition is $14,850.\n\nQuestion: Fee?\n\n" + INSTRUCTIONS["short"]
    )
    long = [Hit(f"h{i}", " ".join([f"w{i}"] * 60), {"source": "x.md"}) for i in range(4)]
    cost = count_tokens(long[0].text) + 4
    kept = fit_context(long, 2 * cost + 50)
    assert [h.node_id for h in kept] == ["h0", "h1", "h2"] and kept[:2] == long[:2]  # the same Hit objects
    assert kept[2].text.endswith(" …") and long[2].text.startswith(kept[2].text[:-2])
    kit = measure(handful())
    assert kit["F1"] == 1.0 and kit["citation precision"] == 1.0  # every evidence quote fits the default budget


def test_a_wrong_prompt_moves_the_measured_citations_and_f1_and_reset_brings_them_back() -> None:
    questions = handful()
    kit = measure(questions)
    use("prompt", numbered_from_zero, quiet=True)
    zero = measure(questions)
    assert zero["citation precision"] < kit["citation precision"]  # the evidence is "[1]", which cites rank 1
    use("prompt", question_only, quiet=True)
    bare = measure(questions)
    assert bare["F1"] == 0.0 < kit["F1"] and bare["prompt tokens"] < kit["prompt tokens"]
    reset("prompt")
    assert measure(questions) == kit


def test_a_wrong_budget_moves_f1_and_the_prompt_tokens_and_reset_brings_them_back() -> None:
    questions = handful()
    kit = measure(questions)
    use("budget", every_second_without_labels, quiet=True)
    assert measure(questions)["F1"] < kit["F1"]  # the evidence sat at rank 2
    reset("budget")
    small = TokenBudget(context=120)
    kit_small = measure(questions, small)
    use("budget", everything, quiet=True)
    assert measure(questions, small)["prompt tokens"] > kit_small["prompt tokens"]
    reset("budget")
    assert measure(questions) == kit and measure(questions, small) == kit_small
