"""Notebook 05's slots drive what it measures: BM25 scoring ("bm25"), min-max fusion ("fusion") and RRF ("rrf").

For each slot: the kit's reference, looked up through `chosen`, gives the results the kit gave before it had
slots (BM25: the reference agrees with bm25s on the course corpus, and the default path is bm25s itself); a
deliberately wrong function registered with `use` moves the metric the notebook reports (recall@5 on a seeded
gold subset of the dev questions); `reset` brings it back. The pipeline's and the app's hybrid retrievers run on a
registered function. Then the self-checks of the notebook's exercises: right on the instructor's answer, "not
yet" with the slip named (never the expected values) on stubs and typical mistakes.
What it leaves out: the notebook itself (nbval runs it) and the exercise on dedupe by page (tests/test_checks.py).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from helpers.config import Settings, get_settings
from helpers.core import course_chunks
from helpers.corpus import Question, load_gold
from helpers.corpus.questions import question_subset
from helpers.embedding import Embedder
from helpers.exercises.retrieval import (
    BM25_SLIPS,
    TOY_DENSE,
    TOY_SPARSE,
    bm25_variant,
    check_best_rrf_k,
    check_bm25,
    check_min_max_fusion,
    check_missed_by_all,
    check_rrf,
    check_synonym_rule,
    split_change,
)
from helpers.lab.retrieval import evaluate
from helpers.mechanisms import in_use, reset, use
from helpers.metrics import RetrievalScores
from helpers.retrieval import BM25Retriever, HybridRetriever, Memoized, rrf_fusion, tokenize, weighted_fusion
from helpers.retrieval.bm25 import bm25_scores
from helpers.retrieval.hybrid import min_max_fusion, rrf_scores
from helpers.types import Hit

pytestmark = pytest.mark.usefixtures("kit_functions")  # tests/conftest.py


@pytest.fixture(scope="module")
def chunks() -> tuple[list[Hit], list[str]]:
    """Every chunk of the course corpus under the default chunking, and the text the embedder sees of each."""
    found = course_chunks(get_settings())
    hits = [Hit(str(i), chunk.text, {"source": chunk.source}) for i, chunk in enumerate(found)]
    return hits, [chunk.embedded or chunk.text for chunk in found]


@pytest.fixture(scope="module")
def bm25(chunks: tuple[list[Hit], list[str]]) -> BM25Retriever:
    """The kit's BM25 over the course chunks (bm25s, the default path)."""
    return BM25Retriever(*chunks)


class MatrixDense:
    """Exact dense search over the course chunks' shipped vectors (what the Qdrant collection holds)."""

    def __init__(self, chunks: tuple[list[Hit], list[str]]) -> None:
        self.hits, self.embedder = chunks[0], Embedder(get_settings())
        self.matrix = self.embedder.embed_texts(chunks[1])

    def retrieve(self, query: str, k: int, filters: dict | None = None) -> list[Hit]:
        scores = self.matrix @ self.embedder.embed_query(query)
        top = np.argsort(-scores, kind="stable")[:k]
        return [Hit(self.hits[i].node_id, self.hits[i].text, self.hits[i].metadata, {"dense": float(scores[i])})
                for i in top]  # fmt: skip


@pytest.fixture(scope="module")
def dense(chunks: tuple[list[Hit], list[str]]) -> Memoized:
    return Memoized(MatrixDense(chunks))


@pytest.fixture(scope="module")
def gold() -> list[Question]:
    """A seeded subset of the dev questions with evidence: at most three per category."""
    return question_subset([q for q in load_gold(split="dev") if q.evidence], per_category=3, seed=0)


def recall5(retriever: object, questions: list[Question]) -> float:
    """The notebook's headline metric: mean recall@5 of the top 10."""
    return float(evaluate(retriever, questions).mean()["recall@5"])  # type: ignore[arg-type]


def top5(retriever: object, questions: list[Question]) -> list[list[str]]:
    return [[h.node_id for h in retriever.retrieve(q.question, 5)] for q in questions]  # type: ignore[attr-defined]


# --- BM25 -------------------------------------------------------------------------------------------------------


def test_reference_bm25_agrees_with_bm25s_on_the_course_corpus(bm25: BM25Retriever) -> None:
    questions = question_subset(load_gold(split="dev"), per_category=4, seed=1)
    assert len(bm25.documents) > 1000 and len(questions) > 30
    for question in questions:
        tokens = tokenize(question.question)
        library = bm25.scores(question.question)  # nothing registered: the bm25s fast path
        assert np.array_equal(library, bm25.library_scores(tokens))
        np.testing.assert_allclose(bm25_scores(tokens, bm25.documents, 1.5, 0.75), library, rtol=1e-5, atol=1e-6)


