"""Rerankers: the interface (order, kept scores, top_n), cross-encoder plumbing, training, the LLM cache path."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.config import Settings
from helpers.llm.cache import DiskCache, prompt_key
from helpers.models import embedder_path
from helpers.rerank import CrossEncoderReranker, LLMReranker, Reranked, finetuned_path, order_by_scores
from helpers.rerank.llm import chatml
from helpers.rerank.synthetic import Pair, data_hash
from helpers.types import Hit

HITS = [
    Hit("a", "The application fee is $90.", {"source": "fees.md", "title": "Fees"}, {"fused": 0.9}),
    Hit("b", "Capstone teams have three to five students.", {"source": "capstone.md"}, {"fused": 0.5}),
    Hit("c", "The library opens at 8 am.", {"source": "library.md"}, {"fused": 0.1}),
]


class ListRetriever:
    """A stand-in first stage that returns fixed hits."""

    def __init__(self, hits: list[Hit]) -> None:
        self.hits = hits
        self.asked_k: list[int] = []

    def retrieve(self, query: str, k: int, filters: dict | None = None) -> list[Hit]:
        self.asked_k.append(k)
        return self.hits[:k]


def test_order_by_scores_sorts_keeps_earlier_scores_and_cuts() -> None:
    ranked = order_by_scores(HITS, [0.2, 0.9, 0.5], top_n=2)
    assert [h.node_id for h in ranked] == ["b", "c"]
    assert ranked[0].scores == {"fused": 0.5, "rerank": 0.9}
    assert ranked[0].score == 0.9  # the rerank score is the final one
    assert "rerank" not in HITS[1].scores  # the input hits are not mutated


def test_order_by_scores_is_stable_on_ties_and_checks_lengths() -> None:
    assert [h.node_id for h in order_by_scores(HITS, [1.0, 1.0, 1.0], 3)] == ["a", "b", "c"]
    with pytest.raises(ValueError):
        order_by_scores(HITS, [1.0], 3)


def test_reranked_fetches_depth_and_returns_k() -> None:
    class Reverse:
        name = "reverse"

        def rerank(self, query: str, hits: list[Hit], top_n: int) -> list[Hit]:
            return order_by_scores(hits, list(range(len(hits))), top_n)

    first = ListRetriever(HITS)
    hits = Reranked(first, Reverse(), depth=3).retrieve("q", k=1)
    assert first.asked_k == [3]
    assert [h.node_id for h in hits] == ["c"]


def test_cross_encoder_plumbing_with_the_packaged_minilm() -> None:
    from sentence_transformers import CrossEncoder

    model = CrossEncoder(str(embedder_path()), num_labels=1)  # a new, untrained head: plumbing only
    reranker = CrossEncoderReranker(model, name="untrained")
    ranked = reranker.rerank("How much is the application fee?", HITS, top_n=2)
    assert len(ranked) == 2
    assert all("rerank" in h.scores and "fused" in h.scores for h in ranked)
    assert ranked[0].scores["rerank"] >= ranked[1].scores["rerank"]
    assert reranker.rerank("q", [], 3) == []


def test_training_writes_a_model_keyed_by_data_hash(tmp_settings: Settings, tmp_path: Path) -> None:
    from helpers.rerank.finetune import train, training_info

    settings = tmp_settings.replace(cache_dir=tmp_path / "cache")
    pairs = [Pair(f"question {i} about fees?", HITS[i % 3].text, float(i % 3 == 0)) for i in range(8)]
    assert finetuned_path(settings) is None
    folder = train(pairs, settings, batch_size=4)
    assert data_hash(pairs) in folder.name and finetuned_path(settings) == folder
    assert training_info(folder)["pairs"] == 8
    assert len(CrossEncoderReranker(folder).rerank("fee?", HITS, 3)) == 3


def test_llm_reranker_reads_cached_scores_without_loading_a_model(tmp_path: Path) -> None:
    cache = DiskCache(tmp_path)
    for hit, score in zip(HITS, [0.1, 0.8, 0.3], strict=True):
        passage = f"{hit.metadata['title']}: {hit.text}" if "title" in hit.metadata else hit.text
        cache.put(prompt_key("m", {"p_yes": chatml("q?", passage)}), score)

    def no_model() -> None:
        raise AssertionError("the model must not load when every score is cached")

    ranked = LLMReranker(no_model, "m", cache).rerank("q?", HITS, 2)
    assert [h.node_id for h in ranked] == ["b", "c"] and cache.hits == 3


def test_llm_reranker_gives_probabilities_with_the_tiny_model(tmp_settings: Settings) -> None:
    from helpers.llm import make_llm

    llm = make_llm(tmp_settings)  # SmolLM2-135M: fast, and real llama.cpp logits
    try:
        reranker = LLMReranker(lambda: llm._llama, "smollm2-135m", cache=None)
        scores = reranker.score("How much is the application fee?", HITS[:2])
        assert all(0.0 < s < 1.0 for s in scores)
        assert scores == reranker.score("How much is the application fee?", HITS[:2])  # KV-cache reuse is exact
    finally:
        llm.close()


def test_cloze_pairs_cut_the_query_sentence_out_of_the_positive() -> None:
    from helpers.rerank.synthetic import cloze_pairs

    sentences = [f"Rule {i} of the lab says that item number {i} must be returned by Friday." for i in range(4)]
    long = Hit("long", " ".join(sentences) + " " + "Filler text about the lab. " * 5, {"source": "lab.md"}, {})
    lent = "Item number {} is lent for one week at the lab desk, and returned to the shelf by the member who took it"
    others = [Hit(f"o{i}", (lent.format(i) + ", ") * 3 + "then checked.", {"source": "o.md"}, {}) for i in range(4)]
    pairs = cloze_pairs([long, *others], n_queries=10, negatives=2)
    positives = [p for p in pairs if p.label == 1.0]
    assert len(positives) == 1 and positives[0].question in sentences
    assert positives[0].question not in positives[0].passage  # the query sentence is cut out
    negatives = [p for p in pairs if p.label == 0.0]
    assert len(negatives) == 2 and all(p.passage.startswith("Item number") for p in negatives)


def test_cloze_negatives_never_share_more_words_with_the_query_than_its_positive() -> None:
    """The bug behind recall@5 0.59 → 0.20: cloze positives lose the query sentence while BM25 negatives keep the
    query's words, so training taught "shares the question's words → irrelevant", the opposite of the gold set."""
    from helpers.rerank.synthetic import cloze_pairs, word_overlap

    topics = ["The thesis committee meets in March", "Parking permits cost forty dollars", "The gym opens at six"]
    chunks = []
    for i, topic in enumerate(topics):
        text = " ".join(f"{topic}, rule {j} of office {i} says, and that is final for students." for j in range(1))
        text += " Unrelated filler sentence number one is here. Another sentence about the weather today."
        text += f" A closing remark about topic {i} and nothing more to add now."
        chunks.append(Hit(f"c{i}", text, {"source": f"{i}.md"}, {}))
        copy = f"{topic}: a short notice, repeated on the board. {topic}, rule 0 of office {i} says so."
        chunks.append(Hit(f"n{i}", copy, {"source": f"n{i}.md"}, {}))
    pairs = cloze_pairs(chunks, n_queries=10, negatives=3)
    by_query: dict[str, list[Pair]] = {}
    for pair in pairs:
        by_query.setdefault(pair.question, []).append(pair)
    assert by_query
    for group in by_query.values():
        positive = next(p for p in group if p.label == 1.0)
        ceiling = word_overlap(positive.question, positive.passage)
        for negative in (p for p in group if p.label == 0.0):
            assert word_overlap(negative.question, negative.passage) <= ceiling
            assert negative.question not in negative.passage


