"""The app without widgets: question + knobs + chat history in, a `Turn` out (answer, hits, or a message whose
`status` names what went wrong: nothing raises into the student's face); models warm up in the background.
What it leaves out: widgets (`widgets.py`) and tables (`views.py`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from helpers.app.chunking_knob import ChunkingIndexes
from helpers.app.knobs import FUNCTIONS, Knobs
from helpers.app.prompt_template import template_problem
from helpers.app.search import SearchBuilder, standalone_query
from helpers.app.views import no_hits_message, refusal_message
from helpers.config import Settings
from helpers.generation import REJECTION, Answer, TokenBudget, build_messages, worked_examples
from helpers.llm import LLM, LLMError, make_llm
from helpers.mechanisms import in_use, kits_own, load_mine
from helpers.pipeline import RAGPipeline
from helpers.types import Hit

EMPTY = "Type a question first, then press Ask."
NO_ENDPOINT = "No endpoint is configured: set OPENAI_BASE_URL (and OPENAI_API_KEY, OPENAI_MODEL), or pick model local."
UNREACHABLE_HINT = "Check that the server runs and OPENAI_BASE_URL is right, or switch the model knob to local."
WARMUP_TIMEOUT_S = 300.0


@dataclass
class Turn:
    """One question and everything the app shows for it."""

    question: str
    status: str  # an Answer status, or "empty", "bad_template", "no_hits", "unreachable", "error"
    message: str = ""  # what to tell the student (empty for a plain answer)
    query: str = ""  # what was searched, after follow-up rewriting
    hits: list[Hit] = field(default_factory=list)  # every retrieved hit (the prompt may hold fewer)
    answer: Answer | None = None
    seconds: float = 0.0

    @property
    def text(self) -> str:
        """The answer text, or the message."""
        return self.answer.text if self.answer is not None else self.message


def _since(start: float) -> float:
    """Seconds since `start` (a `time.perf_counter()` reading)."""
    return time.perf_counter() - start


class AppEngine:
    """Answers questions for the app under the current knobs; loads its models once."""

    def __init__(self, pipeline: RAGPipeline | None = None, settings: Settings | None = None) -> None:
        self.pipeline = pipeline or RAGPipeline(settings)
        self.settings = self.pipeline.settings
        self.search = SearchBuilder(self.pipeline)  # the app's own chunking; `indexes` holds the others
        self.indexes = ChunkingIndexes(self.search)
        self.budget = TokenBudget.from_settings(self.settings)
        self.ready = threading.Event()
        self.warmup_error = ""
        self._llms: dict[str, LLM] = {}
        self.mine = in_use() or load_mine(quiet=True)  # your functions: as the notebook put them, else my_rag.py

    @property
    def yours(self) -> str:
        """Which slots run the student's functions (my_rag.py), for the app's status line."""
        return f"Your functions: {', '.join(self.mine) or 'none yet'}."

    def llm(self, model: str) -> LLM:
        """The answering model for the model knob: "local" (packaged GGUF) or "endpoint" (OpenAI-compatible)."""
        if model not in self._llms:
            backend = "openai" if model == "endpoint" else "local"
            if backend == "openai" and not (self.settings.llm.openai_base_url or self.settings.llm.openai_api_key):
                raise LLMError(NO_ENDPOINT)
            if backend == self.settings.llm.llm_backend:
                self._llms[model] = self.pipeline.llm  # shared with the LLM reranker and query rewriting
            else:
                self._llms[model] = make_llm(self.settings.replace(llm_backend=backend))
        return self._llms[model]

    def warm_up(self, knobs: Knobs | None = None, step: Callable[[str], None] = lambda _: None) -> None:
        """Load everything the first question needs (the model in a second thread); `ready` is set even on errors."""
        knobs = knobs or Knobs.from_settings(self.settings)
        llm_thread = threading.Thread(target=self._guarded, args=(self._prime_llm, knobs.model), daemon=True)
        llm_thread.start()
        step("loading the embedder and the index")
        first_stage = knobs.replace(rerank=False, multi_query=False)  # those two use the LLM: after it is loaded
        self._guarded(self.search.retrieve, "warm-up", first_stage)  # embeds a query, fits BM25, opens Qdrant
        if llm_thread.is_alive():
            step("loading the language model")
        llm_thread.join()
        if knobs.rerank:
            step("loading the reranker")
            self._guarded(self.search.reranker)
        step(f"warm-up failed: {self.warmup_error}" if self.warmup_error else "ready")
        self.ready.set()

    def _guarded(self, task: Callable[..., object], *args: object) -> None:
        """Run one warm-up task; remember its error instead of raising (the app shows it)."""
        try:
            task(*args)
        except Exception as err:  # the first question then reports its own error, as a message
            self.warmup_error = f"{type(err).__name__}: {err}"

    def _prime_llm(self, model: str) -> None:
        """Load the local model and run the fixed prompt prefix through it (then served from the KV cache)."""
        if model == "local":
            llm = self.llm("local")
            raw = getattr(llm, "llm", llm)  # past the answer cache: the model itself must see the prefix
            prefix = build_messages("Hello?", [], examples=worked_examples(self.settings.generation.worked_examples))
            raw.prime(prefix) if hasattr(raw, "prime") else raw.chat(prefix, 1)

    def start_warm_up(self, knobs: Knobs | None = None, step: Callable[[str], None] = lambda _: None) -> None:
        """`warm_up` in a background thread (the app opens at once; the first question waits for it)."""
        threading.Thread(target=self.warm_up, args=(knobs, step), name="kit-app-warm-up", daemon=True).start()

    def ask(
        self,
        question: str,
        knobs: Knobs,
        history: Sequence[dict[str, str]] = (),
        on_token: Callable[[str], None] | None = None,
        on_step: Callable[[str], None] = lambda _: None,
    ) -> Turn:
        """Guard, rewrite the follow-up, retrieve under the knobs, answer with citations — or say why not;
        `on_token` receives the streamed answer, `on_step` what takes a while (indexing another chunking)."""
        start = time.perf_counter()
        question = question.strip()
        # 1. the cheap checks first: an empty question, a template that cannot be filled, an injection
        if not question:
            return Turn(question, "empty", EMPTY)
        if problem := template_problem(knobs.template):
            return Turn(question, "bad_template", problem)
        verdict = self.pipeline.check(question)
        if verdict.blocked:
            blocked = f"{REJECTION} (The input guard blocked: {' '.join(verdict.removed)})"
            return Turn(question, "rejected", verdict.message or blocked)
        self.ready.wait(WARMUP_TIMEOUT_S)
        searching = time.perf_counter()
        try:  # the slots run your functions (my_rag.py), or the kit's own when the knob says so
            with kits_own(knobs.functions != FUNCTIONS[0]):
                # 2. a follow-up becomes a standalone query; then retrieve under the knobs
                query = standalone_query(self.pipeline, history, verdict.question)
                hits = self.indexes.search_for(knobs.chunking, on_step).retrieve(query, knobs)
                retrieved = _since(searching)
                if not hits:
                    return Turn(question, "no_hits", no_hits_message(knobs), query, seconds=_since(start))
                # 3. the prompt under the token budget, the model's streamed answer, its citations
                answer = self.pipeline.generate(
                    verdict.question, hits, llm=self.llm(knobs.model), mode=knobs.mode, budget=self.budget,
                    refusal_threshold=knobs.refuse_below, on_token=on_token, template=knobs.template,
                )  # fmt: skip
        except LLMError as err:
            message = NO_ENDPOINT if str(err) == NO_ENDPOINT else f"The model did not answer: {err}. {UNREACHABLE_HINT}"
            return Turn(question, "unreachable", message, seconds=_since(start))
        except (RuntimeError, ValueError, OSError) as err:  # StoreError, ModelNotAvailable …: written for people
            return Turn(question, "error", f"{type(err).__name__}: {err}", seconds=_since(start))
        answer.timings = {"wait_for_warm_up": searching - start, "retrieve": retrieved, **answer.timings}
        message = refusal_message(knobs, hits) if answer.status == "no_context" else ""
        if answer.refused and (unreadable := self.pipeline.unreadable(verdict.question)):
            message = unreadable  # the embedder could not read the question: say so, not only "I don't know"
        elif answer.flagged:  # documents are data: say which retrieved passages gave the assistant orders
            fenced = self.settings.generation.passage_guard == "fence"
            kept = "fenced as quoted data" if fenced else "left out of the prompt"
            found = "; ".join(f"{hit.source}: {flag}" for hit, flag in answer.flagged)
            message = f"Orders to the assistant in {len(answer.flagged)} retrieved passage(s), {kept} ({found})."
        return Turn(question, answer.status, message, query, hits, answer, _since(start))

    def close(self) -> None:
        """Release the models and the embedded store (it admits one process at a time)."""
        for llm in self._llms.values():
            if llm is not self.pipeline.__dict__.get("llm"):
                llm.close()
        self._llms.clear()
        self.pipeline.close()