def test_reference_bm25_edge_cases() -> None:
    assert bm25_scores(["fee"], [], 1.5, 0.75).shape == (0,)
    assert not bm25_scores(["zoom"], [["fee"], ["tuition", "fee"]], 1.5, 0.75).any()
    assert not bm25_scores(["fee"], [[], []], 1.5, 0.75).any()  # empty documents: no average length to divide by
    once, twice = (bm25_scores(q, [["fee", "due"], ["tuition"]], 0.0, 0.75) for q in (["fee"], ["fee", "fee"]))
    assert np.isfinite(once).all() and twice[0] == pytest.approx(2 * once[0])  # k1 = 0: binary tf, no 0 / 0


def test_bm25_slot_drives_recall_and_reset_restores_it(bm25: BM25Retriever, gold: list[Question]) -> None:
    kit_recall, kit_top = recall5(bm25, gold), top5(bm25, gold)
    use("bm25", bm25_scores, quiet=True)  # the reference, scored as a student's function would be
    assert recall5(bm25, gold) == kit_recall and top5(bm25, gold) == kit_top

    def first_word_only(query: list[str], documents: list[list[str]], k1: float, b: float) -> np.ndarray:
        return bm25_scores(query[:1], documents, k1, b)  # a slip: the loop returns after the first query word

    use("bm25", first_word_only, quiet=True)
    assert in_use() == {"bm25": "first_word_only"}
    assert recall5(bm25, gold) < kit_recall - 0.1
    reset("bm25")
    assert recall5(bm25, gold) == kit_recall and top5(bm25, gold) == kit_top


def test_a_registered_bm25_with_the_wrong_shape_gets_a_clear_message(bm25: BM25Retriever) -> None:
    use("bm25", lambda query, documents, k1, b: [1.0, 2.0], quiet=True)
    with pytest.raises(ValueError, match="one number per document"):
        bm25.retrieve("application fee", 5)


# --- fusion and RRF ---------------------------------------------------------------------------------------------


def test_kit_fusions_through_chosen_give_the_by_hand_numbers() -> None:
    toy_dense = [Hit(key, "", {}, {"dense": score}) for key, score in TOY_DENSE.items()]
    toy_sparse = [Hit(key, "", {}, {"sparse": score}) for key, score in TOY_SPARSE.items()]
    # dense normalised: a 1, b 0.9, c 0; sparse normalised: b 1, d 2/3, a 0
    by_hand = {"a": 0.6, "b": 0.6 * (0.35 / 0.42) + 0.4, "c": 0.0, "d": 0.4 * (6 / 9)}
    assert min_max_fusion(TOY_DENSE, TOY_SPARSE, 0.6) == pytest.approx(by_hand)
    fused = weighted_fusion(toy_dense, toy_sparse, alpha=0.6)
    assert {h.node_id: h.scores["fused"] for h in fused} == pytest.approx(by_hand)
    assert [h.node_id for h in fused] == ["b", "a", "d", "c"]
    rrf = {"a": 1 / 61 + 1 / 63, "b": 1 / 62 + 1 / 61, "c": 1 / 63, "d": 1 / 62}
    assert rrf_scores([list(TOY_DENSE), list(TOY_SPARSE)], 60) == pytest.approx(rrf)
    assert {h.node_id: h.scores["fused"] for h in rrf_fusion([toy_dense, toy_sparse], 60)} == pytest.approx(rrf)


def test_fusion_slot_drives_hybrid_recall_and_reset_restores_it(
    dense: Memoized, bm25: BM25Retriever, gold: list[Question]
) -> None:
    hybrid = HybridRetriever(dense, Memoized(bm25), "weighted", alpha=0.5, pool=30)
    kit_recall, kit_top = recall5(hybrid, gold), top5(hybrid, gold)
    use("fusion", min_max_fusion, quiet=True)
    assert top5(hybrid, gold) == kit_top

    def ignores_bm25(dense: dict[str, float], sparse: dict[str, float], alpha: float) -> dict[str, float]:
        return min_max_fusion(dense, {}, 1.0)  # a slip: the BM25 side never makes it into the sum

    use("fusion", ignores_bm25, quiet=True)
    moved = recall5(hybrid, gold)
    assert moved == recall5(dense, gold) and abs(moved - kit_recall) > 0.05
    reset("fusion")
    assert recall5(hybrid, gold) == kit_recall and top5(hybrid, gold) == kit_top