def test_rank_fusion_adds_weighted_reciprocal_ranks() -> None:
    from helpers.rerank.maxsim import rank_fusion

    fused = rank_fusion(1.0, 3, [0.1, 0.9, 0.5], k=1)  # late ranks: hit 1 → 1, hit 2 → 2, hit 0 → 3
    assert fused == pytest.approx([1 / 2 + 1 / 4, 1 / 3 + 1 / 2, 1 / 4 + 1 / 3])
    assert rank_fusion(0.0, 3, [0.1, 0.9, 0.5], k=1)[1] == pytest.approx(1 / 2)  # weight 0: MaxSim alone


def test_maxsim_is_mean_of_best_token_cosines() -> None:
    import numpy as np

    from helpers.rerank.maxsim import maxsim

    query = np.array([[1.0, 0.0], [0.0, 1.0]])
    passage = np.array([[1.0, 0.0], [0.6, 0.8]])
    assert maxsim(query, passage) == pytest.approx((1.0 + 0.8) / 2)
    assert maxsim(query, np.zeros((0, 2))) == 0.0


def test_maxsim_lifts_the_answering_passage_above_distractors_with_the_packaged_minilm() -> None:
    """A reranker handed the answer among distractors must not push it down (the check the old model failed)."""
    from helpers.rerank import MaxSimReranker, make_reranker

    first_stage = [HITS[2], HITS[1], HITS[0]]  # the fee passage comes last from the first stage
    ranked = MaxSimReranker().rerank("How much is the application fee?", first_stage, top_n=3)
    assert ranked[0].node_id == "a"
    assert all({"rerank", "maxsim", "fused"} <= set(h.scores) for h in ranked)
    assert ranked[0].scores["rerank"] >= ranked[1].scores["rerank"] >= ranked[2].scores["rerank"]
    assert MaxSimReranker().rerank("q", [], 3) == []

    assert isinstance(make_reranker("maxsim", Settings()), MaxSimReranker)


def test_constant_guess_loss_is_the_floor_a_model_that_learnt_nothing_sits_on() -> None:
    import math

    from helpers.rerank.finetune import constant_guess_loss

    assert constant_guess_loss(0.25) == pytest.approx(1.5 * math.log(2))  # 1 positive : 3 negatives → 1.04
    assert constant_guess_loss(0.5) == pytest.approx(math.log(2))
    assert constant_guess_loss(0.0) == 0.0


def test_maxsim_rerankers_of_one_kernel_encode_a_passage_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """MaxSim alone, MaxSim fused and a depth sweep share MiniLM and the passages' token vectors."""
    import numpy as np

    from helpers.rerank import maxsim

    encoded: list[str] = []

    def fake_token_vectors(self, texts, drop_punctuation=False):  # a fake encoder: this test is about the cache
        encoded.extend(texts)
        return [np.ones((2, 3), dtype=np.float32) for _ in texts]

    monkeypatch.setattr(maxsim.MaxSimReranker, "token_vectors", fake_token_vectors)
    monkeypatch.setattr(maxsim, "_PASSAGES", {})
    maxsim.MaxSimReranker(model_path="m").passage_vectors(["a", "b"])
    maxsim.MaxSimReranker(model_path="m", first_stage_weight=1.0).passage_vectors(["b", "c", "a"])
    maxsim.MaxSimReranker(model_path="other").passage_vectors(["a"])
    assert encoded == ["a", "b", "c", "a"]  # "c" new for "m"; "a" again only for another model
