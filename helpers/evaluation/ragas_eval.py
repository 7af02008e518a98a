"""ragas on the kit's answers: its non-LLM metrics always, LLM-judged faithfulness with the configured judge (at
`OPENAI_BASE_URL`, else the kit's GGUF served on 127.0.0.1 from the first cache miss), every judgement cached.
What it leaves out: ragas' `evaluate()` batch runner.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from helpers.config import Settings, get_settings
from helpers.llm.cache import DiskCache, llm_cache, prompt_key
from helpers.llm.server import LlamaServer


def run_sync(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """Run a coroutine to the end, also inside Jupyter (whose event loop is already running)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with ThreadPoolExecutor(max_workers=1) as pool:  # a thread of its own; its error is raised here
        return pool.submit(asyncio.run, coroutine).result()


def non_llm_scores(answer: str, references: Sequence[str], contexts: Sequence[str], evidence: Sequence[str]) -> dict:
    """ragas' string metrics (best over the references) and context recall against the evidence quotes."""
    from ragas.dataset_schema import SingleTurnSample
    from ragas.metrics import NonLLMContextRecall
    from ragas.metrics.collections import BleuScore, CHRFScore, ExactMatch, NonLLMStringSimilarity, RougeScore

    metrics = {
        "ragas exact match": ExactMatch(),
        "string similarity": NonLLMStringSimilarity(),
        "BLEU": BleuScore(),
        "ROUGE-L": RougeScore(),
        "chrF": CHRFScore(),
    }

    async def score_all() -> dict[str, float]:
        row: dict[str, float] = {}
        for name, metric in metrics.items():
            values = [(await metric.ascore(reference=r, response=answer)).value for r in references]
            row[name] = float(max(values)) if values else float("nan")
        if evidence:
            sample = SingleTurnSample(retrieved_contexts=list(contexts) or [""], reference_contexts=list(evidence))
            row["context recall (non-LLM)"] = float(await NonLLMContextRecall().single_turn_ascore(sample))
        else:
            row["context recall (non-LLM)"] = float("nan")
        return row

    return run_sync(score_all())


class Judge:
    """ragas' LLM-judged metrics with the configured judge, every judgement cached on disk."""

    def __init__(self, settings: Settings | None = None, cache: DiskCache | None = None) -> None:
        self.settings = settings or get_settings()
        self.cache = cache or llm_cache(self.settings)
        self.remote = self.settings.llm.llm_backend == "openai"
        model = self.settings.llm.openai_model if self.remote else self.settings.llm.name
        where = (self.settings.llm.openai_base_url or "api.openai.com") if self.remote else "llama_cpp.server, local"
        self.name = f"{model} ({where})"  # printed beside every LLM-judged score
        self.model = model
        self.server: LlamaServer | None = None
        self.judged = self.cached = 0
        self.seconds: list[float] = []

    def _llm_and_embeddings(self) -> tuple[Any, Any]:
        """ragas' LLM (and embeddings, for answer relevancy) over AsyncOpenAI; starts the local server if needed."""
        from openai import AsyncOpenAI
        from ragas.llms import llm_factory

        if self.remote:
            base_url, key = self.settings.llm.openai_base_url or None, self.settings.llm.openai_api_key or "not-needed"
        else:
            if self.server is None:
                threads = self.settings.llm.llm_threads
                log = self.settings.paths.cache_dir / "judge_server.log"
                self.server = LlamaServer(self.settings, threads=threads, log=log)
            base_url, key = self.server.base_url, "not-needed"
        client = AsyncOpenAI(base_url=base_url, api_key=key, timeout=self.settings.llm.request_timeout_s * 5)
        return llm_factory(self.model, provider="openai", client=client, temperature=0.0), _embeddings(self.settings)

    def _judge(self, metric: str, payload: dict[str, Any]) -> float:
        key = prompt_key(self.name, {"ragas-0.4": metric, **payload})
        if (stored := self.cache.get(key)) is not None:
            self.cached += 1
            return float(stored["value"])
        from ragas.metrics.collections import AnswerRelevancy, Faithfulness

        llm, embeddings = self._llm_and_embeddings()
        start = time.perf_counter()
        if metric == "faithfulness":
            result = run_sync(Faithfulness(llm=llm).ascore(**payload))
        else:
            result = run_sync(AnswerRelevancy(llm=llm, embeddings=embeddings).ascore(**payload))
        value = float(result.value) if result.value is not None else float("nan")
        self.seconds.append(time.perf_counter() - start)
        self.judged += 1
        self.cache.put(key, {"value": value, "seconds": self.seconds[-1]})
        return value

    def faithfulness(self, question: str, answer: str, contexts: Sequence[str]) -> float:
        """Share of the answer's statements the contexts support (0–1); judged once, then read from disk."""
        return self._judge(
            "faithfulness", {"user_input": question, "response": answer, "retrieved_contexts": list(contexts)}
        )

    def answer_relevancy(self, question: str, answer: str) -> float:
        """ragas' answer relevancy (0–1). Unreliable with a small local judge (notebook 08)."""
        return self._judge("answer_relevancy", {"user_input": question, "response": answer})

    def close(self) -> None:
        """Stop the local judge server if this judge started one."""
        if self.server is not None:
            self.server.stop()
            self.server = None


def _embeddings(settings: Settings) -> Any:
    """The kit's embedder in the shape ragas' answer relevancy wants (built only when a judgement runs)."""
    from ragas.embeddings.base import BaseRagasEmbedding

    from helpers.embedding import Embedder

    class KitEmbedding(BaseRagasEmbedding):
        def __init__(self) -> None:
            super().__init__()
            self.embedder = Embedder(settings)

        def embed_text(self, text: str, **kwargs: Any) -> list[float]:
            return self.embedder.embed_texts([text])[0].tolist()

        async def aembed_text(self, text: str, **kwargs: Any) -> list[float]:
            return self.embed_text(text)

    return KitEmbedding()
