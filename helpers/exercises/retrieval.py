"""The self-checks of notebook 05: BM25, min-max fusion and RRF written by hand, and the exercises after them.

A hand-written mechanism is compared with the kit's on made-up and real cases, a wrong one named by the slip it
matches; the other checks measure again what an answer claims (a synonym rule must not lower dev recall@5).
What it leaves out: whether a dedupe retrieves better on the whole split, and the synonym rule on the test split.
"""

from __future__ import annotations

import math
import operator
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from helpers.corpus import Question, load_gold
from helpers.exercises.base import (
    as_choice,
    function_problem,
    keeps,
    measured_problem,
    not_yet,
    require,
    require_answer,
    result_of,
    right,
    self_check,
)
from helpers.lab.retrieval import evaluate
from helpers.metrics import RetrievalScores, recall_at_k, relevance_labels
from helpers.retrieval.base import Retriever
from helpers.retrieval.bm25 import bm25_scores
from helpers.retrieval.expansion import Expanded, expand_query, load_synonyms
from helpers.retrieval.hybrid import min_max_fusion, rrf_scores
from helpers.retrieval.postprocess import dedupe_by_source
from helpers.types import Hit

# --- what the three hand-written mechanisms' checks share ------------------------------------------------------


def cases_verdict(function: object, name: str, problem_on: Callable[..., str | None], made_up: Sequence[tuple],
                  real: Callable[[], Sequence[tuple]], real_what: str, message: str) -> bool:  # fmt: skip
    """Right when `problem_on(function, *case)` finds nothing off on every made-up and real case (`real()`, built
    once `function` is a function); `message` says what it got right, "{checked}" filled in with the counts."""
    require(function_problem(function, name))
    cases = [*made_up, *real()]
    for case in cases:
        require(problem_on(function, *case))
    real_count = len(cases) - len(made_up)
    checked = f"{len(made_up)} made-up cases" + (f" and {real_count} {real_what}" if real_count else "")
    return right(message.format(checked=checked))


def real_cases(dense: Retriever | None, sparse: Retriever | None, questions: Sequence[Question],
               case: Callable[[str, Scores, Scores], tuple], depth: int = 30) -> Callable[[], list[tuple]]:  # fmt: skip
    """The real cases of a fusion check, built when called: `case(id, dense scores, BM25 scores)` of each question's
    top `depth` on each side, as fusion gets them (none without both retrievers)."""

    def top(retriever: Retriever, question: Question, stage: str) -> Scores:
        return {h.node_id: h.scores[stage] for h in retriever.retrieve(question.question, depth)}

    def build() -> list[tuple]:
        if dense is None or sparse is None:
            return []
        return [case(q.id, top(dense, q, "dense"), top(sparse, q, "sparse")) for q in questions]

    return build


# --- exercise 1: BM25 by hand (the slot "bm25") -------------------------------------------------------------------

BM25Function = Callable[[list[str], list[list[str]], float, float], Any]
TOY_DOCUMENTS = [
    ["ads530", "machine", "learning", "meets", "mdc120", "tuesdays"],
    ["ads510", "data", "engineering", "meets", "mdc110", "mondays"],
    ["fee", "530", "paid", "mdc", "front", "desk", "fee", "deadline", "fee"],
    ["capstone", "studio", "teams", "three", "five", "students", "capstone", "sponsor", "project", "report", "week"],
]  # fmt: skip
BM25Case = tuple[str, list[str], list[list[str]], float, float]


def bm25_cases() -> list[BM25Case]:
    """(what the case tests, query tokens, documents, k1, b): small made-up cases, each with a known trap."""
    return [
        ("a two-word query", ["ads530", "meets"], TOY_DOCUMENTS, 1.5, 0.75),
        ("a query word repeated", ["fee", "fee", "capstone"], TOY_DOCUMENTS, 1.5, 0.75),
        ("a word in half of the documents", ["meets"], TOY_DOCUMENTS, 1.5, 0.75),
        ("a word no document has", ["zoom", "fee"], TOY_DOCUMENTS, 1.5, 0.75),
        ("b = 0 and k1 = 1.2", ["fee", "capstone"], TOY_DOCUMENTS, 1.2, 0.0),
        ("b = 1 and k1 = 2", ["capstone", "mdc", "fee"], TOY_DOCUMENTS, 2.0, 1.0),
        ("an empty query", [], TOY_DOCUMENTS, 1.5, 0.75),
        ("no documents at all", ["fee"], [], 1.5, 0.75),
    ]


