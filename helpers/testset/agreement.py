"""The agreement check: a second, independent LLM pass answers each kept question from its chunk, and SQuAD EM
and F1 between the two answers flag an ambiguous question or a wrong first answer.
What it leaves out: a person as the second annotator (the review widget is where one would come in).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
from tqdm.auto import tqdm

from helpers.llm.cache import CachedCompleter
from helpers.metrics import exact_match, f1_score
from helpers.testset.generate import Generated, QAWriter, passage
from helpers.types import Hit

ANSWER_PROMPT = (
    "Answer the question using only the passage. Reply with the shortest phrase from the passage that answers "
    "it (a few words, no sentence). If the passage does not answer it, reply unknown.\n\n"
    "Passage:\n{passage}\n\nQuestion: {question}"
)


def second_pass(writer: QAWriter, pairs: Sequence[Generated], progress: bool = True) -> list[str]:
    """The second pass's answer to each pair's question, read from the same chunk with another prompt."""
    llm = CachedCompleter(lambda: writer.llm, writer.settings.llm.name, writer.cache)
    answers = []
    for pair in tqdm(pairs, desc="second pass answers", disable=not progress):
        chunk = Hit(pair.chunk_id, pair.chunk_text, {})
        prompt = ANSWER_PROMPT.format(passage=passage(chunk), question=pair.question)
        text = llm.complete([{"role": "user", "content": prompt}], max_tokens=32).strip()
        answers.append(text.splitlines()[0].strip() if text else "")
    return answers


def agreement(pairs: Sequence[Generated], second: Sequence[str]) -> pd.DataFrame:
    """Per question: both answers, exact match and F1 between them."""
    rows = [
        {"question": p.question, "first": p.answer, "second": s, "em": exact_match(s, [p.answer]),
         "f1": f1_score(s, [p.answer])}
        for p, s in zip(pairs, second, strict=True)
    ]  # fmt: skip
    return pd.DataFrame(rows, columns=["question", "first", "second", "em", "f1"])