def test_rrf_slot_drives_hybrid_recall_and_reset_restores_it(
    dense: Memoized, bm25: BM25Retriever, gold: list[Question]
) -> None:
    hybrid = HybridRetriever(dense, Memoized(bm25), "rrf", rrf_k=60, pool=30)
    kit_recall, kit_top = recall5(hybrid, gold), top5(hybrid, gold)
    use("rrf", rrf_scores, quiet=True)
    assert top5(hybrid, gold) == kit_top

    def rank_from_zero_first_list(rankings: list[list[str]], k: int) -> dict[str, float]:
        return {key: 1 / (k + rank) for rank, key in enumerate(rankings[0])}  # a slip: only the first ranking

    use("rrf", rank_from_zero_first_list, quiet=True)
    assert abs(recall5(hybrid, gold) - kit_recall) > 0.05
    reset("rrf")
    assert recall5(hybrid, gold) == kit_recall and top5(hybrid, gold) == kit_top


def test_the_pipeline_and_the_app_run_on_registered_functions(tmp_settings: Settings, tiny_corpus: Path) -> None:
    from helpers.app.knobs import Knobs
    from helpers.app.search import SearchBuilder
    from helpers.pipeline import RAGPipeline

    pipeline = RAGPipeline(tmp_settings)
    try:
        pipeline.ingest(tiny_corpus, progress=False)
        builder = SearchBuilder(pipeline)
        use("fusion", lambda dense, sparse, alpha: {key: 7.0 for key in dense | sparse}, quiet=True)
        use("bm25", lambda query, documents, k1, b: np.full(len(documents), 3.0), quiet=True)
        for hits in (
            pipeline.make_retriever("hybrid").retrieve("application fee", k=2),
            builder.retrieve("application fee", Knobs(retriever="hybrid", k=2, rerank=False, multi_query=False)),
        ):
            assert hits and all(h.scores["fused"] == 7.0 for h in hits)
            assert all(h.scores.get("sparse") == 3.0 for h in hits if "sparse" in h.scores)
        use("rrf", lambda rankings, k: {key: 0.5 for ranking in rankings for key in ranking}, quiet=True)
        hits = pipeline.make_retriever("hybrid_rrf").retrieve("capstone teams", k=2)
        assert hits and all(h.scores["fused"] == 0.5 for h in hits)
        reset()
        assert pipeline.make_retriever("hybrid").retrieve("application fee", k=1)[0].scores["fused"] != 7.0
    finally:
        pipeline.close()


# --- the self-checks ------------------------------------------------------------------------------------------------


def said(capsys: pytest.CaptureFixture[str], right: bool, hint: str = "") -> str:
    out = capsys.readouterr().out
    assert out.startswith("✓ Right: " if right else "✗ Not yet: "), out
    assert hint in out, out
    return out


def test_check_bm25(capsys, bm25: BM25Retriever, gold: list[Question]) -> None:
    def stub(query: list[str], documents: list[list[str]], k1: float, b: float) -> np.ndarray:
        raise NotImplementedError

    assert check_bm25(bm25_scores, bm25, gold, how_many=3) is True
    said(capsys, True, "3 dev questions")
    assert check_bm25(None) is False and "still None" in said(capsys, False)
    assert check_bm25(stub) is False and "NotImplementedError" in said(capsys, False)
    for slip, hint in BM25_SLIPS:
        assert check_bm25(lambda q, d, k1, b, slip=slip: bm25_variant(q, d, k1, b, **slip)) is False
        said(capsys, False, hint)
    check_bm25(lambda q, d, k1, b: list(bm25_scores(q, d, k1, b))[:-1])
    said(capsys, False, "one score per document")
    check_bm25(lambda q, d, k1, b: {0: 1.0})
    said(capsys, False, "not a dict")
    check_bm25(lambda q, d, k1, b: np.full(len(d), np.nan))
    said(capsys, False, "NaN")
    assert check_bm25(lambda q, d, k1, b: bm25_scores(q, d, k1, b) + 0.5) is False
    out = said(capsys, False, "differ from BM25")
    assert not re.search(r"\d\.\d{3}", out)  # the verdict names what is off, never the scores

    def right_on_toys_only(q: list[str], d: list[list[str]], k1: float, b: float) -> np.ndarray:
        return bm25_scores(q, d, k1, b) if len(d) < 10 else bm25_scores(q[:1], d, k1, b)

    assert check_bm25(right_on_toys_only, bm25, gold) is False
    said(capsys, False, "over the")