def bm25_variant(
    query: list[str], documents: list[list[str]], k1: float, b: float, idf: str = "lucene",
    times_k1_plus_1: bool = False, length: bool = True, saturate: bool = True, once: bool = False,
) -> np.ndarray:  # fmt: skip
    """BM25 with one of the usual slips switched on (all off: the kit's formula), to recognise a wrong answer."""
    scores = np.zeros(len(documents))
    lengths = np.array([len(document) for document in documents], dtype=float)
    if not documents or not lengths.any():
        return scores
    counts = [Counter(document) for document in documents]
    for token in dict.fromkeys(query) if once else query:
        tf = np.array([count[token] for count in counts], dtype=float)
        df = np.count_nonzero(tf)
        if not df:
            continue
        ratio = (len(documents) - df + 0.5) / (df + 0.5)
        weight = {"lucene": math.log(1 + ratio), "robertson": math.log(ratio)}.get(idf, math.log(len(documents) / df))
        discount = k1 * ((1 - b + b * lengths / lengths.mean()) if length else 1.0)
        part = np.divide(tf, tf + discount, out=np.zeros_like(tf), where=tf > 0) if saturate else tf
        scores += weight * part * ((k1 + 1) if times_k1_plus_1 else 1.0)
    return scores


BM25_SLIPS: list[tuple[dict[str, Any], str]] = [
    ({"times_k1_plus_1": True}, "off by the constant factor k1 + 1: the form bm25s uses (Lucene's) leaves it out of "
     "the numerator"),
    ({"idf": "robertson"}, "the idf is log(1 + (N − df + 0.5) / (df + 0.5)): without the 1 + a word in half the "
     "documents weighs nothing, and a commoner one less than nothing"),
    ({"idf": "plain"}, "BM25's idf is log(1 + (N − df + 0.5) / (df + 0.5)), not log(N / df)"),
    ({"length": False}, "long documents are not discounted: k1 is multiplied by (1 − b + b · length / average length)"),
    ({"saturate": False}, "a word's count should saturate — tf / (tf + k1 · …) — not count in full"),
    ({"once": True}, "a query word that appears twice counts twice: loop over the query as given, not over a set"),
]  # fmt: skip


