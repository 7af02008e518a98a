"""The self-checks of notebook 05: BM25, min-max fusion and RRF written by hand, and the exercises after them.

The three functions the student writes fill the slots "bm25", "fusion" and "rrf" (helpers.mechanisms); each
check calls the student's function on small made-up cases (an empty input, a side with one hit, a repeated
query word, a word no document has) and on real ones (dev questions over the course chunks), compares it with
the kit's reference (`helpers.retrieval.bm25.bm25_scores`, `helpers.retrieval.hybrid.min_max_fusion`,
`rrf_scores`), and names the usual slip — idf without its "1 +", a numerator with k1 + 1, no length discount,
scores not normalised, ranks counted from 0 — without printing the expected values.
`check_best_rrf_k` measures recall@5 for each RRF constant again; `check_missed_by_all` and
`check_synonym_rule` read the table of retrievers and try the student's synonym rule on the question it is for;
`check_dedupe_by_page(dedupe_by_page, hits)` runs the student's dedupe on a made-up ranking (two pages of one
PDF, chunks with no page number) and on real hits, against the best-scoring hit of each (source, page).
What it leaves out: whether a rule or a dedupe retrieves better on the whole split, which the notebook measures,
and whether a synonym rule is general, which the student answers in prose.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from helpers.corpus import Question
from helpers.exercises.base import STUB_HINT, as_count, call_student, function_problem, not_yet, self_check, verdict
from helpers.metrics import RetrievalScores, evaluate_retrieval, recall_at_k, relevance_labels
from helpers.retrieval.base import Retriever
from helpers.retrieval.bm25 import bm25_scores
from helpers.retrieval.expansion import Expanded, expand_query, load_synonyms
from helpers.retrieval.hybrid import min_max_fusion, rrf_scores
from helpers.retrieval.postprocess import dedupe_by_source
from helpers.types import Hit

Dedupe = Callable[[Sequence[Hit]], list[Hit]]


def best_per_page(hits: Sequence[Hit]) -> list[Hit]:
    """The reference: the best-scoring hit of each (source, page), best first."""
    best: dict[tuple[str, object], Hit] = {}
    for hit in hits:
        key = (hit.source, hit.metadata.get("page"))
        if key not in best or hit.score > best[key].score:
            best[key] = hit
    return sorted(best.values(), key=lambda h: -h.score)


def made_up_hits() -> list[Hit]:
    """A ranking with two handbook pages holding two chunks each, an e-mail and a web page without pages."""
    rows = [
        ("h3a", "handbook.pdf", 3, 0.91), ("mail1", "advising.eml", None, 0.88), ("h4a", "handbook.pdf", 4, 0.86),
        ("h3b", "handbook.pdf", 3, 0.83), ("web", "fees.html", None, 0.80), ("mail2", "advising.eml", None, 0.79),
        ("h4b", "handbook.pdf", 4, 0.95), ("h9", "handbook.pdf", 9, 0.40),
    ]  # fmt: skip
    hits = []
    for node_id, source, page, score in rows:
        metadata: dict[str, object] = {"source": source} | ({"page": page} if page is not None else {})
        hits.append(Hit(node_id, f"text of {node_id}", metadata, {"fused": score}))
    return hits


def _ids(hits: object) -> list[str] | None:
    """The node ids of a list of hits, or None when it is not one."""
    if not isinstance(hits, list | tuple) or not all(isinstance(h, Hit) for h in hits):
        return None
    return [h.node_id for h in hits]


@self_check
def check_dedupe_by_page(function: Dedupe | None, hits: Sequence[Hit] = ()) -> bool:
    """Right when `function(hits)` keeps the best hit of each (source, page), best first, on made-up and real hits."""
    problem = function_problem(function, "dedupe_by_page")
    if problem:
        return not_yet(problem)
    for name, ranking in (("the made-up ranking", made_up_hits()), ("the real hits", list(hits))):
        if not ranking:
            continue
        got, error = call_student(function, list(ranking))  # type: ignore[arg-type]
        if error:
            return not_yet(error)
        ids, expected = _ids(got), [h.node_id for h in best_per_page(ranking)]
        if ids is None:
            return not_yet(f"return a list of Hit objects (the kept ones), got {type(got).__name__}")
        if ids == expected:
            continue
        if ids == [h.node_id for h in dedupe_by_source(ranking)] and ids != expected:
            return not_yet("that keeps one chunk per file, like dedupe_by_source: key on (source, page) instead")
        if sorted(ids) == sorted(expected):
            return not_yet(f"the right chunks of {name}, in the wrong order: best score first (hit.score)")
        if len(ids) < len(expected) and set(ids) < set(expected):
            return not_yet(f"chunks are missing on {name}: a chunk with no page is still kept, once per (source, page)")
        if len(ids) == len(expected):
            return not_yet(f"one chunk per (source, page), but not always the best-scoring one ({name})")
        return not_yet(f"{'too many' if len(ids) > len(expected) else 'too few'} chunks kept on {name}")
    checked = "the made-up ranking" + (f" and {len(hits)} real hits" if hits else "")
    return verdict(True, f"the best chunk of each (source, page), best first, on {checked}.", "")