def test_check_min_max_fusion(capsys, dense: Memoized, bm25: BM25Retriever, gold: list[Question]) -> None:
    assert check_min_max_fusion(min_max_fusion, dense, bm25, gold, how_many=3) is True
    said(capsys, True, "3 dev questions")
    assert check_min_max_fusion(None) is False
    said(capsys, False, "still None")

    def stub(dense: dict, sparse: dict, alpha: float) -> dict:
        raise NotImplementedError

    assert check_min_max_fusion(stub, dense, bm25, gold) is False
    said(capsys, False, "NotImplementedError")

    def raw(d: dict, s: dict, a: float) -> dict:
        return {key: a * d.get(key, 0.0) + (1 - a) * s.get(key, 0.0) for key in d | s}

    def max_only(d: dict, s: dict, a: float) -> dict:
        return raw({k: v / max(d.values()) for k, v in d.items()}, {k: v / max(s.values()) for k, v in s.items()}, a)

    def crashes_on_equal(d: dict, s: dict, a: float) -> dict:
        scale = lambda x: {k: (v - min(x.values())) / (max(x.values()) - min(x.values())) for k, v in x.items()}  # noqa: E731
        return raw(scale(d), scale(s), a)

    slips = {
        raw: "not min-max normalised",
        lambda d, s, a: min_max_fusion(d, s, 1 - a): "alpha weighs the dense side",
        max_only: "subtracts the lowest",
        crashes_on_equal: "ZeroDivisionError",
        lambda d, s, a: {k: v for k, v in min_max_fusion(d, s, a).items() if k in d}: "ids are missing",
        lambda d, s, a: list(min_max_fusion(d, s, a).values()): "return a dict",
        lambda d, s, a: {**min_max_fusion(d, s, a), "zzz": 0.0}: "no input returned",
    }
    for function, hint in slips.items():
        assert check_min_max_fusion(function) is False
        out = said(capsys, False, hint)
        assert "0.94" not in out and "0.6" not in out.replace("alpha 0.6", "")


def test_check_rrf(capsys, dense: Memoized, bm25: BM25Retriever, gold: list[Question]) -> None:
    assert check_rrf(rrf_scores, dense, bm25, gold, how_many=3) is True
    said(capsys, True, "3 dev questions")
    assert check_rrf(None) is False
    said(capsys, False, "still None")

    def stub(rankings: list[list[str]], k: int) -> dict:
        raise NotImplementedError

    assert check_rrf(stub, dense, bm25, gold) is False
    said(capsys, False, "NotImplementedError")

    def from_zero(rankings: list[list[str]], k: int) -> dict[str, float]:
        fused: dict[str, float] = {}
        for ranking in rankings:
            for rank, key in enumerate(ranking):
                fused[key] = fused.get(key, 0.0) + 1 / (k + rank)
        return fused

    def overwrite(rankings: list[list[str]], k: int) -> dict[str, float]:
        return {key: 1 / (k + rank) for ranking in rankings for rank, key in enumerate(ranking, start=1)}

    def best_only(rankings: list[list[str]], k: int) -> dict[str, float]:
        fused: dict[str, float] = {}
        for ranking in rankings:
            for rank, key in enumerate(ranking, start=1):
                fused[key] = max(fused.get(key, 0.0), 1 / (k + rank))
        return fused

    slips = {
        from_zero: "ranks count from 1",
        lambda rankings, k: {key: 1 / (r + 1) for ranking in rankings for r, key in enumerate(ranking)}: "",
        overwrite: "must not overwrite",
        best_only: "not only its best",
        lambda rankings, k: rrf_scores(rankings[:1], k): "ids are missing",
        lambda rankings, k: sorted(rrf_scores(rankings, k).items()): "return a dict",
    }
    for function, hint in slips.items():
        assert check_rrf(function) is False
        said(capsys, False, hint)


class AtRank:
    """A fake retriever that returns each question's evidence at a fixed rank (1 = first), behind fillers."""

    def __init__(self, questions: list[Question], rank: int) -> None:
        self.by_text = {q.question: q for q in questions}
        self.rank = rank

    def retrieve(self, query: str, k: int, filters: dict | None = None) -> list[Hit]:
        evidence = self.by_text[query].evidence[0]
        filler = [Hit(f"f{i}", "nothing relevant", {"source": "other.md"}) for i in range(k)]
        filler.insert(self.rank - 1, Hit("e", evidence.quote, {"source": evidence.doc}))
        return filler[:k]


