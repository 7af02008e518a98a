"""SQuAD-style answer metrics with the official v1.1 normalisation: EM and token F1, best over the references; EM
and F1 against one reference are slots ("exact_match", "f1"), so a student's own score every answer once `use`d.
What it leaves out: semantic similarity and LLM judges (`helpers.evaluation.judge`, ragas).
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Sequence

from helpers.mechanisms import chosen

_PUNCTUATION = set(string.punctuation)


def normalize_answer(text: str) -> str:
    """Lower case, no punctuation, no articles, single spaces (as the SQuAD script)."""
    text = "".join(ch for ch in text.lower() if ch not in _PUNCTUATION)
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def _precision_recall_f1(prediction: str, reference: str) -> tuple[float, float, float]:
    pred_tokens = normalize_answer(prediction).split()
    ref_tokens = normalize_answer(reference).split()
    if not pred_tokens or not ref_tokens:
        same = float(pred_tokens == ref_tokens)
        return same, same, same
    common = sum((Counter(pred_tokens) & Counter(ref_tokens)).values())
    if common == 0:
        return 0.0, 0.0, 0.0
    precision, recall = common / len(pred_tokens), common / len(ref_tokens)
    return precision, recall, 2 * precision * recall / (precision + recall)


def squad_exact_match(prediction: str, reference: str) -> float:
    """The kit's "exact_match" slot: 1.0 when the normalised strings are equal, else 0.0."""
    return float(normalize_answer(prediction) == normalize_answer(reference))


def squad_f1(prediction: str, reference: str) -> float:
    """The kit's "f1" slot: token F1 of the normalised prediction against one normalised reference."""
    return _precision_recall_f1(prediction, reference)[2]


def exact_match(prediction: str, references: Sequence[str]) -> float:
    """1.0 when the normalised prediction equals any normalised reference (the "exact_match" slot per reference)."""
    match = chosen("exact_match", squad_exact_match)
    return max((float(match(prediction, r)) for r in references), default=0.0)


def f1_score(prediction: str, references: Sequence[str]) -> float:
    """Best token F1 of the prediction against the references (the "f1" slot per reference)."""
    f1 = chosen("f1", squad_f1)
    return max((float(f1(prediction, r)) for r in references), default=0.0)


def squad_scores(prediction: str, references: Sequence[str]) -> dict[str, float]:
    """EM and F1 (the slots in force), precision and recall (of the reference the kit's F1 finds best)."""
    best = max((_precision_recall_f1(prediction, r) for r in references), key=lambda t: t[2], default=(0, 0, 0))
    em, f1 = exact_match(prediction, references), f1_score(prediction, references)
    return {"em": em, "f1": f1, "precision": best[0], "recall": best[1]}


def answer_support(prediction: str, context: str) -> float:
    """The share of the prediction's normalised words that occur in `context` (a grounding check needing no model).

    >>> answer_support("May 24", "Classes end on May 24, 2025.")
    1.0
    """
    words = normalize_answer(prediction).split()
    if not words:
        return 0.0
    seen = set(normalize_answer(context).split())
    return sum(word in seen for word in words) / len(words)
