"""One reader for a class: 1, 10 and 30 simulated students against the kit's served reader, and its faults.

What it does: serves the packaged reader with `helpers.llm.server.LlamaServer` on loopback (what
`python -m helpers serve` runs, with an API key as a class would), builds the course index in its own folder,
and lets one student ask the first `--questions` gold dev questions through the pipeline (retrieval in the
student's kernel, the answer from the server): those are the single-student answers and the prompts.
Then each level: every student asks at the same moment (the burst: "now everyone try this"), then at a
student's pace (reads the answer, thinks `THINK_S` seconds, asks the next question) until `--seconds` have
passed; what was asked is always answered before the level ends (drained, never dropped). Every student streams
(the app's path); `--non-streamed` makes every other one wait for the whole answer instead (`pipeline.ask` in a
notebook), which a queue longer than the request timeout turns into time-outs. A failed try is what a student
sees: the kit's `LLMError` message; the student reads it and asks again after `RETRY_WAIT_S`, at most `TRIES`
times; a question with no answer after that is lost. Every answer is kept and compared with the single-student
answer of the same prompt.
Faults, one student each (three for the kill): the server killed mid-answer and started again, the server
stopped (SIGSTOP) for longer than the timeout, a wrong URL, a wrong key: the message each gives, how long it took
to come, and whether the next try answers.
The machine is shared: its load average is recorded at both ends (`bench.common.Record`).
What it leaves out: GPUs and other servers (vLLM, Ollama), many-machine networks (loopback only).

    nice .venv/bin/python -m bench.serve_load [--model qwen2.5-coder-0.5b] [--seconds 90] [--levels 1,10,30]
"""

from __future__ import annotations

import os
import random
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from bench.common import Record, arguments, ensure_index, use_data_dir

KEY = "class-key"  # the key the served reader wants (python -m helpers serve --api-key)
THINK_S = (20.0, 60.0)  # a student reads the answer and types the next question
RETRY_WAIT_S = 5.0  # a student reads the message, then presses Ask again
TRIES = 3  # a student gives up after this many messages in a row: the question is lost
SLOW_TIMEOUT_S = 10.0  # KIT_REQUEST_TIMEOUT_S in the slow-server fault (the default is 60 s)


@dataclass
class Asked:
    """One question of one student: when, how long, what came back."""

    student: int
    prompt: int
    streamed: bool
    burst: bool
    submitted_s: float
    first_token_s: float | None = None
    answer_s: float | None = None
    tries: int = 0
    messages: list[str] = field(default_factory=list)
    text: str = ""
    same_as_single: bool | None = None
    longest_try_s: float = 0.0


def reply(llm: Any, messages: list[dict[str, str]], streamed: bool, max_tokens: int) -> tuple[str, float]:
    """The reader's reply and the seconds to its first piece (the whole reply when not streamed)."""
    from helpers.generation.answer import clean_output

    start = time.perf_counter()
    if not streamed:
        return clean_output(llm.chat(messages, max_tokens).text), time.perf_counter() - start
    pieces, first = [], None
    for piece in llm.stream(messages, max_tokens):
        first = first if first is not None else time.perf_counter() - start
        pieces.append(piece)
    return clean_output("".join(pieces)), first if first is not None else time.perf_counter() - start


def ask(
    llm: Any, prompt: dict[str, Any], asked: Asked, max_tokens: int, between: Callable[[], None], tries: int = TRIES
) -> Asked:
    """Ask until an answer comes or `tries` messages came; `between` runs after each message (the student waits)."""
    from helpers.llm import LLMError

    start = time.perf_counter()
    while asked.tries < tries:
        asked.tries += 1
        try_start = time.perf_counter()
        try:
            asked.text, first = reply(llm, prompt["messages"], asked.streamed, max_tokens)
        except LLMError as error:
            asked.messages.append(str(error))
            asked.longest_try_s = max(asked.longest_try_s, time.perf_counter() - try_start)
            between()
            continue
        asked.longest_try_s = max(asked.longest_try_s, time.perf_counter() - try_start)
        asked.first_token_s = round(try_start - start + first, 3)  # from the question, failed tries included
        asked.answer_s = round(time.perf_counter() - start, 3)
        asked.same_as_single = asked.text == prompt["text"]
        break
    return asked