def _as_scores(got: object, count: int) -> tuple[np.ndarray, str | None]:
    """The student's result as an array of `count` floats, or why it is not one."""
    if isinstance(got, Mapping | str) or not hasattr(got, "__len__"):
        return np.zeros(0), f"return one score per document (an array or a list of numbers), not a {type(got).__name__}"
    try:
        scores = np.asarray(got, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        return np.zeros(0), "return one score per document: a numpy array or a list of numbers"
    if len(scores) != count:
        return scores, f"{len(scores)} scores for {count} documents: return exactly one score per document"
    return scores, None


def _bm25_problem(function: BM25Function, name: str, query: list[str], documents: list[list[str]],
                  k1: float, b: float) -> str | None:  # fmt: skip
    """What is off with the student's BM25 on one case (None: right)."""
    got = result_of(function, list(query), [list(d) for d in documents], k1, b, after=f" (on {name})")
    scores, problem = _as_scores(got, len(documents))
    if problem:
        return f"{problem} (on {name})"
    if np.isnan(scores).any():
        return f"some scores are NaN on {name}: a division by zero? A word no document has adds 0"
    expected = bm25_scores(query, documents, k1, b)
    if np.allclose(scores, expected, rtol=1e-6, atol=1e-9):
        return None
    for slip, hint in BM25_SLIPS:
        wrong = bm25_variant(query, documents, k1, b, **slip)
        if np.allclose(scores, wrong, rtol=1e-6, atol=1e-9) and not np.allclose(wrong, expected, rtol=1e-6):
            return f"{hint} (on {name})"
    return f"the scores differ from BM25 on {name}: check the idf, the saturating tf and the length discount"


@keeps("bm25")
@self_check
def check_bm25(function: BM25Function | None, retriever: Any = None, questions: Sequence[Question] = (),
               how_many: int = 6) -> bool:  # fmt: skip
    """Right when `function(query, documents, k1, b)` gives the kit's BM25 on made-up cases and on the first
    `how_many` questions, tokenized by `retriever` (a BM25Retriever), over its chunks."""

    def real() -> list[BM25Case]:
        if retriever is None:
            return []
        documents, tokenize = retriever.documents, retriever.tokenizer
        return [(f"dev question {q.id} over the {len(documents)} chunks", tokenize(q.question), documents,
                 retriever.k1, retriever.b) for q in list(questions)[:how_many]]  # fmt: skip

    return cases_verdict(function, "bm25_scores", _bm25_problem, bm25_cases(), real, "dev questions over the chunks",
                         "your BM25 gives the kit's scores on {checked}.")  # fmt: skip


# --- exercise 2: min-max fusion (the slot "fusion") ---------------------------------------------------------------

Scores = dict[str, float]
FusionFunction = Callable[[Scores, Scores, float], Any]
TOY_DENSE: Scores = {"a": 0.82, "b": 0.75, "c": 0.40}
TOY_SPARSE: Scores = {"b": 12.0, "d": 9.0, "a": 3.0}
FusionCase = tuple[str, Scores, Scores, float]


def fusion_cases() -> list[FusionCase]:
    """(what the case tests, dense scores, BM25 scores, alpha): small made-up cases."""
    return [
        ("the toy lists, alpha 0.6", TOY_DENSE, TOY_SPARSE, 0.6),
        ("alpha 1 (dense only)", TOY_DENSE, TOY_SPARSE, 1.0),
        ("alpha 0 (BM25 only)", TOY_DENSE, TOY_SPARSE, 0.0),
        ("a BM25 list of one hit", TOY_DENSE, {"d": 7.5}, 0.5),
        ("no BM25 hits at all", TOY_DENSE, {}, 0.5),
        ("no hits on either side", {}, {}, 0.5),
    ]


def _scaled(scores: Scores, how: str) -> Scores:
    """A wrong normalisation: none ("raw"), by the maximum only ("max"), or min-max with 0 for equal scores."""
    values = list(scores.values())
    if how == "raw" or not values:
        return dict(scores)
    low, high = min(values), max(values)
    if how == "max":
        return {key: value / high if high else 0.0 for key, value in scores.items()}
    return {key: (value - low) / (high - low) if high > low else 0.0 for key, value in scores.items()}


def fusion_slips(dense: Scores, sparse: Scores, alpha: float) -> dict[str, Scores]:
    """What the usual wrong fusions give, each keyed by the hint that explains it."""

    def weigh(d: Scores, s: Scores, a: float) -> Scores:
        return {key: a * d.get(key, 0.0) + (1 - a) * s.get(key, 0.0) for key in d | s}

    return {
        "the scores are not min-max normalised: cosine and BM25 live on different scales, so scale each side to "
        "[0, 1] first": weigh(_scaled(dense, "raw"), _scaled(sparse, "raw"), alpha),
        "alpha weighs the dense side: alpha · dense + (1 − alpha) · BM25": min_max_fusion(dense, sparse, 1 - alpha),
        "min-max subtracts the lowest score first: (s − min) / (max − min)":
            weigh(_scaled(dense, "max"), _scaled(sparse, "max"), alpha),
        "when all of a side's scores are equal (a single hit, say), each becomes 1.0, as in the kit's min_max":
            weigh(_scaled(dense, "zero"), _scaled(sparse, "zero"), alpha),
    }  # fmt: skip


def _same_scores(got: Mapping[str, Any], expected: Scores) -> bool:
    """Whether two id -> score maps hold the same ids and (within float error) the same scores."""
    return set(got) == set(expected) and all(math.isclose(float(got[k]), v, abs_tol=1e-9) for k, v in expected.items())


def _score_map_problem(got: object, expected: Scores, sides: Sequence[Scores], name: str) -> str | None:
    """What is off with the shape of a fusion's answer: not a dict, ids missing or extra, not numbers, NaN."""
    if not isinstance(got, Mapping):
        return f"return a dict of id -> fused score, got a {type(got).__name__} (on {name})"
    missing, extra = set(expected) - set(got), set(got) - set(expected)
    if missing:
        only_one = any(missing <= set(side) - set().union(*(set(o) for o in sides if o is not side)) for side in sides)
        where = " — e.g. those only one side returned, which get 0 from the other" if only_one else ""
        return f"{len(missing)} ids are missing on {name}: every id of every input gets a score{where}"
    if extra:
        return f"ids no input returned are in the answer on {name}: score only the ids you were given"
    try:
        values = [float(value) for value in got.values()]
    except (TypeError, ValueError):
        return f"the fused scores must be numbers (on {name})"
    if any(math.isnan(value) for value in values):
        return f"some fused scores are NaN on {name}: a division by zero? (all scores of a side equal → 1.0)"
    return None


def _fused_problem(got: object, expected: Scores, sides: Sequence[Scores], slips: Callable[[], dict[str, Scores]],
                   name: str, differ: str) -> str | None:  # fmt: skip
    """What is off with a fused answer (None: right): its shape, else the usual slip it matches, else `differ`."""
    problem = _score_map_problem(got, expected, sides, name)
    if problem or _same_scores(got, expected):  # type: ignore[arg-type]
        return problem
    for hint, wrong in slips().items():
        if _same_scores(got, wrong) and not _same_scores(wrong, expected):  # type: ignore[arg-type]
            return f"{hint} (on {name})"
    return differ


def _fusion_problem(function: FusionFunction, name: str, dense: Scores, sparse: Scores, alpha: float) -> str | None:
    """What is off with the student's fusion on one case (None: right)."""
    got = result_of(function, dict(dense), dict(sparse), alpha, after=f" (on {name})")
    return _fused_problem(got, min_max_fusion(dense, sparse, alpha), (dense, sparse),
                          lambda: fusion_slips(dense, sparse, alpha), name,
                          f"the fused scores differ on {name}: min-max each side, then alpha · dense + "
                          "(1 − alpha) · BM25")  # fmt: skip


@keeps("fusion")
@self_check
def check_min_max_fusion(function: FusionFunction | None, dense: Retriever | None = None,
                         sparse: Retriever | None = None, questions: Sequence[Question] = (),
                         how_many: int = 6) -> bool:  # fmt: skip
    """Right when `function(dense, sparse, alpha)` gives the kit's min-max fusion on made-up and real score lists."""
    real = real_cases(dense, sparse, list(questions)[:how_many],
                      lambda qid, d, s: (f"the hits of dev question {qid}, alpha 0.5", d, s, 0.5))  # fmt: skip
    return cases_verdict(function, "min_max_fusion", _fusion_problem, fusion_cases(), real, "dev questions' hits",
                         "your fusion gives the kit's fused scores on {checked}.")  # fmt: skip


# --- exercise 3: reciprocal rank fusion (the slot "rrf") ----------------------------------------------------------

RRFFunction = Callable[[list[list[str]], int], Any]
RRFCase = tuple[str, list[list[str]], int]


def rrf_cases() -> list[RRFCase]:
    """(what the case tests, rankings, k): small made-up cases."""
    return [
        ("two rankings, k 60", [["a", "b", "c"], ["b", "d", "a"]], 60),
        ("two rankings, k 1", [["a", "b", "c"], ["b", "d", "a"]], 1),
        ("three rankings of different lengths, k 10", [["a"], ["c", "a", "e", "f"], ["f", "c"]], 10),
        ("one ranking", [["x", "y"]], 60),
        ("an empty ranking beside another", [[], ["p", "q"]], 60),
        ("no rankings at all", [], 60),
    ]


def rrf_slips(rankings: list[list[str]], k: int) -> dict[str, Scores]:
    """What the usual wrong RRFs give, each keyed by the hint that explains it."""

    def fuse(term: Callable[[int], float], combine: Callable[[float, float], float]) -> Scores:
        fused: Scores = {}
        for ranking in rankings:
            for rank, key in enumerate(ranking, start=1):
                fused[key] = combine(fused[key], term(rank)) if key in fused else term(rank)
        return fused

    return {
        "ranks count from 1 (the best hit has rank 1): 1 / (k + rank)": fuse(lambda r: 1 / (k + r - 1), operator.add),
        "the constant k belongs in the denominator: 1 / (k + rank)": fuse(lambda r: 1 / r, operator.add),
        "a chunk in several rankings adds 1 / (k + rank) for each, not only its best":
            fuse(lambda r: 1 / (k + r), max),
        "a chunk in several rankings adds up its terms: the later ranking must not overwrite the earlier":
            fuse(lambda r: 1 / (k + r), lambda a, b: b),
    }  # fmt: skip


def _rrf_problem(function: RRFFunction, name: str, rankings: list[list[str]], k: int) -> str | None:
    """What is off with the student's RRF on one case (None: right)."""
    got = result_of(function, [list(r) for r in rankings], k, after=f" (on {name})")
    return _fused_problem(got, rrf_scores(rankings, k), [dict.fromkeys(r, 0.0) for r in rankings],
                          lambda: rrf_slips(rankings, k), name,
                          f"the RRF scores differ on {name}: each id sums 1 / (k + rank) over the rankings that "
                          "hold it")  # fmt: skip


@keeps("rrf")
@self_check
def check_rrf(function: RRFFunction | None, dense: Retriever | None = None, sparse: Retriever | None = None,
              questions: Sequence[Question] = (), how_many: int = 6) -> bool:  # fmt: skip
    """Right when `function(rankings, k)` gives the kit's reciprocal rank fusion on made-up and real rankings."""

    def case(qid: str, d: Scores, s: Scores) -> RRFCase:
        return f"the rankings of dev question {qid}, k 60", [list(d), list(s)], 60

    real = real_cases(dense, sparse, list(questions)[:how_many], case)
    return cases_verdict(function, "rrf_scores", _rrf_problem, rrf_cases(), real, "dev questions' rankings",
                         "your RRF gives the kit's scores on {checked}.")  # fmt: skip


# --- exercise 4: the RRF constant ---------------------------------------------------------------------------------

RRF_CONSTANTS = (10, 60, 100)


def scores_by_rrf_k(make: Callable[[int], Retriever], questions: Sequence[Question],
                    constants: Sequence[int] = RRF_CONSTANTS) -> dict[int, dict[str, float]]:  # fmt: skip
    """recall@5 and MRR of the top 10 of `make(rrf_k)` for each constant, rounded as the notebook's table shows."""
    means = {constant: evaluate(make(constant), questions).mean() for constant in constants}
    return {k: {"recall@5": round(float(m["recall@5"]), 3), "mrr": round(float(m["mrr"]), 3)} for k, m in means.items()}


@self_check
def check_best_rrf_k(answer: object, make: Callable[[int], Retriever], questions: Sequence[Question],
                     constants: Sequence[int] = RRF_CONSTANTS, recall: object = None) -> bool:  # fmt: skip
    """Right when `answer` is the constant with the best recall@5 (ties: MRR) and `recall` is its recall@5."""
    one = "the answer is one rrf_k, a whole number (not a label)"
    choice = as_choice(answer, constants, one, "measure the constants the exercise names ({choices}) and pick one")
    rows = scores_by_rrf_k(make, questions, constants)
    require(measured_problem(recall, rows[choice]["recall@5"], "best_rrf_recall (its recall@5)"))
    top_recall = max(row["recall@5"] for row in rows.values())
    tied = {k for k, row in rows.items() if row["recall@5"] == top_recall}
    best = {k for k in tied if rows[k]["mrr"] == max(rows[t]["mrr"] for t in tied)}
    if choice in best:
        answerable = sum(1 for q in questions if q.evidence)
        return right(f"rrf_k={choice} has the best recall@5 on these {answerable} questions with evidence.")
    if choice in tied:
        return not_yet("tied on recall@5 — the tie-break is MRR")
    return not_yet("not the best of the three on recall@5: measure all three on the same questions and compare "
                   "their recall@5 (ties: MRR)")  # fmt: skip


# --- exercise 5: a question every retriever misses, and a synonym rule for it -------------------------------------


@self_check
def check_missed_by_all(answer: object, results: Mapping[str, RetrievalScores], k: int = 5) -> bool:
    """Right when `answer` is the id of a dev question that every retriever of `results` misses in its top k."""
    require_answer(answer)
    if not isinstance(answer, str):
        return not_yet(f"give the question's id (a string, as in results[name].per_question['id']), got a "
                       f"{type(answer).__name__}")  # fmt: skip
    table = _recall_table(results, k)
    if answer not in table:
        return not_yet(f"{answer!r} is not a dev question with evidence: take an id from results[name].per_question")
    finders = [name for name, recall in table[answer].items() if recall > 0]
    if finders:
        return not_yet(f"{len(finders)} of the {len(results)} retrievers find some of its evidence in their top {k} "
                       f"(e.g. {finders[0]!r}): pick a question whose recall@{k} is 0 in every row")  # fmt: skip
    return right(f"all {len(results)} retrievers miss the evidence of {answer} in their top {k}.")


def _recall_table(results: Mapping[str, RetrievalScores], k: int) -> dict[str, dict[str, float]]:
    """question id -> {retriever: recall@k}."""
    table: dict[str, dict[str, float]] = {}
    for name, scores in results.items():
        frame = scores.per_question
        for qid, recall in zip(frame["id"], frame[f"recall@{k}"], strict=True):
            table.setdefault(str(qid), {})[name] = float(recall)
    return table


def _rule_problem(rule: object) -> str | None:
    """Why `rule` is not a (phrase, words to add) pair of non-empty strings (None when it is)."""
    if not isinstance(rule, tuple | list) or len(rule) != 2 or not all(isinstance(part, str) for part in rule):
        return "the rule is a pair of strings: (the phrase a student writes, the words the documents use)"
    if not all(part.strip() for part in rule):
        return "both the phrase and the words to add need some text"
    return None


def _recall(retriever: Any, question: Question, k: int) -> float:
    """recall@k of `retriever` (asked for its top k) on one question with evidence."""
    hits = retriever.retrieve(question.question, k)
    return recall_at_k(relevance_labels(hits, question.evidence), k, len(question.evidence))


def split_change(rule: tuple[str, str], retriever: Retriever, k: int = 5) -> tuple[int, int, float]:
    """(questions the rule changes, of them those whose recall@k falls, the change of mean recall@k) over the whole
    dev split with evidence: the synonym table with the rule against the table without it."""
    table = load_synonyms()
    ruled = table | {rule[0]: rule[1]}
    dev = [q for q in load_gold(split="dev") if q.evidence]
    changed = [q for q in dev if expand_query(q.question, ruled) != expand_query(q.question, table)]
    before, after = Expanded(retriever, table), Expanded(retriever, ruled)
    deltas = [_recall(after, q, k) - _recall(before, q, k) for q in changed]
    return len(changed), sum(d < 0 for d in deltas), sum(deltas) / len(dev) if dev else 0.0


@self_check
def check_synonym_rule(rule: object, question_id: object, questions: Sequence[Question], retriever: Retriever,
                       k: int = 5) -> bool:  # fmt: skip
    """Right when `rule` (phrase, words to add) fires on the question, brings some of its evidence into the top k
    of `retriever` with query expansion, and does not lower mean recall@k over the whole dev split."""
    require_answer(rule)
    require(_rule_problem(rule))
    question = next((q for q in questions if q.id == question_id and q.evidence), None)
    if question is None:
        return not_yet("first find the question the rule is for (the id above): a dev question with evidence")
    phrase, adds = (part.strip() for part in rule)  # type: ignore[union-attr]
    if expand_query(question.question, {phrase: adds}) == question.question:
        return not_yet("the rule does not change the question: its phrase must occur in it as whole words (any case), "
                       "and the words to add must not be in it already")  # fmt: skip
    recall = _recall(Expanded(retriever, load_synonyms() | {phrase: adds}), question, k)
    if recall == 0:
        return not_yet(f"the rule fires, but the evidence is still not in the top {k}: add the words the evidence "
                       "itself uses (read question.evidence)")  # fmt: skip
    fired, worse, change = split_change((phrase, adds), retriever, k)
    if change < 0:
        return not_yet(
            f"the rule fits {question.id} but costs the dev split: it fires on {fired} dev questions and {worse} of "
            f"them lose evidence from the top {k}, so mean recall@{k} falls: pair a phrase students write with the "
            "documents' word for it, not with words copied from one passage"
        )
    return right(f"the rule fires on {question.id} and brings its evidence into the top {k} (recall@{k} "
                 f"{recall:.2f}); on the whole dev split it fires on {fired} questions, {worse} of them lose "
                 f"evidence, and mean recall@{k} does not fall.")  # fmt: skip


# --- exercise 6: dedupe by page ----------------------------------------------------------------------------------

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
    require(function_problem(function, "dedupe_by_page"))
    for name, ranking in (("the made-up ranking", made_up_hits()), ("the real hits", list(hits))):
        if not ranking:
            continue
        got = result_of(function, list(ranking))  # type: ignore[arg-type]
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
    return right(f"the best chunk of each (source, page), best first, on {checked}.")
