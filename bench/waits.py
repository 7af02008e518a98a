"""What a user waits for, each beside its floor measured in the same run (the table of waits, before and
after the speed-up work).

What it does, on this machine, in one run (`python -m bench.waits`, or through `bash scripts/bench.sh`):
1. floors: a 1024² float32 torch matmul (GFLOP/s), an empty Python start, the default reader's bare prefill
   and decode rates and load time (llama.cpp directly, same model and threads as the kit), and a bare
   local-mode Qdrant upsert of as many points as the course index holds.
2. waits, each with its floor and the ratio wait ÷ floor:
   - embedding: the default embedder's chunks/s on course chunks (no cache) beside MiniLM torch fp32 (the
     reference of the "before" column) and MiniLM's useful FLOPs at the matmul rate;
   - chunking a folder of real documents (default strategy), seconds per MB, beside one regex pass over the text;
   - the course index, cold: `RAGPipeline.ingest()` in a fresh process with new data and cache folders (a fresh
     machine after set-up), beside the bare upsert plus an empty Python start;
   - that folder of real documents ingested cold (`bench.ingest`'s child process, new folders), beside embedding
     its chunks at the bare rate of the default embedder;
   - a short answer: the default pipeline on gold dev questions, the answer cache bypassed, streamed; first
     token and whole answer, with the reader's KV cache reset (cold) and, on other questions, each asked right
     after the one before as in the app (the fixed prompt prefix already in the KV cache); floor = prompt
     tokens ÷ bare prefill rate + answer tokens ÷ bare decode rate;
   - `python -m helpers ask` from a cold process (no answer cache, index built), beside Python start + model
     load + that answer's floor;
   - set-up on a fresh machine (`--setup`): `scripts/setup.sh` in a clean clone of HEAD with HOME an empty
     folder (no pip cache, no compiled llama.cpp wheel, no models), its phases timed from its `==>` lines; the
     floor is the time pip and the compiler take (download, build, install).
Writes `bench/results/waits.{json,md}` with the load average at both ends.
What it leaves out: apt (Tesseract is already installed here: `setup.sh` skips it), the browser, a Qdrant server.

    .venv/bin/python -m bench.waits [--smoke] [--setup] [--folder DIR]
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import REPO_ROOT, Record, arguments, cache_as_after_setup, ratio
from bench.embedders import matmul_gflops, minilm_flops

BEFORE = {  # the same waits, measured before the speed-up work (docs/decisions.md)
    "set-up on a fresh machine": "23 min",
    "course index, cold": "229 s",
    "real-document folder, ingest": "1,023 s for 5.8 MB (176 s/MB), 14 chunks/s",
    "chunking": "34 s for 5.8 MB (5.9 s/MB)",
    "embedding": "16 chunks/s (torch fp32)",
    "short answer": "12-21 s (0.5B reader, 650-830 prompt tokens)",
    "ask from a cold process": "~60 s",
}
QUESTIONS = 3  # gold dev questions answered for the answer row


def fresh_env(folder: Path, cache_dir: Path) -> dict[str, str]:
    """Environment of a fresh machine after set-up: new data and cache folders, the installed models linked."""
    cache = cache_as_after_setup(folder, cache_dir)
    return {**os.environ, "KIT_DATA_DIR": str(folder / "data"), "KIT_CACHE_DIR": str(cache),
            "PYTHONPATH": str(REPO_ROOT)}  # fmt: skip


def python_start_s() -> float:
    """Seconds for an empty Python start, best of 3 (the floor of any command)."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        best = min(best, time.perf_counter() - start)
    return round(best, 3)


