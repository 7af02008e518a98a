"""Retrievers: fusion maths by hand, threshold, dedupe, expansion, filters, BM25 codes, kept stage scores."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from helpers.config import RETRIEVERS, Settings
from helpers.pipeline import RAGPipeline
from helpers.retrieval import (
    NAMES,
    BM25Retriever,
    Expanded,
    HybridRetriever,
    PostProcessed,
    above_threshold,
    dedupe_by_source,
    expand_query,
    load_synonyms,
    matches,
    min_max,
    rescored_fusion,
    rrf_fusion,
    tokenize,
    weighted_fusion,
)
from helpers.types import Hit


def hit(node_id: str, source: str = "a.md", **scores: float) -> Hit:
    return Hit(node_id, f"text of {node_id}", {"source": source}, dict(scores))


class Fixed:
    """A fake retriever returning a fixed ranking; it records what it was asked."""

    def __init__(self, hits: list[Hit]) -> None:
        self.hits, self.asked = hits, []

    def retrieve(self, query: str, k: int, filters: dict | None = None) -> list[Hit]:
        self.asked.append((query, k))
        return [h for h in self.hits if matches(h.metadata, filters)][:k]


DENSE = [hit("a", dense=0.9), hit("b", dense=0.7), hit("c", dense=0.5)]
SPARSE = [hit("b", sparse=10.0), hit("d", sparse=6.0), hit("a", sparse=2.0)]


def test_min_max_by_hand() -> None:
    assert min_max([1.0, 2.0, 3.0]) == [0.0, 0.5, 1.0]
    assert min_max([4.0, 4.0]) == [1.0, 1.0] and min_max([]) == []


def test_weighted_fusion_by_hand() -> None:
    # dense normalised: a 1, b 0.5, c 0; sparse normalised: b 1, d 0.5, a 0; alpha = 0.6
    fused = weighted_fusion(DENSE, SPARSE, alpha=0.6)
    expected = {"b": 0.6 * 0.5 + 0.4 * 1.0, "a": 0.6 * 1.0, "d": 0.4 * 0.5, "c": 0.0}
    assert [h.node_id for h in fused] == ["b", "a", "d", "c"]
    for h in fused:
        assert h.scores["fused"] == pytest.approx(expected[h.node_id])
    assert weighted_fusion(DENSE, SPARSE, alpha=1.0)[0].node_id == "a"  # pure dense
    assert weighted_fusion(DENSE, SPARSE, alpha=0.0)[0].node_id == "b"  # pure keyword


def test_rrf_by_hand() -> None:
    fused = {h.node_id: h.scores["fused"] for h in rrf_fusion([DENSE, SPARSE], rrf_k=60)}
    assert fused["a"] == pytest.approx(1 / 61 + 1 / 63)
    assert fused["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert fused["c"] == pytest.approx(1 / 63) and fused["d"] == pytest.approx(1 / 62)
    assert [h.node_id for h in rrf_fusion([DENSE, SPARSE])] == ["b", "a", "d", "c"]


def test_every_stage_score_is_kept_and_inputs_untouched() -> None:
    hybrid = HybridRetriever(Fixed(DENSE), Fixed(SPARSE), alpha=0.6, rescore=0)  # a miss on one side scores 0
    by_id = {h.node_id: h for h in hybrid.retrieve("q", k=4)}
    assert set(by_id["a"].scores) == {"dense", "sparse", "fused"}
    assert by_id["a"].scores["dense"] == 0.9 and by_id["a"].scores["sparse"] == 2.0
    assert set(by_id["c"].scores) == {"dense", "fused"} and set(by_id["d"].scores) == {"sparse", "fused"}
    assert by_id["b"].score == by_id["b"].scores["fused"]
    assert DENSE[0].scores == {"dense": 0.9}  # fusion copies hits, never mutates them


def test_hybrid_asks_each_side_for_a_candidate_pool() -> None:
    dense, sparse = Fixed(DENSE), Fixed(SPARSE)
    assert len(HybridRetriever(dense, sparse, "rrf", pool=30).retrieve("q", k=2)) == 2
    assert dense.asked == sparse.asked == [("q", 30)]
    with pytest.raises(ValueError, match="alpha"):
        HybridRetriever(dense, sparse, alpha=1.5)


def test_rescoring_scores_each_candidate_on_both_sides_by_hand() -> None:
    # pool 2: dense candidates a, b; sparse candidates b, d. Ranked 4 deep, dense also scores d (0.6), sparse a (2.0);
    # c, in neither pool, is no candidate. Dense normalised over a, b, d: a 1, b 1/3, d 0; sparse: b 1, d 0.5, a 0.
    dense = Fixed([*DENSE[:2], hit("d", dense=0.6), DENSE[2]])
    hybrid = HybridRetriever(dense, Fixed(SPARSE), alpha=0.5, pool=2, rescore=4)
    fused = hybrid.retrieve("q", k=3)
    expected = {"a": 0.5, "b": 0.5 / 3 + 0.5, "d": 0.5 * 0.5}
    assert [h.node_id for h in fused] == ["b", "a", "d"] and dense.asked == [("q", 4)]
    for h in fused:
        assert h.scores["fused"] == pytest.approx(expected[h.node_id])
    assert fused[1].scores["sparse"] == 2.0 and fused[2].scores["dense"] == 0.6  # each side's own score, kept
    # a side whose list was cut at the depth gives a candidate it did not list its lowest score; a shorter list, 0
    cut = {h.node_id: h.scores for h in rescored_fusion(DENSE[:2], SPARSE[:2], depth=1, deep=2)}
    assert cut["a"]["sparse"] == 6.0 and cut["b"]["dense"] == 0.7
    short = {h.node_id: h.scores for h in rescored_fusion(DENSE[:1], SPARSE[:1], depth=1, deep=2)}
    assert short["a"]["sparse"] == 0.0 and short["b"]["dense"] == 0.0
    assert HybridRetriever(Fixed(DENSE), Fixed(SPARSE), "rrf", rescore=4).retrieve("q", k=4) == rrf_fusion(
        [DENSE, SPARSE]
    )  # RRF fuses ranks: nothing to rescore
    assert "rescored from 4" in repr(hybrid)


def test_threshold_keeps_hits_at_or_above() -> None:
    hits = [hit("a", dense=0.5), hit("b", dense=0.3), hit("c", dense=0.1)]
    assert [h.node_id for h in above_threshold(hits, 0.3)] == ["a", "b"]
    assert above_threshold(hits, 0.9) == []


def test_dedupe_keeps_the_best_chunk_per_source() -> None:
    hits = [hit("x1", "x.md", dense=0.4), hit("y1", "y.md", dense=0.6), hit("x2", "x.md", dense=0.8)]
    assert [h.node_id for h in dedupe_by_source(hits)] == ["x2", "y1"]


def test_postprocessed_over_fetches_then_dedupes_and_cuts() -> None:
    inner = Fixed([hit(f"x{i}", "x.md", dense=1 - i / 10) for i in range(5)] + [hit("y", "y.md", dense=0.2)])
    hits = PostProcessed(inner, threshold=0.15, dedupe=True, fetch_multiplier=3).retrieve("q", k=2)
    assert inner.asked == [("q", 6)]
    assert [h.node_id for h in hits] == ["x0", "y"]
    assert PostProcessed(inner, threshold=0.5, dedupe=True).retrieve("q", k=2)[-1].node_id == "x0"


def test_expansion_rules() -> None:
    table = load_synonyms()
    for phrase, official in [
        ("final project", "Capstone Studio"),
        ("pass/fail", "S/U"),
        ("taking a break", "leave of absence"),
        ("good standing", "Satisfactory Academic Progress"),
        ("enrollment fee", "matriculation fee"),
    ]:
        assert official in expand_query(f"What about the {phrase.upper()}?", table)
    rules = {"walking": "Commencement", "final project": "Capstone Studio"}
    assert expand_query("Is sleepwalking allowed?", rules) == "Is sleepwalking allowed?"  # whole words only
    assert expand_query("final project in Capstone Studio", rules) == "final project in Capstone Studio"
    assert expand_query("final project, final project", rules).count("Capstone Studio") == 1
    inner = Fixed(DENSE)
    Expanded(inner, rules).retrieve("my final project", k=1)
    assert inner.asked == [("my final project Capstone Studio", 1)]


def test_filters_match_like_the_store() -> None:
    meta = {"doc_type": "email", "sender": "Dr. Ana Whitcombe <ana@lakeside.edu>", "term": "Winter 2027"}
    assert matches(meta, {"doc_type": "email"}) and matches(meta, {"doc_type": ["pdf", "email"]})
    assert not matches(meta, {"doc_type": "pdf"}) and matches(meta, None)
    assert matches(meta, {"sender": "whitcombe"}) and matches(meta, {"sender": "ANA whitcombe"})  # words, any case
    assert not matches(meta, {"sender": "whit"}) and matches(meta, {"sender": ["park", "whitcombe"]})
    assert not matches(meta, {"term": "Winter"}) and not matches(meta, {"track": "MLE"})  # keywords are exact
    named = {"term": ["Autumn 2026", "Winter 2027"]}  # a list payload: any of its values matches, as in Qdrant
    assert matches(named, {"term": "Winter 2027"}) and matches(named, {"term": ["Spring 2027", "Autumn 2026"]})
    assert not matches(named, {"term": "Spring 2027"}) and not matches({}, {"term": "Winter 2027"})
    with pytest.raises(ValueError, match="cannot filter on colour"):
        matches(meta, {"colour": "red"})


def test_bm25_matches_course_and_room_codes() -> None:
    assert tokenize("ADS 530 in MDC-015") == ["ads530", "mdc015"]
    assert tokenize("ads530") == tokenize("ADS-530") == ["ads530"]
    assert "s/u" in tokenize("S/U grading") and "2026" in tokenize("in 2026")
    chunks = [hit("510", "s.csv"), hit("530", "s.csv"), hit("other", "e.eml")]
    texts = [
        "ADS 510 Data Engineering meets in MDC 110 on Mondays.",
        "ADS 530 Machine Learning meets in MDC 120 on Tuesdays.",
        "The fee is $530 for ADS students, see MDC front desk.",
    ]
    bm25 = BM25Retriever(chunks, texts)
    assert bm25.retrieve("Where does ads-530 meet?", k=3)[0].node_id == "530"
    assert bm25.retrieve("room MDC 110", k=1)[0].node_id == "510"
    assert [h.node_id for h in bm25.retrieve("ADS 530", k=3)] == ["530"]  # not "$530 ... ADS"
    assert bm25.retrieve("zzz unknown words", k=3) == []
    only_email = bm25.retrieve("meets fee", k=3, filters={"source": "e.eml"})
    assert [h.node_id for h in only_email] == ["other"] and only_email[0].scores["sparse"] > 0


def test_retriever_names_match_the_settings() -> None:
    assert tuple(NAMES) == RETRIEVERS


def test_make_retriever_over_a_real_store(tmp_settings: Settings, tiny_corpus: Path) -> None:
    """Every named retriever on a real index: filters restrict, scores of every stage are kept."""
    (tiny_corpus / "note.md").write_text("---\ntitle: Note\n---\nThe application fee is waived for alumni.\n")
    pipeline = RAGPipeline(tmp_settings)
    try:
        pipeline.ingest(tiny_corpus, progress=False)
        stages = {"dense": {"dense"}, "bm25": {"sparse"}, "hybrid": {"fused"}, "hybrid_rrf": {"fused"}}
        for name in NAMES:
            retriever = pipeline.make_retriever(name)
            hits = retriever.retrieve("application fee", k=3)
            assert hits and stages[name] <= set(hits[0].scores), name
            filtered = retriever.retrieve("application fee", k=3, filters={"source": "note.md"})
            assert filtered and {h.source for h in filtered} == {"note.md"}, name
        both = pipeline.make_retriever("hybrid").retrieve("application fee", k=1)[0]
        assert {"dense", "sparse", "fused"} <= set(both.scores) and math.isfinite(both.score)
        wrapped = pipeline.make_retriever("dense", expand=True, dedupe=True, threshold=0.1)
        assert len({h.source for h in wrapped.retrieve("application fee", k=3)}) == len(wrapped.retrieve("fee", 3))
        with pytest.raises(ValueError, match="unknown retriever"):
            pipeline.make_retriever("tfidf")
        with pytest.raises(ValueError, match="unknown parameter"):
            pipeline.make_retriever("hybrid", weight=0.5)
    finally:
        pipeline.close()


def test_bm25_on_an_empty_collection_finds_nothing() -> None:
    empty = BM25Retriever([])
    assert empty.retrieve("application fee", 3) == [] and len(empty.scores("fee")) == 0


def test_stemmed_tokenizer_strips_plurals_but_keeps_codes_and_numbers():
    from helpers.retrieval import stemmed_tokenize

    tokens = stemmed_tokenize("Fees, deadlines and policies for ADS 530 classes: status 3.5 thesis")
    assert {"fee", "deadline", "policy", "ads530", "class", "status", "3.5", "thesis"} <= set(tokens)


def test_the_retrieval_stack_reads_in_the_order_a_query_meets_it() -> None:
    from helpers.rerank import Reranked
    from helpers.retrieval import DenseRetriever, Expanded, HybridRetriever, Neighbours, PostProcessed, Windowed
    from helpers.retrieval.store_hybrid import StoreBM25Retriever

    hybrid = HybridRetriever(DenseRetriever(None, None), StoreBM25Retriever(None, str.split), "rrf", rrf_k=60, pool=30)
    stack = Expanded(Windowed(PostProcessed(hybrid, 0.3, True), Neighbours([]), 1, 0.8), synonyms={})

    class MaxSim:
        name = "maxsim"

    assert repr(Reranked(stack, MaxSim(), 20)) == (
        "Reranked(Expanded(Windowed(PostProcessed(Hybrid(Dense, BM25 in Qdrant; RRF k 60, pool 30); threshold 0.3, "
        "one per source True); ±1 chunks, copies ≥ 0.8)); maxsim, top 20)"
    )