def single_student(pipeline: Any, questions: list[str]) -> list[dict[str, Any]]:
    """One student alone asks every question through the pipeline (streamed): the prompts and the answers."""
    from helpers.generation.answer import clean_output

    prompts = []
    for question in questions:
        pieces: list[str] = []
        answer = pipeline.ask(question, on_token=pieces.append)
        prompts.append(
            {
                "question": question,
                "status": answer.status,
                "messages": answer.messages,
                "text": clean_output("".join(pieces)),
                "answer": answer.text,
                "first_token_s": round(answer.timings.get("first_token", answer.timings.get("generate", 0.0)), 3),
                "answer_s": round(answer.timings.get("generate", 0.0), 3),
            }
        )
        print(f"  single: {prompts[-1]['answer_s']:.1f} s  {question[:60]}", flush=True)
    return [p for p in prompts if p["messages"]]  # a refusal before the model (no passage) sends nothing


def student(
    number: int,
    settings: Any,
    prompts: list[dict[str, Any]],
    seconds: float,
    start: threading.Barrier,
    out: list,
    non_streamed: bool = False,
) -> None:
    """One student: a burst question at the shared start, then questions at a student's pace until `seconds`."""
    from helpers.llm import OpenAICompatibleLLM

    llm = OpenAICompatibleLLM(settings)  # each kernel has its own HTTP client
    rng = random.Random(number)
    streamed, index, burst = not (non_streamed and number % 2), number % len(prompts), True
    start.wait()
    t0 = time.perf_counter()
    while True:
        asked = Asked(number, index, streamed, burst, round(time.perf_counter() - t0, 3))
        out.append(
            ask(llm, prompts[index], asked, settings.llm.llm_max_answer_tokens, lambda: time.sleep(RETRY_WAIT_S))
        )
        index, burst = (index + 1) % len(prompts), False
        think = rng.uniform(*THINK_S)
        if time.perf_counter() - t0 + think > seconds:
            break
        time.sleep(think)
    llm.close()


def percentile(values: list[float], share: float) -> float | None:
    """The `share` percentile (linear between ranks, numpy's default), or None for no values."""
    import numpy as np

    return round(float(np.percentile(values, 100 * share)), 2) if values else None


def summary(asked: list[Asked], wall_s: float) -> dict[str, Any]:
    """Throughput, percentiles, errors, lost answers and agreement with the single-student answers of one level."""
    answered = [a for a in asked if a.answer_s is not None]
    first = [a.first_token_s for a in answered if a.streamed and a.first_token_s is not None]
    whole = [a.answer_s for a in answered]
    return {
        "questions": len(asked),
        "answered": len(answered),
        "lost": len(asked) - len(answered),
        "tries_failed": sum(len(a.messages) for a in asked),
        "messages": sorted({m for a in asked for m in a.messages}),
        "wall_s": round(wall_s, 1),
        "answers_per_minute": round(60 * len(answered) / wall_s, 2) if wall_s else None,
        "first_token_s_streamed": {"p50": percentile(first, 0.5), "p95": percentile(first, 0.95), "n": len(first)},
        "answer_s": {"p50": percentile(whole, 0.5), "p95": percentile(whole, 0.95), "max": max(whole, default=None)},
        "burst_answer_s": {
            "p50": percentile([a.answer_s for a in answered if a.burst], 0.5),
            "max": max((a.answer_s for a in answered if a.burst), default=None),
        },
        "same_as_single": f"{sum(bool(a.same_as_single) for a in answered)} of {len(answered)}",
        "longest_try_s": round(max((a.longest_try_s for a in asked), default=0.0), 1),
    }