def reader_floor(settings: Any) -> dict[str, float]:
    """Bare llama.cpp: load seconds, prefill and decode tokens/s of the default reader (same threads)."""
    from llama_cpp import Llama

    from helpers.models import llm_gguf_path

    start = time.perf_counter()
    llama = Llama(str(llm_gguf_path(settings)), n_ctx=2048, n_threads=settings.llm.llm_threads, verbose=False)
    load_s = time.perf_counter() - start
    words = ("The registrar publishes the academic calendar, the fees and the deadlines of every term. " * 60).split()
    prompt = llama.tokenize(" ".join(words).encode())[:700]
    best_prefill = float("inf")
    for _ in range(2):
        llama.reset()
        start = time.perf_counter()
        llama.eval(prompt)
        best_prefill = min(best_prefill, time.perf_counter() - start)
    llama.reset()
    start = time.perf_counter()
    out = llama.create_completion(llama.detokenize(prompt[:100]).decode(errors="ignore"), max_tokens=48,
                                  temperature=0.0)  # fmt: skip
    total = time.perf_counter() - start
    generated = out["usage"]["completion_tokens"]
    prefill_100 = 100 / (len(prompt) / best_prefill)
    decode_rate = generated / max(total - prefill_100, 1e-6)
    llama.close()
    return {"load_s": round(load_s, 2), "prefill_tokens_per_s": round(len(prompt) / best_prefill, 1),
            "decode_tokens_per_s": round(decode_rate, 1), "prefill_tokens": len(prompt)}  # fmt: skip


def bare_upsert_s(points: int, dimension: int = 384) -> float:
    """Seconds to upsert `points` random unit vectors (with a small payload) into a fresh local-mode collection."""
    import numpy as np
    from qdrant_client import QdrantClient, models

    vectors = np.random.default_rng(0).standard_normal((points, dimension)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    with tempfile.TemporaryDirectory(prefix="kit-bench-upsert-") as folder:
        client = QdrantClient(path=folder)
        start = time.perf_counter()
        config = models.VectorParams(size=dimension, distance=models.Distance.COSINE)
        client.create_collection("bare", vectors_config=config)
        for first in range(0, points, 256):
            batch = range(first, min(first + 256, points))
            client.upsert("bare", [models.PointStruct(id=i, vector=vectors[i].tolist(),
                                                      payload={"source": f"doc{i % 50}.md", "text": "x" * 500})
                                   for i in batch])  # fmt: skip
        seconds = time.perf_counter() - start
        client.close()
    return round(seconds, 2)


def embedding_row(settings: Any, texts: list[str], gflops: float) -> dict[str, Any]:
    """The default embedder's chunks/s beside MiniLM torch fp32 and MiniLM's useful FLOPs at the matmul rate."""
    from helpers.embedding.embedder import Embedder
    from helpers.embedding.onnx_model import word_pieces
    from helpers.lab.embedding_speed import backend_embedder, time_embedders
    from helpers.models import embedder_path

    default = Embedder(settings, use_cache=False, shipped_dir=None)
    default.load()
    table = time_embedders(texts, {"torch fp32": backend_embedder("torch fp32", settings), "default": default})
    pieces = word_pieces(texts, embedder_path())  # MiniLM's own tokenizer, whichever backend embeds
    floor_rate = gflops * 1e9 / (minilm_flops(pieces) / len(texts))
    rate = float(table.loc["default", "chunks/s"])
    return {"embedder": default.model_id, "chunks": len(texts), "chunks_per_s": round(rate, 1),
            "torch_fp32_chunks_per_s": round(float(table.loc["torch fp32", "chunks/s"]), 1),
            "speed_up": round(rate / float(table.loc["torch fp32", "chunks/s"]), 2),
            "floor_chunks_per_s": round(floor_rate, 1), "ratio": ratio(floor_rate, rate)}  # fmt: skip


def chunking_row(folder: Path, settings: Any) -> dict[str, Any]:
    """Default chunking of the parsed folder, seconds per MB, beside one regex pass over the same text."""
    from helpers.chunking import chunk_documents
    from helpers.parsing import parse_folder

    documents = parse_folder(folder, progress=False, cache_dir=settings.paths.cache_dir).documents
    megabytes = sum(len(d.text.encode()) for d in documents) / 1e6
    best = float("inf")
    for _ in range(2):
        start = time.perf_counter()
        nodes = chunk_documents(documents, settings.chunking.chunk_strategy)
        best = min(best, time.perf_counter() - start)
    start = time.perf_counter()
    for document in documents:
        sum(1 for _ in re.finditer(r"\S+", document.text))
    floor = time.perf_counter() - start
    return {"text_mb": round(megabytes, 2), "chunks": len(nodes), "seconds": round(best, 3),
            "s_per_mb": round(best / megabytes, 3), "floor_s": round(floor, 3),
            "ratio": ratio(best, floor)}  # fmt: skip


def ingest_in_fresh_process(folder: Path | None, work: Path, cache_dir: Path) -> dict[str, Any]:
    """`bench.ingest`'s child (one cold ingest) in a fresh interpreter with fresh folders under `work`."""
    from bench.ingest import run

    return run(fresh_env(work, cache_dir), str(folder) if folder else None)


def answer_rows(settings: Any, floor: dict[str, float], count: int = QUESTIONS) -> dict[str, Any]:
    """The default pipeline answers gold dev questions, streamed, answer cache bypassed: cold and prefix-cached."""
    from helpers.corpus import load_gold
    from helpers.llm import make_llm
    from helpers.pipeline import RAGPipeline

    questions = [q for q in load_gold("dev") if q.answerable][: 2 * count]
    pipeline = RAGPipeline(settings)
    pipeline.ingest(progress=False)
    pipeline.llm = make_llm(settings, cache=False)  # the model must really answer: no answer cache
    rows = []  # cold: the KV cache reset before each; then other questions, each after the one before (as the app)
    for case, asked in (("cold", questions[:count]), ("prefix cached", questions[count:])):
        for question in asked:
            if case == "cold":
                pipeline.llm._llama.reset()
            first: list[float] = []
            start = time.perf_counter()
            answer = pipeline.ask(
                question.question, on_token=lambda _, seen=first: seen or seen.append(time.perf_counter())
            )
            end = time.perf_counter()
            floor_s = (answer.prompt_tokens / floor["prefill_tokens_per_s"]
                       + answer.completion_tokens / floor["decode_tokens_per_s"])  # fmt: skip
            rows.append({"case": case, "question": question.id, "prompt_tokens": answer.prompt_tokens,
                         "answer_tokens": answer.completion_tokens,
                         "first_token_s": round((first[0] if first else end) - start, 2),
                         "answer_s": round(end - start, 2), "floor_s": round(floor_s, 2),
                         "ratio": ratio(end - start, floor_s)})  # fmt: skip
            print(rows[-1], flush=True)
    pipeline.close()
    return {"model": settings.llm.name, "rows": rows}


def ask_row(work: Path, cache_dir: Path, question: str) -> dict[str, Any]:
    """`python -m helpers ask` in a fresh process: no answer cache, the course index already built in `work`."""
    env = fresh_env(work, cache_dir)
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "helpers", "ask", question], env=env, cwd=REPO_ROOT,
                         capture_output=True, text=True)  # fmt: skip
    seconds = time.perf_counter() - start
    tokens = re.search(r"(\d+) prompt \+ (\d+) answer tokens", out.stdout)
    return {"question": question, "seconds": round(seconds, 2), "returncode": out.returncode,
            "prompt_tokens": int(tokens.group(1)) if tokens else None,
            "answer_tokens": int(tokens.group(2)) if tokens else None,
            "error": out.stderr[-600:] if out.returncode else ""}  # fmt: skip


