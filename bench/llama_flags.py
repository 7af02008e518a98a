"""What llama.cpp's own options buy on this CPU: prefill and answer time of a kit prompt under each flag set.

What it does: loads each reader (0.5B and 1.5B, the kit's GGUF files) once per flag set — batch sizes
(n_batch / n_ubatch), flash attention, a q8_0 KV cache — and streams short answers to three kit-shaped
prompts of ~700 tokens (the `short` mode's system prompt, four numbered course passages, a question). The
first prompt runs with an empty KV cache (cold); the next two share only the fixed system prompt with the one
before, which llama-cpp-python serves from its KV cache (the cached prefix). The floor, measured in the same
run: the FLOPs of one prefill (2 x parameters x prompt tokens) at the speed of a 1024² float32 matmul here.
`--requantise q4_0,q4_k_s` also writes re-quantised copies of each reader (llama.cpp's own quantiser, from the
shipped Q4_K_M: its q6_K tensors are the ones llama.cpp cannot repack for AVX2) into a temporary folder and
times them with the default flags; their F1 has to be measured before one could ship (`bench.realworld
answers --setups '{"name": {"llm_gguf": "<path>"}}'`). What it leaves out: GPU offload, threads other than
the kit's setting.

    .venv/bin/python -m bench.llama_flags [--smoke] [--models qwen2.5-coder-0.5b,qwen2.5-coder-1.5b]
                                          [--requantise q4_0,q4_k_s] [--keep DIR]
"""

from __future__ import annotations

import ctypes
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import Record, arguments
from bench.generation import passages, prompt_of_size

GGML_TYPE_Q8_0 = 8  # ggml's type id of q8_0 (llama_cpp.GGML_TYPE_Q8_0)
FLAG_SETS: dict[str, dict[str, Any]] = {
    "llama-cpp-python defaults (n_batch 512, n_ubatch 512)": {},
    "flash attention": {"flash_attn": True},
    "n_batch 1024, n_ubatch 1024": {"n_batch": 1024, "n_ubatch": 1024},
    "n_ubatch 256": {"n_ubatch": 256},
    "flash attention + q8_0 KV cache": {"flash_attn": True, "type_k": GGML_TYPE_Q8_0, "type_v": GGML_TYPE_Q8_0},
}
QUESTIONS = (
    "What is the application fee?",
    "Who teaches the machine learning course?",
    "When is the last day to drop a class?",
)
MAX_TOKENS = 24
FTYPES = {"q4_0": 2, "q4_k_s": 14}  # llama_cpp.LLAMA_FTYPE_MOSTLY_*


def requantise(source: str, kind: str, folder: Path) -> tuple[Path, float]:
    """A copy of the GGUF `source` re-quantised to `kind` by llama.cpp (allowed from an already quantised file)."""
    import llama_cpp

    target = folder / f"{Path(source).stem}-{kind}.gguf"
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype, params.allow_requantize, params.nthread = FTYPES[kind], True, 2
    start = time.perf_counter()
    failed = llama_cpp.llama_model_quantize(source.encode(), str(target).encode(), ctypes.byref(params))
    if failed:
        raise RuntimeError(f"llama.cpp could not re-quantise {source} to {kind} (code {failed})")
    return target, round(time.perf_counter() - start, 1)


def matmul_seconds_per_gflop(size: int = 1024, repeats: int = 10) -> float:
    """Seconds per GFLOP of a float32 square matmul (numpy, this process's threads): the compute floor."""
    a = np.random.default_rng(0).standard_normal((size, size), dtype=np.float32)
    a @ a  # warm-up
    start = time.perf_counter()
    for _ in range(repeats):
        a @ a
    return (time.perf_counter() - start) / (repeats * 2 * size**3 / 1e9)


def stream(llama: Any, messages: list[dict[str, str]]) -> tuple[float, float]:
    """Seconds to the first streamed token and to the end of a short answer."""
    start, first = time.perf_counter(), None
    for _ in llama.create_chat_completion(messages=messages, max_tokens=MAX_TOKENS, temperature=0.0, stream=True):
        first = first or time.perf_counter()
    end = time.perf_counter()
    return (first or end) - start, end - start