def level(
    students: int, settings: Any, prompts: list[dict[str, Any]], seconds: float, non_streamed: bool = False
) -> dict[str, Any]:
    """`students` at once: the burst, then their pace for `seconds`; waits for every question asked."""
    out: list[Asked] = []
    barrier = threading.Barrier(students + 1)
    threads = [
        threading.Thread(target=student, args=(n, settings, prompts, seconds, barrier, out, non_streamed), daemon=True)
        for n in range(students)
    ]
    for thread in threads:
        thread.start()
    barrier.wait()
    start = time.perf_counter()
    for thread in threads:
        thread.join()
    result = summary(out, time.perf_counter() - start)
    print(f"  {students} students: {result}", flush=True)
    return {**result, "students": students, "asked": [asdict(a) for a in out]}


def one_fault(
    name: str,
    settings: Any,
    prompt: dict[str, Any],
    fault: Callable[[], None],
    fix: Callable[[], None],
    retry_settings: Any,
    students: int = 1,
    fault_after_s: float = 0.0,
) -> dict[str, Any]:
    """`students` ask one question each (one try: its message is what is measured) with `fault` on (started
    `fault_after_s` after they asked); `fix` runs; then each asks again with `retry_settings`, which must answer."""
    from helpers.llm import OpenAICompatibleLLM

    max_tokens = settings.llm.llm_max_answer_tokens
    out: list[Asked] = []

    def first_try(number: int) -> None:
        llm = OpenAICompatibleLLM(settings)
        asked = Asked(number, 0, True, False, 0.0)
        ask(llm, prompt, asked, max_tokens, lambda: None, tries=1)
        out.append(asked)
        llm.close()

    if not fault_after_s:
        fault()
    threads = [threading.Thread(target=first_try, args=(n,), daemon=True) for n in range(students)]
    for thread in threads:
        thread.start()
    if fault_after_s:
        time.sleep(fault_after_s)
        fault()
    for thread in threads:
        thread.join()
    fix()
    retries = []
    for number in range(students):
        llm = OpenAICompatibleLLM(retry_settings)
        retries.append(ask(llm, prompt, Asked(number, 0, True, False, 0.0), max_tokens, lambda: time.sleep(2)))
        llm.close()
    result = {
        "fault": name,
        "first_try": [
            {"message": a.messages[0] if a.messages else "(answered)", "seconds": a.longest_try_s} for a in out
        ],
        "retry_answered": f"{sum(r.answer_s is not None for r in retries)} of {students}",
        "retry_same_as_single": f"{sum(bool(r.same_as_single) for r in retries)} of {students}",
        "retry_tries": [r.tries for r in retries],
        "retry_seconds": [r.answer_s for r in retries],
    }
    print(f"  fault {name}: {result}", flush=True)
    return result


def faults(server: Any, settings: Any, prompt: dict[str, Any]) -> list[dict[str, Any]]:
    """The four faults, each with its one message and the retry after the fix."""
    from helpers.llm.server import free_port

    slow = settings.replace(request_timeout_s=SLOW_TIMEOUT_S)
    wrong_url = settings.replace(openai_base_url=f"http://127.0.0.1:{free_port()}/v1")

    def kill() -> None:
        server.process.kill()

    def pause() -> None:
        os.kill(server.process.pid, signal.SIGSTOP)

    def resume() -> None:
        os.kill(server.process.pid, signal.SIGCONT)

    return [
        one_fault("server killed mid-answer, then started again", settings, prompt, kill, server.restart, settings,
                  students=3, fault_after_s=1.0),
        one_fault(f"server stopped (SIGSTOP) past the {SLOW_TIMEOUT_S:g} s timeout, then continued", slow, prompt,
                  pause, resume, slow),
        one_fault("wrong URL (a port nothing listens on); retried with the right one", wrong_url, prompt,
                  lambda: None, lambda: None, settings),
        one_fault("wrong key; retried with the right one", settings.replace(openai_api_key="wrong-key"), prompt,
                  lambda: None, lambda: None, settings),
    ]  # fmt: skip


