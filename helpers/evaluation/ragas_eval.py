"""ragas on the kit's answers: its non-LLM metrics always, LLM-judged faithfulness with the configured judge.

- Non-LLM (`non_llm_scores`, microseconds): ExactMatch, NonLLMStringSimilarity, BleuScore, RougeScore, CHRF
  of the answer against the reference, and NonLLMContextRecall of the retrieved chunks against the gold
  evidence quotes (fuzzy string matching, no model).
- LLM-judged (`Judge.faithfulness`, one slow LLM call per answer on a CPU): does every statement of the
  answer follow from the retrieved context? `Judge.answer_relevancy` is there too, with the caveat notebook 08
  shows: a small local judge can score a right answer as irrelevant, so read it as a demonstration, not a number.
The judge is reached the same way in both cases: ragas' `llm_factory` over openai's `AsyncOpenAI`, pointed
at `OPENAI_BASE_URL` when it is set, otherwise at the kit's own GGUF served by `llama_cpp.server` on
127.0.0.1 (a subprocess on a free port, started on the first cache miss, stopped by `close()`, at exit,
or — on Linux — by the kernel when this process dies).
Every judgement is stored on disk keyed by the judge's name + metric + question, answer and contexts, so a
re-run judges nothing and never starts the server. What it leaves out: ragas' `evaluate()` batch runner.
"""

from __future__ import annotations

import asyncio
import atexit
import ctypes
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Coroutine, Sequence
from typing import Any

from helpers.config import Settings, get_settings
from helpers.llm.cache import DiskCache, llm_cache, prompt_key

STARTUP_TIMEOUT_S = 120.0


def run_sync(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """Run a coroutine to the end, also inside Jupyter (whose event loop is already running)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = asyncio.run(coroutine)
        except BaseException as error:  # handed back to the caller's thread
            box["error"] = error

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


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


LINUX = sys.platform.startswith("linux")


def _find_prctl() -> Any:
    """glibc's prctl, resolved in the parent (nothing may be imported after fork), or None elsewhere."""
    try:
        return ctypes.CDLL("libc.so.6", use_errno=True).prctl if LINUX else None
    except OSError:
        return None


_PRCTL = _find_prctl()


def _die_with_parent() -> None:
    """In the server process (Linux): receive SIGTERM when the process that started it dies, even by a kill."""
    if _PRCTL is not None:
        _PRCTL(1, signal.SIGTERM)  # 1 = PR_SET_PDEATHSIG


def free_port() -> int:
    """A TCP port on loopback that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LocalJudgeServer:
    """The kit's GGUF behind `python -m llama_cpp.server` on 127.0.0.1: an OpenAI-compatible endpoint."""

    def __init__(self, settings: Settings) -> None:
        from helpers.models import llm_gguf_path

        self.model = settings.llm.name
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        command = [
            sys.executable, "-m", "llama_cpp.server", "--model", str(llm_gguf_path(settings)),
            "--model_alias", self.model, "--host", "127.0.0.1", "--port", str(self.port),
            "--n_ctx", str(settings.llm.llm_context_tokens), "--n_threads", str(settings.llm.llm_threads),
            "--seed", str(settings.seed), "--verbose", "False",
        ]  # fmt: skip
        # its log goes to a file: a pipe nobody reads would fill up and stall the server mid-run
        self.log = settings.paths.cache_dir / "judge_server.log"
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with self.log.open("w", encoding="utf-8") as log:
            self.process = subprocess.Popen(
                command, stdout=subprocess.DEVNULL, stderr=log, preexec_fn=_die_with_parent if LINUX else None
            )
        atexit.register(self.stop)  # a kernel restart or an exception must not leave the server running
        self._wait_until_ready()

    def _wait_until_ready(self) -> None:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                error = self.log.read_text(encoding="utf-8", errors="replace")[-500:]
                raise RuntimeError(f"the judge server exited at start-up ({self.log}): {error}")
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as reply:
                    if reply.status == 200:
                        return
            except OSError:
                time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"the judge server did not answer within {STARTUP_TIMEOUT_S:.0f} s")

    def stop(self) -> None:
        """Stop the server process (and wait for it)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


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
        self.server: LocalJudgeServer | None = None
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
                self.server = LocalJudgeServer(self.settings)
            base_url, key = self.server.base_url, "not-needed"
        client = AsyncOpenAI(base_url=base_url, api_key=key, timeout=self.settings.llm.request_timeout_s * 5)
        return llm_factory(self.model, provider="openai", client=client, temperature=0.0), _KitEmbeddings(self.settings)

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


class _KitEmbeddings:
    """The kit's embedder in the shape ragas' answer relevancy wants (built only when a judgement runs)."""

    def __new__(cls, settings: Settings) -> Any:
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