def setup_row(work: Path, environment: dict[str, str] | None = None) -> dict[str, Any]:
    """`scripts/setup.sh` in a clean clone of HEAD with an empty HOME (and `environment`, e.g. a remote reader's
    OPENAI_BASE_URL); total and per-phase seconds."""
    clone = work / "clone"
    subprocess.run(["git", "clone", "--quiet", str(REPO_ROOT), str(clone)], check=True)
    home = work / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KIT_", "PIP_", "VIRTUAL_ENV", "OPENAI_"))}
    env.update(HOME=str(home), PATH=os.environ.get("PATH", ""), **(environment or {}))
    phases: list[tuple[str, float]] = []
    start = time.perf_counter()
    with subprocess.Popen(["bash", "scripts/setup.sh"], cwd=clone, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True) as process:  # fmt: skip
        for line in process.stdout or []:
            if line.startswith("==>"):
                phases.append((line[3:].strip()[:80], time.perf_counter() - start))
    total = time.perf_counter() - start
    marks = [*phases, ("end", total)]
    seconds = {name: round(marks[i + 1][1] - at, 1) for i, (name, at) in enumerate(marks[:-1])}
    floor = sum(s for name, s in seconds.items() if name.startswith(("installing", "compiling")))
    return {"returncode": process.returncode, "seconds": round(total, 1), "phases_s": seconds,
            "floor_s": round(floor, 1), "ratio": ratio(total, floor)}  # fmt: skip