def measure_flags(path: str, threads: int, flags: dict[str, Any], prompts: list[list[dict[str, str]]]) -> dict:
    """Load with `flags`, answer the prompts (the first cold, the rest after the one before); seconds."""
    from llama_cpp import Llama

    from helpers.config import LLMSettings

    start = time.perf_counter()
    n_ctx = LLMSettings().llm_context_tokens  # the window the kit's LocalLLM opens
    llama = Llama(model_path=path, n_ctx=n_ctx, n_threads=threads, seed=0, verbose=False, **flags)
    load_s = time.perf_counter() - start
    tokens = [len(llama.tokenize(m["content"].encode(), add_bos=False)) for m in prompts[0]]
    llama.reset()
    cold_first, cold_answer = stream(llama, prompts[0])
    warm = [stream(llama, p) for p in prompts[1:]]
    params = llama._model.n_params()
    llama.close()
    return {
        "load_s": round(load_s, 2),
        "prompt_tokens": sum(tokens),
        "parameters": int(params),
        "cold_first_token_s": round(cold_first, 3),
        "cold_answer_s": round(cold_answer, 3),
        "prefix_cached_first_token_s": round(statistics.fmean(w[0] for w in warm), 3),
        "prefix_cached_answer_s": round(statistics.fmean(w[1] for w in warm), 3),
    }


class TokenCounter:
    """The model's tokenizer alone (vocabulary only, no weights): what `prompt_of_size` counts with."""

    def __init__(self, path: str) -> None:
        from llama_cpp import Llama

        self.llama = Llama(model_path=path, n_ctx=4096, vocab_only=True, verbose=False)

    def count_tokens(self, text: str) -> int:
        """Tokens of `text` without BOS."""
        return len(self.llama.tokenize(text.encode(), add_bos=False))


def main() -> None:
    """Every flag set on every reader; the table with the FLOP floor and ratios, in llama_flags.json."""

    def options(parser: Any) -> None:
        parser.add_argument("--models", default="qwen2.5-coder-0.5b,qwen2.5-coder-1.5b")
        parser.add_argument("--requantise", default="", help=f"comma-separated, from {', '.join(FTYPES)}")
        parser.add_argument("--flags", default="", help="only the flag sets whose name starts with one of these")
        parser.add_argument("--keep", type=Path, default=None, help="folder for the re-quantised files (kept)")

    args = arguments(__doc__.splitlines()[0], options)
    from helpers.config import get_settings
    from helpers.models import llm_gguf_path

    kinds = [k for k in args.requantise.split(",") if k]
    # with --requantise: its own result file, the shipped file timed with the defaults beside each copy
    record = Record("llama_requantised" if kinds else "llama_flags", args.out, args.smoke)
    models = ["smollm2-135m"] if args.smoke else args.models.split(",")
    flag_sets = dict(list(FLAG_SETS.items())[:2]) if args.smoke else FLAG_SETS
    if args.flags or kinds:
        wanted = tuple(args.flags.split(",")) if args.flags else ("llama-cpp-python defaults",)
        flag_sets = {k: v for k, v in flag_sets.items() if k.startswith(wanted)}
    folder = args.keep or Path(tempfile.mkdtemp(prefix="kit-bench-requantised-"))
    folder.mkdir(parents=True, exist_ok=True)
    texts, rows = passages(60), []
    floor_before = matmul_seconds_per_gflop()
    for model in models:
        settings = get_settings().replace(llm_model=model)
        path = str(llm_gguf_path(settings))
        counter = TokenCounter(path)
        prompts = [prompt_of_size(counter, texts[i * 12 :], 700, q) for i, q in enumerate(QUESTIONS)]
        for name, flags in flag_sets.items():
            row = {"model": model, "flags": name, **measure_flags(path, settings.llm.llm_threads, flags, prompts)}
            rows.append(row)
            print(row, flush=True)
            record["rows"] = rows
            record.save()
        for kind in kinds:
            copy, seconds = requantise(path, kind, folder)
            row = {"model": f"{model} re-quantised to {kind}", "flags": "defaults", "file": str(copy),
                   "requantise_s": seconds, "mb": round(copy.stat().st_size / 1e6),
                   **measure_flags(str(copy), settings.llm.llm_threads, {}, prompts)}  # fmt: skip
            rows.append(row)
            print(row, flush=True)
            record["rows"] = rows
            record.save()
    floor_s_per_gflop = statistics.fmean([floor_before, matmul_seconds_per_gflop()])
    for row in rows:
        floor = 2 * row["parameters"] * row["prompt_tokens"] / 1e9 * floor_s_per_gflop
        row["prefill_floor_s"] = round(floor, 3)
        row["cold_first_token_over_floor"] = round(row["cold_first_token_s"] / floor, 2)
    record["matmul_gflops"] = round(1 / floor_s_per_gflop, 1)
    record["max_tokens"] = MAX_TOKENS
    record["rows"] = rows
    record.save()


if __name__ == "__main__":
    main()
