"""SQuAD-style answer metrics, with the normalisation of the official SQuAD v1.1 script.

Normalise (lower case, drop punctuation, drop the articles a/an/the, collapse white space), then
EM = the strings are equal, F1 = harmonic mean of token precision and recall. With several reference
answers a prediction gets its best score over them.
What it leaves out: semantic similarity and LLM judges (`helpers.evaluation.judge`, ragas).
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Sequence

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


def exact_match(prediction: str, references: Sequence[str]) -> float:
    """1.0 when the normalised prediction equals any normalised reference."""
    return float(any(normalize_answer(prediction) == normalize_answer(r) for r in references))


def f1_score(prediction: str, references: Sequence[str]) -> float:
    """Best token F1 of the prediction against the references."""
    return max((_precision_recall_f1(prediction, r)[2] for r in references), default=0.0)


def squad_scores(prediction: str, references: Sequence[str]) -> dict[str, float]:
    """EM, F1, precision and recall (the F1-best reference's precision and recall)."""
    best = max((_precision_recall_f1(prediction, r) for r in references), key=lambda t: t[2], default=(0, 0, 0))
    return {"em": exact_match(prediction, references), "f1": best[2], "precision": best[0], "recall": best[1]}
