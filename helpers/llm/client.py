"""LLM clients behind one small interface: chat messages in, text (or a stream of text pieces) out, at temperature 0
with a fixed seed: `LocalLLM` (the packaged GGUF, offline) or `OpenAICompatibleLLM` (`OPENAI_BASE_URL`).
What it leaves out: tool calls, logprobs, batching.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from helpers.config import Settings
from helpers.models import ModelNotAvailable, llm_gguf_path

MAX_ANCHORS = 16  # KV states kept in memory (a few MB each)


class LLMError(RuntimeError):
    """The language model could not answer; the message says why and what to try."""


@dataclass
class Completion:
    """Text from the model with its token counts and timings."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    cached: bool = False


class LLM(Protocol):
    """What the kit needs from a language model."""

    name: str

    def chat(self, messages: list[dict[str, str]], max_tokens: int) -> Completion: ...

    def stream(self, messages: list[dict[str, str]], max_tokens: int) -> Iterator[str]: ...

    def close(self) -> None: ...


class LocalLLM:
    """A GGUF model run in-process by llama-cpp-python (deterministic at temperature 0)."""

    def __init__(self, settings: Settings) -> None:
        try:
            from llama_cpp import Llama
        except ImportError:  # set up for a remote reader (OPENAI_BASE_URL): nothing compiled
            raise ModelNotAvailable(
                "the local reader (llama-cpp-python) is not installed: set-up skips it when OPENAI_BASE_URL is set. "
                "Use the endpoint, or unset OPENAI_BASE_URL and run bash scripts/setup.sh again (it compiles)"
            ) from None

        self.settings, self.name = settings, settings.llm.name
        self._llama = Llama(
            model_path=str(llm_gguf_path(settings)),
            n_ctx=self.settings.llm.llm_context_tokens,
            n_threads=self.settings.llm.llm_threads,
            seed=self.settings.seed,
            verbose=False,
        )
        self._anchors: dict[str, Any] = {}  # the messages before the last -> the KV state after them

    def _start_from_anchor(self, messages: list[dict[str, str]]) -> None:
        """Start every prompt from the KV state after all its messages but the last (computed once from an empty
        cache), so an answer depends on its prompt alone: other batch shapes can flip a greedy token."""
        import numpy as np

        anchor = messages[:-1]
        if not anchor:
            self._llama.reset()
            return
        key = json.dumps(anchor)
        if key not in self._anchors:
            self._llama.reset()
            self._llama.create_chat_completion(messages=anchor, max_tokens=1, temperature=0.0)
            state = self._llama.save_state()
            state.scores = np.zeros((1, state.scores.shape[1]), dtype=np.single)  # logits rows: not needed
            while len(self._anchors) >= MAX_ANCHORS:  # the oldest first (dicts keep insertion order)
                self._anchors.pop(next(iter(self._anchors)))
            self._anchors[key] = state
        self._llama.load_state(self._anchors[key])

    def _create(self, messages: list[dict[str, str]], max_tokens: int, **extra: Any) -> Any:
        """llama.cpp's chat completion from the prompt's anchor state (extra: stream, response_format)."""
        self._start_from_anchor(messages)
        return self._llama.create_chat_completion(
            messages=messages,
            max_tokens=max_tokens,
            temperature=self.settings.llm.temperature,
            seed=self.settings.seed,
            **extra,
        )

    def chat(self, messages: list[dict[str, str]], max_tokens: int, **extra: Any) -> Completion:
        """One timed chat completion with its token counts (extra: llama.cpp's own arguments)."""
        start = time.perf_counter()
        out = self._create(messages, max_tokens, **extra)
        text, usage = out["choices"][0]["message"]["content"] or "", out["usage"]
        return Completion(text, usage["prompt_tokens"], usage["completion_tokens"], time.perf_counter() - start)

    def chat_json(self, messages: list[dict[str, str]], schema: dict[str, Any], max_tokens: int) -> Completion:
        """One chat completion whose text is JSON matching `schema` (llama.cpp turns the schema into a grammar)."""
        return self.chat(messages, max_tokens, response_format={"type": "json_object", "schema": schema})

    def stream(self, messages: list[dict[str, str]], max_tokens: int) -> Iterator[str]:
        """Yield the answer piece by piece as it is generated."""
        for chunk in self._create(messages, max_tokens, stream=True):
            piece = chunk["choices"][0]["delta"].get("content")
            if piece:
                yield piece

    def prime(self, messages: list[dict[str, str]]) -> str:
        """Ready the state prompts like `messages` start from (the app's warm-up): "disk" (read) or "computed"."""
        import llama_cpp

        anchor = messages[:-1]
        if not anchor:
            return "none"
        key = json.dumps([self.name, self.settings.llm.llm_context_tokens, llama_cpp.__version__, anchor])
        path = self.settings.paths.cache_dir / "kv_states" / f"{hashlib.sha256(key.encode()).hexdigest()[:16]}.pkl"
        if path.exists():
            try:
                state = pickle.loads(path.read_bytes())
                self._llama.load_state(state)  # raises on a state from another build of llama.cpp
                self._anchors[json.dumps(anchor)] = state
                return "disk"
            except Exception:
                path.unlink(missing_ok=True)
        self._start_from_anchor(messages)
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".tmp")
        partial.write_bytes(pickle.dumps(self._anchors[json.dumps(anchor)]))
        partial.replace(path)
        return "computed"

    def count_tokens(self, text: str) -> int:
        """Tokens of `text` in this model's own tokenizer."""
        return len(self._llama.tokenize(text.encode("utf-8"), add_bos=False))

    def close(self) -> None:
        """Free the model (avoids llama-cpp-python's traceback at interpreter exit)."""
        self._llama.close()


