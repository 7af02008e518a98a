"""LLM endpoint failures end in a clear `LLMError`, retried with backoff where a retry can help, never with the key.

`FakeEndpoint` is a throwaway OpenAI-compatible HTTP server on 127.0.0.1 that answers 401, 429, 500, a body
that is not JSON, a completion whose content is not JSON, or answers too slowly. It is a fake allowed only
inside these tests: they check the client's handling of a real HTTP exchange, not any model.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from reliability_kit import Record, closed_port

from helpers.config import Settings, show
from helpers.llm import LLMError, OpenAICompatibleLLM
from helpers.parsing.enrich import ask_for_metadata

SECRET = "sk-test-DO-NOT-PRINT-4f9a1c"
MESSAGES = [{"role": "user", "content": "What is the application fee?"}]


def completion(content: str) -> bytes:
    choice = {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
    usage = {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8}
    return json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": [choice],
                       "usage": usage}).encode()  # fmt: skip


REPLIES = {  # mode → (HTTP status, body); the 401 body echoes the key, as some servers do
    "401": (401, json.dumps({"error": {"message": f"Incorrect API key provided: {SECRET}"}}).encode()),
    "429": (429, b'{"error": {"message": "slow down"}}'),
    "500": (500, b'{"error": {"message": "internal error"}}'),
    "not json": (200, b'{"choices": [ this is not json'),
    "content not json": (200, completion('{"sender": "registrar", oops')),
    "slow": (200, completion("late")),
}


class FakeEndpoint:
    """A local HTTP server answering every POST by `mode`, recording each request's time and headers."""

    def __init__(self) -> None:
        self.mode, self.requests = "500", []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers["Content-Length"]))
                endpoint.requests.append((time.perf_counter(), dict(self.headers)))
                if endpoint.mode == "slow":
                    time.sleep(2)
                if endpoint.mode == "broken stream":
                    self.break_a_stream()
                    return
                status, body = REPLIES[endpoint.mode]
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def break_a_stream(self) -> None:
                """Two pieces of a streamed answer, then the connection closes mid-body (a killed server)."""
                self.protocol_version = "HTTP/1.1"  # chunked: the client can tell a body cut short
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for word in ("The fee", " is"):
                    delta = {"choices": [{"index": 0, "delta": {"content": word}, "finish_reason": None}]}
                    event = f"data: {json.dumps({'id': 'x', 'object': 'chat.completion.chunk', **delta})}\n\n"
                    self.wfile.write(f"{len(event.encode()):x}\r\n{event}\r\n".encode())
                self.wfile.write(b"40\r\ndata: {")  # a chunk promised, never finished
                self.wfile.flush()
                self.close_connection = True

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_port}/v1"


@pytest.fixture
def endpoint() -> Iterator[FakeEndpoint]:
    fake = FakeEndpoint()
    thread = threading.Thread(target=fake.server.serve_forever, daemon=True)
    thread.start()
    yield fake
    fake.server.shutdown()
    fake.server.server_close()


def openai_settings(settings: Settings, url: str, **changes: object) -> Settings:
    return settings.replace(llm_backend="openai", openai_base_url=url, openai_api_key=SECRET, **changes)


def assert_no_secret(*texts: str) -> None:
    for text in texts:
        assert SECRET not in text and SECRET[8:] not in text


# mode → (settings changes, what the message must say, requests the server sees)
FAILURES = {
    "401": ({}, r"the API key was refused \(HTTP 401\); check OPENAI_API_KEY", 1),  # a retry cannot help
    "429": ({}, r"rate limited \(HTTP 429\) after 3 tries", 3),
    "500": ({}, r"HTTP 500 after 3 tries", 3),
    "not json": ({}, r"reply is not valid OpenAI JSON; does OPENAI_BASE_URL end in /v1\?", 1),
    "slow": ({"request_timeout_s": 0.5, "llm_max_retries": 1}, r"no answer within 0.5 s after 2 tries", 2),
}


