"""What the app shows, as plain tables and HTML: the sources table, the prompt view, the answer, a message.
Pure functions of a `Turn` (or its parts), so they can be tested and reused in a notebook without any widget.
What it leaves out: styling beyond a few inline rules (Voilà and JupyterLab bring their own).
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import pandas as pd

from helpers.app.knobs import Knobs
from helpers.chunking import count_tokens
from helpers.generation import Answer, TokenBudget, best_similarity, budget_table, format_context, hit_section
from helpers.types import Hit

STAGES = {"dense": "dense", "sparse": "BM25", "fused": "fused", "rerank": "rerank"}  # score key → column
MISSING = "–"
MESSAGE_COLOURS = {"empty": "#666", "rejected": "#b00", "no_hits": "#a60", "no_context": "#a60", "bad_template": "#b00",
                   "unreachable": "#b00", "error": "#b00"}  # fmt: skip


def where(hit: Hit) -> str:
    """Page and/or section of a hit ("p. 4 · Fees > Deposits"; the section as its citation names it), or "–"."""
    page, section = hit.metadata.get("page"), hit_section(hit.metadata)
    parts = ([f"p. {page}"] if page not in (None, "") else []) + ([str(section)] if section else [])
    return " · ".join(parts) or MISSING


def sources_frame(hits: Sequence[Hit], answer: Answer | None = None) -> pd.DataFrame:
    """One row per hit: source, page/section, a score column per stage, in the prompt as [n], cited."""
    in_prompt = {hit.node_id: number for number, hit in enumerate(answer.hits if answer else [], start=1)}
    cited = {c.node_id for c in answer.citations} if answer else set()
    rows = []
    for rank, hit in enumerate(hits, start=1):
        row = {"rank": rank, "source": hit.source, "page / section": where(hit)}
        for key, column in STAGES.items():
            row[column] = round(hit.scores[key], 3) if key in hit.scores else MISSING
        number = in_prompt.get(hit.node_id)
        row["in prompt"] = f"✔ [{number}]" if number else ""
        row["cited"] = "★" if hit.node_id in cited else ""
        rows.append(row)
    columns = ["rank", "source", "page / section", *STAGES.values(), "in prompt", "cited"]
    return pd.DataFrame(rows, columns=columns).set_index("rank")


def sources_html(hits: Sequence[Hit], answer: Answer | None = None) -> str:
    """The sources table as HTML (class `kit-sources-table`)."""
    if not hits:
        return "<p><i>No sources for this question.</i></p>"
    table = sources_frame(hits, answer).to_html(classes="kit-sources-table", border=0, index_names=False)
    return f"<b>Sources</b> (✔ = in the prompt as [n], ★ = cited in the answer){table}"


def prompt_tokens(messages: Sequence[dict[str, str]]) -> int:
    """Tokens of all messages (cl100k_base, the kit's tokenizer; chat-template tokens not counted)."""
    return sum(count_tokens(m["content"]) for m in messages)


def prompt_html(answer: Answer | None, budget: TokenBudget) -> str:
    """The exact messages sent to the model, with their token count against the budget."""
    if answer is None or not answer.messages:
        return "<p><i>No prompt was sent for this question.</i></p>"
    used = prompt_tokens(answer.messages)
    room = budget.total - budget.answer - budget.buffer
    head = (
        f"<p class='kit-prompt-tokens'><b>{used:,} prompt tokens</b> of {room:,} available "
        f"(window {budget.total:,} − {budget.answer} reserved for the answer − {budget.buffer} buffer); "
        f"context cap {budget.context:,}.</p>"
    )
    table = budget_table(list(answer.messages), budget, format_context([h.text for h in answer.hits]))
    pre = "<pre style='white-space: pre-wrap'>"
    turns = "".join(
        f"<div><b>{html.escape(m['role'])}</b>{pre}{html.escape(m['content'])}</pre></div>" for m in answer.messages
    )
    return head + table.to_html(border=0) + turns


def answer_html(answer: Answer) -> str:
    """The answer text and its numbered citations (each `kit-citation`)."""
    text = f"<div class='kit-answer-text'>{html.escape(answer.text)}</div>"
    if not answer.citations:
        return text
    items = "".join(f"<li class='kit-citation'>{html.escape(str(c))}</li>" for c in answer.citations)
    return f"{text}<ul class='kit-citations' style='list-style: none; padding-left: 0'>{items}</ul>"


def message_html(status: str, message: str) -> str:
    """A message for the student (class `kit-message` and `kit-message-<status>`)."""
    colour = MESSAGE_COLOURS.get(status, "#333")
    return f"<div class='kit-message kit-message-{status}' style='color: {colour}'>{html.escape(message)}</div>"


def no_hits_message(knobs: Knobs) -> str:
    """Why no passage was left, naming the knob that dropped them."""
    where = f" with the filter {knobs.filters()}" if knobs.filters() else ""
    return (
        f"No passage has a cosine similarity of at least {knobs.drop_below:.2f} to this question{where}: the knob "
        "'drop passages below cosine' dropped them all. Lower it, clear the filter, or rephrase."
    )


def refusal_message(knobs: Knobs, hits: Sequence[Hit]) -> str:
    """Why the model was not asked, naming the knob that refused."""
    return (
        f"The closest passage has a cosine similarity of {best_similarity(hits):.2f}, below 'refuse below cosine' "
        f"({knobs.refuse_below:.2f}), so the model was not asked."
    )


def floors_html(knobs: Knobs, hits: Sequence[Hit]) -> str:
    """The two cosine floors named apart, and where the best passage stands (class `kit-floors`)."""
    drop = f"{knobs.drop_below:.2f}" if knobs.drop_below > 0 else "0 (off)"
    best = f"; best passage {best_similarity(hits):.2f}" if hits else ""
    return (
        f"<div class='kit-floors' style='color: #555'>Cosine floors: drop passages below {drop} · "
        f"refuse below {knobs.refuse_below:.2f}{best}</div>"
    )
