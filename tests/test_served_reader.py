"""The OpenAI path against a real server, not a mock: `LlamaServer` serves the kit's 0.5B GGUF on loopback, and
the pipeline's `ask` (a short answer, a streamed long one), the app's answer and one RAGAS judgement go through it.

Each served answer is checked against the in-process reader on the same prompt at temperature 0: llama.cpp in
another process, the same weights and chat template, so the text should be the same word for word. The agreement
measured (identical texts out of those compared) is written in docs/decisions.md.
What it leaves out: load (bench/serve_load.py) and servers other than llama.cpp's.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from course_subset import SMALL_COURSE, dev_questions_within

from helpers.app import AppEngine, Knobs
from helpers.config import get_settings
from helpers.corpus import DOCS_DIR
from helpers.generation import Answer, TokenBudget
from helpers.generation.answer import SHORT_MAX_TOKENS, clean_output, is_refusal
from helpers.llm import LLM, DiskCache, LLMError, make_llm
from helpers.llm.server import LlamaServer, free_port
from helpers.pipeline import RAGPipeline


@dataclass
class Served:
    """The served reader, a pipeline answering through it, and the in-process reader to compare with."""

    server: LlamaServer
    pipeline: RAGPipeline
    local: LLM
    questions: list[str]


def small_course(folder: Path) -> Path:
    """A copy of six course documents (a dozen dev questions have their evidence there)."""
    for relative in SMALL_COURSE:
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(DOCS_DIR / relative, target)
    return folder


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The 0.5B reader served on 127.0.0.1; a pipeline over the small course whose model is that endpoint."""
    root = tmp_path_factory.mktemp("served")
    docs = small_course(root / "docs")
    # short prompts and answers: the test checks the path, not the reader's quality
    local_settings = get_settings().replace(
        data_dir=root / "data", corpus_dir=docs, llm_backend="local", llm_model="qwen2.5-coder-0.5b", llm_gguf="",
        shipped_answers=False, llm_max_answer_tokens=64, top_k=3, worked_examples="none",
    )  # fmt: skip
    server = LlamaServer(local_settings, threads=local_settings.llm.llm_threads, log=root / "server.log")
    remote = local_settings.replace(
        llm_backend="openai", openai_base_url=server.base_url, openai_model=local_settings.llm.name, openai_api_key=""
    )
    pipeline = RAGPipeline(remote)
    pipeline.__dict__["llm"] = make_llm(remote, cache=False)  # every answer from the server, none from the disk
    pipeline.ingest(docs, progress=False)
    local = make_llm(local_settings, cache=False)
    questions = [q.question for q in dev_questions_within(SMALL_COURSE)[:3]]
    yield Served(server, pipeline, local, questions)
    local.close()
    pipeline.close()
    server.stop()


def test_the_server_command_keeps_streamed_answers_whole() -> None:
    from helpers.llm.server import address_for_students, server_command

    settings = get_settings().replace(llm_backend="local", llm_model="smollm2-135m", llm_gguf="")
    command = server_command(settings, "0.0.0.0", 8000, threads=4, api_key="class-key")
    assert command[command.index("--interrupt_requests") + 1] == "False"  # a queued request must not cut a stream
    assert command[command.index("--n_threads") + 1] == "4" and command[-2:] == ["--api_key", "class-key"]
    assert address_for_students("0.0.0.0", 8000) == f"http://{socket.gethostname()}:8000/v1"  # others' address
    assert address_for_students("10.0.0.5", 8000) == "http://10.0.0.5:8000/v1"


WITHOUT_LLAMA_CPP = """
import sys
sys.modules["llama_cpp"] = None  # as after a set-up for a remote reader: llama-cpp-python not installed
import helpers.__main__, helpers.app, helpers.evaluation.ragas_eval, helpers.pipeline
from helpers.config import get_settings
from helpers.llm import make_llm
from helpers.models import ModelNotAvailable
make_llm(get_settings().replace(llm_backend="openai", openai_base_url="http://127.0.0.1:9/v1"), cache=False)
try:
    make_llm(get_settings().replace(llm_backend="local"), cache=False)
except ModelNotAvailable as error:
    print(error)
"""