def markdown(data: dict[str, Any]) -> str:
    """The table of waits, before and after, with floors and ratios."""
    m, rows = data["machine"], []
    rows.append(("embedding", BEFORE["embedding"],
                 f"{data['embedding']['chunks_per_s']} chunks/s ({data['embedding']['embedder']}; torch fp32 "
                 f"{data['embedding']['torch_fp32_chunks_per_s']}: ×{data['embedding']['speed_up']})",
                 f"{data['embedding']['floor_chunks_per_s']} chunks/s (MiniLM's float32 FLOPs at the matmul rate; "
                 "int8 can pass it)", data["embedding"]["ratio"]))  # fmt: skip
    chunking = data["chunking"]
    rows.append(("chunking", BEFORE["chunking"], f"{chunking['seconds']} s for {chunking['text_mb']} MB of text "
                 f"({chunking['s_per_mb']} s/MB)", f"{chunking['floor_s']} s (one regex pass)",
                 chunking["ratio"]))  # fmt: skip
    course = data["course_index"]
    rows.append(("course index, cold", BEFORE["course index, cold"],
                 f"{course.get('process_s')} s in a fresh process ({course.get('points')} points)",
                 f"{course.get('floor_s')} s (Python start + bare upsert)", course.get("ratio")))  # fmt: skip
    folder = data["folder_ingest"]
    if "chunks" not in folder:
        rows.append(("real-document folder, ingest", BEFORE["real-document folder, ingest"],
                     folder.get("skipped") or folder.get("error", "")[-200:], "", ""))  # fmt: skip
    else:
        rows.append(("real-document folder, ingest", BEFORE["real-document folder, ingest"],
                     f"{folder.get('process_s')} s for {folder.get('mb')} MB, {folder.get('chunks')} chunks "
                     f"({folder.get('chunks_per_s')} chunks/s)",
                     f"{folder.get('floor_s')} s (its chunks at the bare embedder rate)",
                     folder.get("ratio")))  # fmt: skip
    for case in ("cold", "prefix cached"):
        answers = [r for r in data["answers"]["rows"] if r["case"] == case]
        if answers:
            mean = {k: round(sum(r[k] for r in answers) / len(answers), 2)
                    for k in ("answer_s", "first_token_s", "floor_s", "prompt_tokens")}  # fmt: skip
            rows.append((f"short answer ({case})", BEFORE["short answer"] if case == "cold" else "",
                         f"{mean['answer_s']} s, first token {mean['first_token_s']} s "
                         f"({mean['prompt_tokens']:.0f} prompt tokens, {data['answers']['model']})",
                         f"{mean['floor_s']} s (prefill + decode at the bare rates)",
                         ratio(mean["answer_s"], mean["floor_s"])))  # fmt: skip
    ask = data["ask"]
    rows.append(("ask from a cold process", BEFORE["ask from a cold process"], f"{ask.get('seconds')} s",
                 f"{ask.get('floor_s')} s (Python start + model load + answer floor)",
                 ask.get("ratio")))  # fmt: skip
    if data.get("setup"):
        setup = data["setup"]
        rows.append(("set-up on a fresh machine", BEFORE["set-up on a fresh machine"],
                     f"{setup['seconds'] / 60:.1f} min (rc {setup['returncode']})",
                     f"{setup['floor_s'] / 60:.1f} min (pip downloads + installs, llama.cpp compile)",
                     setup["ratio"]))  # fmt: skip
    floor = data["floors"]
    lines = [
        "# What a user waits for, beside its floor (`python -m bench.waits`)", "",
        f"{data['date']}, commit {data['commit']}, {m['cpu']}, {m['cores']} cores; load average "
        f"{m['load_average_start']} at the start, {m['load_average_end']} at the end. Floors measured in the same "
        f"run: matmul {floor['matmul_gflops']} GFLOP/s, Python start {floor['python_start_s']} s, reader "
        f"{data['answers']['model']} load {floor['reader']['load_s']} s, prefill "
        f"{floor['reader']['prefill_tokens_per_s']} tokens/s, decode {floor['reader']['decode_tokens_per_s']} "
        f"tokens/s, bare upsert of {course.get('points')} points {floor.get('upsert_s')} s.", "",
        "| what the user waits for | before (issue 17) | now | its floor, this run | now ÷ floor |",
        "| --- | --- | --- | --- | --- |",
    ]  # fmt: skip
    lines += [f"| {' | '.join(str(cell) for cell in row)} |" for row in rows]
    return "\n".join(lines) + "\n"