def main() -> None:
    """Serve, ask alone, then 1/10/30 students, then the faults; write bench/results/serve_load.json."""
    args = arguments(__doc__.splitlines()[0], extra)
    use_data_dir(args.data_dir)
    from helpers.config import get_settings
    from helpers.corpus import load_gold
    from helpers.llm import OpenAICompatibleLLM
    from helpers.llm.server import LlamaServer, usable_cores
    from helpers.pipeline import RAGPipeline

    name = "serve_load" + ("_non_streamed" if args.non_streamed else "") + ("_smoke" if args.smoke else "")
    record = Record(name, args.out, smoke=args.smoke)
    local = get_settings().replace(llm_backend="local", llm_model=args.model, llm_gguf="", shipped_answers=False)
    local = local.replace(llm_max_answer_tokens=32) if args.smoke else local  # smoke: checks the script only
    start = time.perf_counter()
    server = LlamaServer(local, threads=args.threads or usable_cores(), api_key=KEY)
    record["server"] = {
        "model": local.llm.name, "threads": server.threads, "start_s": round(time.perf_counter() - start, 1),
        "command": " ".join(server.command[1:]).replace(KEY, "<key>"),
    }  # fmt: skip
    remote = local.replace(
        llm_backend="openai", openai_base_url=server.base_url, openai_model=local.llm.name, openai_api_key=KEY
    )
    try:
        pipeline = RAGPipeline(remote)
        record["index"] = ensure_index(pipeline)
        pipeline.__dict__["llm"] = OpenAICompatibleLLM(remote)  # no answer cache: every answer from the server
        questions = [q.question for q in load_gold(split="dev")[: args.questions]]
        start = time.perf_counter()
        prompts = single_student(pipeline, questions)
        pipeline.close()
        kept = [{k: v for k, v in p.items() if k != "messages"} for p in prompts]  # the prompts: long, rebuilt by ask
        record["single_student"] = {"seconds": round(time.perf_counter() - start, 1), "answers": kept}
        record["settings"] = {
            "seconds_per_level": args.seconds, "think_s": THINK_S, "retry_wait_s": RETRY_WAIT_S, "tries": TRIES,
            "request_timeout_s": remote.llm.request_timeout_s, "llm_max_retries": remote.llm.llm_max_retries,
            "max_answer_tokens": remote.llm.llm_max_answer_tokens,
            "streamed": "even-numbered students" if args.non_streamed else "every student",
        }  # fmt: skip
        levels = [level(n, remote, prompts, args.seconds, args.non_streamed) for n in args.levels]
        record["levels"] = levels
        record["lost_answers"] = sum(lv["lost"] for lv in levels)
        if not args.no_faults:
            record["faults"] = faults(server, remote, prompts[0])
    finally:
        server.stop()
    record.save()


def extra(parser: Any) -> None:
    """This benchmark's options."""
    from pathlib import Path

    parser.add_argument("--model", default="qwen2.5-coder-0.5b", help="the packaged reader to serve")
    parser.add_argument("--seconds", type=float, default=90.0, help="how long each level's students keep asking")
    parser.add_argument("--levels", type=lambda s: [int(x) for x in s.split(",")], default=[1, 10, 30])
    parser.add_argument("--questions", type=int, default=12, help="gold dev questions asked")
    parser.add_argument("--threads", type=int, default=0, help="the server's threads (default: every usable core)")
    parser.add_argument("--no-faults", action="store_true", help="skip the fault runs")
    parser.add_argument("--non-streamed", action="store_true", help="every other student waits for whole answers")
    parser.add_argument("--data-dir", type=Path, default=None, help="a data folder with the course index")


if __name__ == "__main__":
    main()