class OpenAICompatibleLLM:
    """Any OpenAI-compatible chat endpoint (the `openai` client retries with backoff); every failure becomes an
    `LLMError` that says what to try and never contains the key."""

    def __init__(self, settings: Settings) -> None:
        from openai import OpenAI

        self.settings, self.name = settings, settings.llm.name
        self._client = OpenAI(
            base_url=self.settings.llm.openai_base_url or None,
            api_key=self.settings.llm.openai_api_key or "not-needed",
            timeout=self.settings.llm.request_timeout_s,
            max_retries=self.settings.llm.llm_max_retries,
        )

    def __repr__(self) -> str:
        return f"OpenAICompatibleLLM({self.name!r})"  # never the client, which holds the key

    def _error(self, err: Exception) -> LLMError:
        """A readable `LLMError` for a failed call; the server's own text is left out (it may echo the key)."""
        import httpx
        import openai

        tries = f"after {self.settings.llm.llm_max_retries + 1} tries"
        if isinstance(err, openai.APITimeoutError):
            why = f"no answer within {self.settings.llm.request_timeout_s:g} s {tries}; raise KIT_REQUEST_TIMEOUT_S"
        elif isinstance(err, openai.APIConnectionError):
            why = f"cannot connect {tries}; start the server or fix OPENAI_BASE_URL"
        elif isinstance(err, openai.AuthenticationError | openai.PermissionDeniedError):
            why = f"the API key was refused (HTTP {err.status_code}); check OPENAI_API_KEY"
        elif isinstance(err, openai.RateLimitError):
            why = f"rate limited (HTTP 429) {tries}; wait a minute or lower the request rate"
        elif isinstance(err, openai.APIStatusError):
            why = f"HTTP {err.status_code} {tries if err.status_code >= 500 else ''}".strip()
        elif isinstance(err, httpx.TimeoutException):  # a streamed answer that stopped coming
            why = f"the answer stopped for {self.settings.llm.request_timeout_s:g} s mid-stream; ask again"
        elif isinstance(err, httpx.HTTPError):  # the connection broke while the answer streamed
            why = "the connection broke mid-answer (the server stopped or restarted?); ask again"
        else:  # a reply that is not the JSON an OpenAI-compatible API sends
            why = "its reply is not valid OpenAI JSON; does OPENAI_BASE_URL end in /v1?"
        return LLMError(f"the endpoint {self.name} failed: {why} ({type(err).__name__})")

    def _create(self, messages: list[dict[str, str]], max_tokens: int, stream: bool, **extra: Any) -> Any:
        """Call the endpoint (extra: e.g. response_format); a failure becomes an `LLMError` with a readable message."""
        from openai import OpenAIError

        try:
            return self._client.chat.completions.create(
                model=self.settings.llm.openai_model,
                messages=messages,  # type: ignore[arg-type]
                max_tokens=max_tokens,
                temperature=self.settings.llm.temperature,
                stream=stream,
                **extra,
            )
        except (OpenAIError, ValueError) as err:  # ValueError: a body that is not JSON at all
            raise self._error(err) from None

    def chat(self, messages: list[dict[str, str]], max_tokens: int, **extra: Any) -> Completion:
        """One timed chat completion from the endpoint with its token counts (0 when the endpoint sends none)."""
        start = time.perf_counter()
        out = self._create(messages, max_tokens, stream=False, **extra)
        text, usage = out.choices[0].message.content or "", out.usage
        tokens = (usage.prompt_tokens, usage.completion_tokens) if usage else (0, 0)
        return Completion(text, *tokens, time.perf_counter() - start)

    def chat_json(self, messages: list[dict[str, str]], schema: dict[str, Any], max_tokens: int) -> Completion:
        """One chat completion in JSON mode; the endpoint does not enforce `schema`, so the caller validates."""
        return self.chat(messages, max_tokens, response_format={"type": "json_object"})

    def stream(self, messages: list[dict[str, str]], max_tokens: int) -> Iterator[str]:
        """Yield the answer piece by piece from the endpoint (httpx's own errors come through a started stream)."""
        import httpx
        from openai import OpenAIError

        try:
            for chunk in self._create(messages, max_tokens, stream=True):
                if chunk.choices and chunk.choices[0].delta.content:
                    yield chunk.choices[0].delta.content
        except (OpenAIError, ValueError, httpx.HTTPError) as err:  # the connection broke, or a piece is not JSON
            raise self._error(err) from None

    def close(self) -> None:
        """Close the HTTP client."""
        self._client.close()