def test_check_best_rrf_k(capsys, gold: list[Question]) -> None:
    questions = gold[:4]
    ranks = {10: 7, 60: 1, 100: 3}  # 60 and 100 both have recall@5 = 1; 60 has the better MRR
    make = lambda k: AtRank(questions, ranks[k])  # noqa: E731
    assert check_best_rrf_k(60, make, questions, recall=1.0) is True
    said(capsys, True, "rrf_k=60")
    assert check_best_rrf_k(None, make, questions) is False
    said(capsys, False, "still None")
    check_best_rrf_k("rrf_k=60", make, questions)
    said(capsys, False, "whole number")
    check_best_rrf_k(30, make, questions)
    said(capsys, False, "10, 60, 100")
    assert check_best_rrf_k(100, make, questions, recall=1.0) is False
    assert "60" not in said(capsys, False, "tie-break is MRR")
    check_best_rrf_k(10, make, questions, recall=0.0)
    out = said(capsys, False, "measure all three")
    assert not any(word in out for word in ("higher", "more", "larger", "smaller", "lower"))


def test_check_best_rrf_k_guessed_without_its_recall_fails(capsys, gold: list[Question]) -> None:
    """The right constant guessed (it passed alone before) is not yet right without its measured recall@5."""
    questions = gold[:4]
    ranks = {10: 7, 60: 1, 100: 3}
    make = lambda k: AtRank(questions, ranks[k])  # noqa: E731
    assert check_best_rrf_k(60, make, questions) is False
    said(capsys, False, "best_rrf_recall")
    assert check_best_rrf_k(60, make, questions, recall=0.75) is False
    said(capsys, False, "not what your choice measures")


def results_frame(recalls: dict[str, dict[str, float]]) -> dict[str, RetrievalScores]:
    """Fake `compare_retrievers` results: retriever -> question id -> recall@5."""
    return {
        name: RetrievalScores(pd.DataFrame({"id": list(row), "category": "x", "recall@5": list(row.values())}))
        for name, row in recalls.items()
    }


def test_check_missed_by_all(capsys) -> None:
    results = results_frame({"dense": {"q1": 0.0, "q2": 1.0}, "bm25": {"q1": 0.0, "q2": 0.0}})
    assert check_missed_by_all("q1", results) is True
    said(capsys, True, "q1")
    assert check_missed_by_all(None, results) is False
    said(capsys, False, "still None")
    check_missed_by_all(1, results)
    said(capsys, False, "a string")
    check_missed_by_all("q9", results)
    said(capsys, False, "not a dev question")
    check_missed_by_all("q2", results)
    said(capsys, False, "'dense'")


def test_check_synonym_rule(capsys, bm25: BM25Retriever) -> None:
    questions = load_gold(split="dev")
    assert check_synonym_rule(("exams", "examinations quizzes"), "hb-006", questions, bm25) is True
    said(capsys, True, "hb-006")
    assert check_synonym_rule(None, "hb-006", questions, bm25) is False
    said(capsys, False, "still None")
    check_synonym_rule("exams -> examinations", "hb-006", questions, bm25)
    said(capsys, False, "pair of strings")
    check_synonym_rule(("exams", "examinations"), None, questions, bm25)
    said(capsys, False, "first find the question")
    check_synonym_rule(("finals", "examinations"), "hb-006", questions, bm25)
    said(capsys, False, "does not change the question")
    check_synonym_rule(("exams", "tests"), "hb-006", questions, bm25)
    said(capsys, False, "still not in the top 5")


def test_check_synonym_rule_is_scored_on_the_whole_dev_split(capsys, bm25: BM25Retriever) -> None:
    """A rule that fits its one question but fires on a word every question has costs the split: not yet."""
    questions = load_gold(split="dev")
    fitted = ("is", "examinations quizzes AI tools")  # fires on hb-006 and brings its evidence in, as before
    assert check_synonym_rule(fitted, "hb-006", questions, bm25) is False
    said(capsys, False, "costs the dev split")
    fired, worse, change = split_change(fitted, bm25)
    assert fired > 10 and worse > 0 and change < 0
    assert split_change(("exams", "examinations quizzes"), bm25)[2] >= 0