@pytest.mark.parametrize("mode", list(FAILURES))
def test_endpoint_failure_is_a_clear_llm_error_without_the_key(
    mode: str, endpoint: FakeEndpoint, rel_settings: Settings, caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str], record: Record,
) -> None:  # fmt: skip
    changes, message, requests = FAILURES[mode]
    endpoint.mode = mode
    llm = OpenAICompatibleLLM(openai_settings(rel_settings, endpoint.url, **changes))
    caplog.set_level(logging.DEBUG)  # the openai and httpx loggers at their most talkative
    start = time.perf_counter()
    with pytest.raises(LLMError, match=message) as caught:
        llm.chat(MESSAGES, 16)
    seconds = time.perf_counter() - start
    llm.close()
    assert len(endpoint.requests) == requests
    assert endpoint.requests[0][1]["Authorization"] == f"Bearer {SECRET}"  # the key was really sent ...
    out = capsys.readouterr()
    assert_no_secret(str(caught.value), repr(caught.value), repr(llm), caplog.text, out.out, out.err)  # ... never shown
    gaps = [b[0] - a[0] for a, b in zip(endpoint.requests, endpoint.requests[1:], strict=False)]
    if requests == 3:
        assert 0.3 < gaps[0] < gaps[1]  # exponential backoff between the tries
    record(f"LLM: {mode}", f"LLMError “{caught.value}” after {len(endpoint.requests)} request(s), {seconds:.1f} s; "
           "key in no message, log or output")  # fmt: skip


def test_endpoint_down_is_retried_with_backoff_then_reported(rel_settings: Settings, record: Record) -> None:
    llm = OpenAICompatibleLLM(openai_settings(rel_settings, f"http://127.0.0.1:{closed_port()}/v1"))
    start = time.perf_counter()
    with pytest.raises(LLMError, match=r"cannot connect after 3 tries; start the server or fix OPENAI_BASE_URL"):
        llm.chat(MESSAGES, 16)
    seconds = time.perf_counter() - start
    assert 0.7 < seconds < 5  # two backoff pauses (about 0.5 s and 1 s), then the message
    record("LLM: endpoint down", f"LLMError after 3 tries in {seconds:.1f} s: start the server or fix OPENAI_BASE_URL")


def test_a_stream_cut_mid_answer_is_a_clear_llm_error(
    endpoint: FakeEndpoint, rel_settings: Settings, record: Record
) -> None:
    endpoint.mode = "broken stream"
    llm = OpenAICompatibleLLM(openai_settings(rel_settings, endpoint.url))
    pieces: list[str] = []
    with pytest.raises(LLMError, match=r"the connection broke mid-answer .*; ask again") as caught:
        pieces.extend(llm.stream(MESSAGES, 16))
    llm.close()
    assert_no_secret(str(caught.value))
    record("LLM: the stream cut mid-answer (the server killed)", f"LLMError “{caught.value}”")


def test_malformed_structured_output_is_retried_once_then_reported(
    endpoint: FakeEndpoint, rel_settings: Settings, record: Record
) -> None:
    endpoint.mode = "content not json"
    llm = OpenAICompatibleLLM(openai_settings(rel_settings, endpoint.url))
    result = ask_for_metadata(llm, "From: registrar@example.edu\nSubject: Fees\n\nThe fee is $90.")
    llm.close()
    assert result.metadata is None
    assert result.error.startswith("no valid JSON after one retry: invalid JSON")
    assert len(endpoint.requests) == 2  # asked again once, with the error shown to the model
    record("LLM: structured output that is not JSON", f"asked once more, then “{result.error}”")


def test_the_key_is_never_shown_by_show_or_repr(rel_settings: Settings, capsys: pytest.CaptureFixture[str]) -> None:
    settings = openai_settings(rel_settings, "http://127.0.0.1:9/v1", qdrant_api_key=SECRET)
    show(settings)
    llm = OpenAICompatibleLLM(settings)
    printed = capsys.readouterr().out
    assert "openai_api_key" in printed and "set (hidden)" in printed
    assert_no_secret(printed, repr(settings), str(settings), repr(llm), str(settings.grouped_rows()))
    llm.close()
