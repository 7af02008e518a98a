"""Query rewriting: paraphrase parsing, multi-query dedupe, follow-up rewriting."""

from __future__ import annotations

from pathlib import Path

from helpers.corpus import Question
from helpers.llm.cache import CachedCompleter, DiskCache
from helpers.query import FollowUpRewriter, MultiQueryRetriever, keyword_rewrite, merge_unique, parse_paraphrases
from helpers.rerank import order_by_scores
from helpers.types import Hit

HISTORY = (
    {"role": "user", "content": "How big are ADSc capstone teams?"},
    {"role": "assistant", "content": "2 to 4 students."},
)


class FakeLLM:
    """A fake LLM for unit tests: replies with a fixed text and counts its calls (no model is run)."""

    name = "fake"

    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.calls = 0

    def chat(self, messages: list[dict[str, str]], max_tokens: int) -> object:
        from helpers.llm import Completion

        self.calls += 1
        return Completion(self.reply, 1, 1, 0.0)


def cached(fake: FakeLLM, folder: Path) -> CachedCompleter:
    return CachedCompleter(lambda: fake, "fake", DiskCache(folder))


def hit(node_id: str) -> Hit:
    return Hit(node_id, f"text {node_id}", {"source": f"{node_id}.md"}, {"dense": 0.5})


def test_parse_paraphrases_strips_numbering_and_repeats() -> None:
    reply = '1. How much does applying cost?\n2) "What is the application fee?"\n- How much does applying cost?\n\nok'
    assert parse_paraphrases(reply, "What is the application fee?", 3) == ["How much does applying cost?"]


def test_merge_unique_is_round_robin_without_duplicates() -> None:
    merged = merge_unique([[hit("a"), hit("b"), hit("c")], [hit("b"), hit("d")]])
    assert [h.node_id for h in merged] == ["a", "b", "d", "c"]


def test_multi_query_searches_every_version_dedupes_and_reranks(tmp_path: Path) -> None:
    asked: list[str] = []

    class Retriever:
        def retrieve(self, query: str, k: int, filters: dict | None = None) -> list[Hit]:
            asked.append(query)
            return [hit("shared"), hit(f"only-{len(asked)}")]

    class ByName:
        name = "by-name"

        def rerank(self, query: str, hits: list[Hit], top_n: int) -> list[Hit]:
            return order_by_scores(hits, [-len(h.node_id) for h in hits], top_n)

    llm = cached(FakeLLM("Paraphrase one?\nParaphrase two?\nParaphrase three?"), tmp_path)
    hits = MultiQueryRetriever(Retriever(), llm, ByName(), n=3).retrieve("Original?", k=10)
    assert asked == ["Original?", "Paraphrase one?", "Paraphrase two?", "Paraphrase three?"]
    assert [h.node_id for h in hits].count("shared") == 1 and len(hits) == 5
    assert hits[0].node_id == "shared" and "rerank" in hits[0].scores


def test_keyword_rewrite_on_a_hand_example() -> None:
    rewritten = keyword_rewrite(HISTORY, "What about on MLE?")
    assert rewritten == "What about on MLE? big ADSc capstone teams"  # assistant turns and stop words left out


def test_followup_rewriter_methods(tmp_path: Path) -> None:
    question = Question("c1", "What about on MLE?", "3 to 5", "conversational", "dev", history=HISTORY)
    standalone = Question("d1", "What is the fee?", "$90", "direct_fact", "dev")
    llm = cached(FakeLLM("How big are MLE capstone teams?\n"), tmp_path)
    assert FollowUpRewriter("none").query(question) == "What about on MLE?"
    assert FollowUpRewriter("keywords").query(standalone) == "What is the fee?"
    assert FollowUpRewriter("llm", llm).query(question) == "How big are MLE capstone teams?"