def main() -> None:
    """Measure every wait and its floor; write waits.json and waits.md."""

    def options(parser: Any) -> None:
        parser.add_argument("--setup", action="store_true", help="also time set-up in a clean clone, empty HOME")
        parser.add_argument("--folder", type=Path, default=None, help="real documents (default: the rebuilt set)")

    args = arguments(__doc__.splitlines()[0], options)
    from bench.shipped_vectors import course_embed_texts
    from helpers.config import get_settings

    settings = get_settings()
    folder = args.folder or settings.paths.data_dir / "realworld" / "docs"
    record = Record("waits", args.out, args.smoke)
    work = Path(tempfile.mkdtemp(prefix="kit-bench-waits-"))
    gflops = max(matmul_gflops(), 0.0)
    floors: dict[str, Any] = {"matmul_gflops": round(gflops, 1), "python_start_s": python_start_s()}
    floors["reader"] = reader_floor(settings)
    record["floors"] = floors
    texts = list(dict.fromkeys(course_embed_texts(settings)))[: 32 if args.smoke else 256]
    record["embedding"] = embedding = embedding_row(settings, texts, gflops)
    print("embedding", embedding, flush=True)
    record["chunking"] = chunking_row(folder if folder.is_dir() else settings.paths.corpus_dir, settings)
    print("chunking", record.data["chunking"], flush=True)
    course = ingest_in_fresh_process(None, work / "course", settings.paths.cache_dir)
    floors["upsert_s"] = bare_upsert_s(int(course.get("points") or 1631))
    course["floor_s"] = round(floors["python_start_s"] + floors["upsert_s"], 2)
    course["ratio"] = ratio(course.get("process_s"), course["floor_s"])
    record["course_index"] = course
    print("course index", course, flush=True)
    if folder.is_dir() and not args.smoke:
        found = ingest_in_fresh_process(folder, work / "folder", settings.paths.cache_dir)
        found["mb"] = round(sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6, 2)
        if "chunks" in found:
            found["chunks_per_s"] = round(found["chunks"] / found["process_s"], 1)
            found["floor_s"] = round(found["chunks"] / embedding["chunks_per_s"], 1)
            found["ratio"] = ratio(found["process_s"], found["floor_s"])
        record["folder_ingest"] = found
        print("folder", found, flush=True)
    else:
        record["folder_ingest"] = {"skipped": f"no folder {folder}"}
    fresh = settings.replace(data_dir=work / "course" / "data", cache_dir=work / "course" / "cache")  # as `course`
    answers = answer_rows(fresh, floors["reader"], 1 if args.smoke else QUESTIONS)
    record["answers"] = answers
    question = "What is the application fee for the MS program?"
    ask = ask_row(work / "course", settings.paths.cache_dir, question)
    if ask.get("prompt_tokens"):
        reader = floors["reader"]
        answer_floor = (ask["prompt_tokens"] / reader["prefill_tokens_per_s"]
                        + ask["answer_tokens"] / reader["decode_tokens_per_s"])  # fmt: skip
        ask["floor_s"] = round(floors["python_start_s"] + reader["load_s"] + answer_floor, 2)
        ask["ratio"] = ratio(ask["seconds"], ask["floor_s"])
    record["ask"] = ask
    print("ask", ask, flush=True)
    if args.setup:
        record["setup"] = setup_row(work / "setup")
        print("setup", record.data["setup"], flush=True)
    record["before"] = BEFORE
    path = record.save()
    (path.parent / "waits.md").write_text(markdown(record.data), encoding="utf-8")
    print(f"wrote {path.parent / 'waits.md'}")


if __name__ == "__main__":
    main()
