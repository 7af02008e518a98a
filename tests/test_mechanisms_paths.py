"""Every slot reaches every path at query time: a deliberately wrong function put in a slot after the pipeline and
the app were built changes what `RAGPipeline.ask` and the app's answer return, and the kit counts its calls."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from helpers.app import AppEngine, Knobs
from helpers.config import Settings
from helpers.llm.client import Completion
from helpers.mechanisms import calls, reset, use
from helpers.pipeline import RAGPipeline

QUESTION = "What is the application fee?"


class PromptRecorder:
    """A stand-in for the model, in these unit tests only: it keeps the messages and answers a fixed text."""

    name = "prompt-recorder"

    def __init__(self) -> None:
        self.messages: list[list[dict[str, str]]] = []

    def chat(self, messages: list[dict[str, str]], max_tokens: int) -> Completion:
        self.messages.append(messages)
        return Completion("$90 [1]", 0, 3, 0.0)

    def stream(self, messages: list[dict[str, str]], max_tokens: int) -> Iterator[str]:
        yield self.chat(messages, max_tokens).text

    def close(self) -> None:
        pass


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RAGPipeline, AppEngine]]:
    """A pipeline and an app over three small documents, both built before any slot is filled."""
    from helpers.config import get_settings

    root = tmp_path_factory.mktemp("slots")
    docs = root / "docs"
    docs.mkdir()
    (docs / "fees.md").write_text("# Fees\n\nThe application fee is $90. Tuition is $14,850 per quarter.\n")
    (docs / "capstone.md").write_text("# Capstone\n\nCapstone teams have three to five students.\n")
    (docs / "library.md").write_text("# Library\n\nThe library opens at 8 am and lends twenty books.\n")
    settings: Settings = get_settings().replace(
        data_dir=root / "data", corpus_dir=docs, refusal_threshold=0.0, near_duplicate=0.0, query_expansion=False
    )
    reset()
    pipeline = RAGPipeline(settings)
    pipeline.ingest(docs, progress=False)
    pipeline.__dict__["llm"] = PromptRecorder()
    engine = AppEngine(pipeline)
    engine._llms["local"] = PromptRecorder()
    engine.ready.set()
    yield pipeline, engine
    reset()
    engine.close()


def asked(built: tuple[RAGPipeline, AppEngine], retriever: str) -> tuple[list, list, list, list]:
    """(pipeline hits, pipeline prompt, app hits, app prompt) for QUESTION with `retriever`."""
    pipeline, engine = built
    answer = pipeline.ask(QUESTION, retriever=pipeline.make_retriever(retriever), mode="short")
    turn = engine.ask(QUESTION, Knobs(retriever=retriever, k=3, rerank=False, multi_query=False))
    assert turn.answer is not None, turn.message
    return answer.hits, answer.messages, turn.answer.hits, turn.answer.messages


def scores(hits: list, stage: str) -> list[float]:
    return [round(hit.scores.get(stage, float("nan")), 6) for hit in hits]


@pytest.mark.parametrize(
    ("slot", "wrong", "retriever", "changed"),
    [
        ("top_k", lambda matrix, query, k: [(row, -0.5) for row in range(min(k, len(matrix)))], "dense",
         lambda hits: scores(hits, "dense") == [-0.5] * len(hits)),
        ("bm25", lambda query, documents, k1, b: np.arange(len(documents), dtype=float) + 100.0, "bm25",
         lambda hits: all(score >= 100.0 for score in scores(hits, "sparse"))),
        ("fusion", lambda dense, sparse, alpha: {node: 7.0 for node in {**dense, **sparse}}, "hybrid",
         lambda hits: scores(hits, "fused") == [7.0] * len(hits)),
        ("rrf", lambda rankings, k: {node: 42.0 for ranking in rankings for node in ranking}, "hybrid_rrf",
         lambda hits: scores(hits, "fused") == [42.0] * len(hits)),
    ],
)  # fmt: skip
def test_a_wrong_retrieval_function_changes_the_pipelines_and_the_apps_passages(
    built: tuple[RAGPipeline, AppEngine], slot: str, wrong: object, retriever: str, changed: object
) -> None:
    before = asked(built, retriever)
    use(slot, wrong, quiet=True)  # type: ignore[arg-type]
    try:
        pipeline_hits, _, app_hits, _ = asked(built, retriever)
        assert changed(pipeline_hits) and changed(app_hits)  # type: ignore[operator]
        assert calls()[slot] > 0
    finally:
        reset(slot)
    assert asked(built, retriever) == before  # the kit's own again


@pytest.mark.parametrize(
    ("slot", "wrong", "changed"),
    [
        ("prompt", lambda question, passages: f"WRONG {question}", lambda text: "WRONG" in text and "[1]" not in text),
        ("budget", lambda passages, room, count: passages[-1:], lambda text: "[1]" in text and "[2]" not in text),
    ],
)  # fmt: skip
def test_a_wrong_prompt_function_changes_what_the_pipeline_and_the_app_send(
    built: tuple[RAGPipeline, AppEngine], slot: str, wrong: object, changed: object
) -> None:
    before = asked(built, "hybrid")
    assert not changed(before[1][-1]["content"]) and not changed(before[3][-1]["content"])  # type: ignore[operator]
    use(slot, wrong, quiet=True)  # type: ignore[arg-type]
    try:
        _, pipeline_prompt, _, app_prompt = asked(built, "hybrid")
        assert changed(pipeline_prompt[-1]["content"]) and changed(app_prompt[-1]["content"])  # type: ignore[operator]
        assert calls()[slot] > 0
    finally:
        reset(slot)


def test_a_wrong_metric_and_split_change_the_evaluation_and_the_index(
    built: tuple[RAGPipeline, AppEngine], tmp_path: Path
) -> None:
    from helpers.corpus import Question
    from helpers.generation.scores import score_answer

    pipeline, _ = built
    question = Question(id="q1", question=QUESTION, answer="$90", category="fees", split="dev")
    answer = pipeline.ask(QUESTION, mode="short")
    right = score_answer(question, answer)["f1"]
    use("f1", lambda prediction, reference: 0.25, quiet=True)
    try:
        assert score_answer(question, answer)["f1"] == 0.25 != right and calls()["f1"] > 0
    finally:
        reset("f1")
    small = pipeline.settings.replace(chunk_size=15, chunk_overlap=0)  # the splitter runs on texts over 30 characters

    def points_with(folder: str) -> int:
        split_pipeline = RAGPipeline(small.replace(data_dir=tmp_path / folder))
        try:
            return split_pipeline.ingest(small.paths.corpus_dir, progress=False).points
        finally:
            split_pipeline.close()

    kits = points_with("kit")
    use("split", lambda text, size, overlap: text.split(), quiet=True)  # one chunk per word
    try:
        assert points_with("yours") != kits and calls()["split"] > 0
    finally:
        reset("split")


def test_the_apps_functions_knob_sets_mine_against_the_kits(built: tuple[RAGPipeline, AppEngine]) -> None:
    from helpers.app.side_by_side import compare

    _, engine = built
    kits = Knobs(retriever="dense", k=3, rerank=False, multi_query=False)
    use("top_k", lambda matrix, query, k: [(row, -0.5) for row in range(min(k, len(matrix)))], quiet=True)
    try:
        pair = compare(engine, QUESTION, kits, kits.replace(functions="the kit's"), on_step=lambda _: None)
        assert scores(pair.a.hits, "dense") == [-0.5] * 3 and -0.5 not in scores(pair.b.hits, "dense")
        assert pair.knobs_a.changes(pair.knobs_b) == {"functions": ("yours", "the kit's")} and calls()["top_k"] > 0
    finally:
        reset()