def test_the_kit_runs_without_llama_cpp_when_the_reader_is_remote() -> None:
    done = subprocess.run([sys.executable, "-c", WITHOUT_LLAMA_CPP], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "the local reader (llama-cpp-python) is not installed" in done.stdout


def test_the_serve_command_prints_what_students_set_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    port = free_port()
    command = [sys.executable, "-m", "helpers", "serve", "--port", str(port), "--model", "smollm2-135m",
               "--threads", "1", "--api-key", "class-key"]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")} | {"KIT_CACHE_DIR": str(tmp_path)}
    serve = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env)
    lines = []
    try:
        for line in iter(serve.stdout.readline, ""):  # type: ignore[union-attr]
            lines.append(line.strip())
            if line.startswith("stop it with"):
                break
        assert f"export OPENAI_BASE_URL=http://127.0.0.1:{port}/v1" in lines, lines
        assert "export OPENAI_MODEL=smollm2-135m" in lines and "export OPENAI_API_KEY=class-key" in lines
        llm = make_llm(
            get_settings().replace(
                llm_backend="openai", openai_base_url=f"http://127.0.0.1:{port}/v1", openai_api_key="class-key",
                openai_model="smollm2-135m",
            ),
            cache=False,
        )  # fmt: skip
        assert llm.chat([{"role": "user", "content": "Say hello."}], 4).text
        llm.close()
    finally:
        serve.send_signal(signal.SIGINT)  # Ctrl-C: the command stops its server and exits 0
        assert serve.wait(timeout=30) == 0


def in_process(served: Served, answer: Answer, mode: str = "sentence") -> str:
    """The in-process reader's reply to the prompt the served reader answered, tidied as the pipeline tidies it."""
    room = TokenBudget.from_settings(served.pipeline.settings).answer
    max_tokens = room if mode == "sentence" else min(room, SHORT_MAX_TOKENS)
    return clean_output(served.local.chat(answer.messages, max_tokens).text)


def same_answer(answer: Answer, text: str) -> bool:
    """The in-process reply says what the served answer says (a refusal: both refuse)."""
    return text == answer.text if answer.status == "answered" else is_refusal(text)


def test_a_short_answer_through_the_server_is_the_in_process_answer(served: Served) -> None:
    answer = served.pipeline.ask(served.questions[0], mode="short")
    assert answer.messages and answer.text, answer
    assert same_answer(answer, in_process(served, answer, "short"))


def test_a_streamed_answer_through_the_server_is_the_in_process_answer(served: Served) -> None:
    pieces: list[str] = []
    answer = served.pipeline.ask(served.questions[1], on_token=pieces.append)
    assert len(pieces) > 3 and answer.timings["first_token"] < answer.timings["generate"], pieces
    assert answer.status != "answered" or clean_output("".join(pieces)) == answer.text
    assert same_answer(answer, in_process(served, answer))


def test_the_apps_answer_goes_through_the_endpoint(served: Served) -> None:
    engine = AppEngine(pipeline=served.pipeline)
    engine.ready.set()  # no warm-up: the endpoint loads nothing here
    knobs = Knobs.from_settings(served.pipeline.settings)
    assert knobs.model == "endpoint"
    pieces: list[str] = []
    turn = engine.ask(served.questions[2], knobs, on_token=pieces.append)
    assert turn.answer is not None and pieces, turn.message
    assert same_answer(turn.answer, in_process(served, turn.answer))


def test_a_ragas_judgement_through_the_endpoint(served: Served, tmp_path: Path) -> None:
    from helpers.evaluation.ragas_eval import Judge

    judge = Judge(served.pipeline.settings, cache=DiskCache(tmp_path))
    assert judge.remote and served.server.base_url in judge.name
    context = "The application fee is $90. Full-time tuition is $14,850 per quarter."
    score = judge.faithfulness("What is the application fee?", "The application fee is $90.", [context])
    assert judge.judged == 1 and judge.server is None  # judged by the served reader, no second server started
    assert 0.0 <= score <= 1.0


def test_a_stopped_server_is_one_clear_message_and_a_restart_answers_again(served: Served) -> None:
    served.server.stop()
    fast = served.pipeline.settings.replace(llm_max_retries=0, request_timeout_s=5.0)
    with pytest.raises(LLMError, match=r"cannot connect .*start the server or fix OPENAI_BASE_URL"):
        make_llm(fast, cache=False).chat([{"role": "user", "content": "Hi"}], 4)
    served.server.restart()
    assert make_llm(fast, cache=False).chat([{"role": "user", "content": "Hi"}], 4).text
