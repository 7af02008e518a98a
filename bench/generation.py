"""Generation speed of the local model: time to first token and tokens/s at ~500, 1,500 and 3,000 prompt tokens.

What it does: builds grounded prompts of three sizes from course chunks (the kit's own `build_messages`
layout: system prompt, numbered passages, question), counts their tokens with the model's tokenizer, and
streams an answer from `make_llm(settings, cache=False)` (the answer cache bypassed, so the model really
runs). Before each cold measurement the model's KV cache is reset; then the same prompt is asked again, so
its prefix is served from the KV cache — the reference measured in the same run: prefill avoided vs paid.
Tokens/s counts streamed pieces (one per token in llama.cpp) after the first. Budgets (1,500 tokens):
first token ≤ 3 s, whole answer ≤ 6 s.
What it leaves out: OpenAI-compatible endpoints, the 1.5B reader (`KIT_LLM_MODEL` selects it).

    .venv/bin/python -m bench.generation [--smoke]
"""

from __future__ import annotations

import time

from bench.common import Record, arguments, ratio
from helpers.config import GenerationSettings

BUDGET_TOKENS = GenerationSettings().context_tokens  # the kit's context budget: the prompt size the waits are judged at
SIZES = (500, BUDGET_TOKENS, 3000)
MAX_TOKENS = 64
BUDGET_S = {"first_token": 3.0, "answer": 6.0}  # at 1,500 prompt tokens


def passages(limit: int) -> list[str]:
    """Course chunk texts in a fixed order (cached parse)."""
    from helpers.chunking import chunk_documents
    from helpers.config import get_settings
    from helpers.parsing import parse_folder

    settings = get_settings()
    parsed = parse_folder(settings.paths.corpus_dir, progress=False, cache_dir=settings.paths.cache_dir)
    return [
        n.get_content() for n in chunk_documents(parsed.documents, strategy=settings.chunking.chunk_strategy)[:limit]
    ]


def prompt_of_size(llm, texts: list[str], target: int, question: str) -> list[dict[str, str]]:
    """Chat messages with as many passages as fit in about `target` tokens."""
    from helpers.generation import build_messages
    from helpers.types import Hit

    hits: list[Hit] = []
    for i, text in enumerate(texts):
        hits.append(Hit(f"bench-{i}", text, {"source": f"bench/{i}.md"}, {"dense": 1.0}))
        if sum(llm.count_tokens(m["content"]) for m in build_messages(question, hits)) >= target:
            break
    return build_messages(question, hits)


def stream_once(llm, messages: list[dict[str, str]]) -> dict[str, float]:
    """First-token seconds, total seconds and tokens/s after the first token."""
    start = time.perf_counter()
    first, pieces = None, 0
    for _ in llm.stream(messages, MAX_TOKENS):
        pieces += 1
        if first is None:
            first = time.perf_counter()
    end = time.perf_counter()
    first = first or end
    rate = (pieces - 1) / (end - first) if pieces > 1 and end > first else None
    return {"first_token_s": round(first - start, 3), "answer_s": round(end - start, 3), "tokens": pieces,
            "tokens_per_s": round(rate, 1) if rate else None}  # fmt: skip


def measure(sizes: tuple[int, ...]) -> dict[str, object]:
    """Cold (KV cache reset) and repeated-prefix streaming at each prompt size."""
    from helpers.config import get_settings
    from helpers.llm import make_llm

    settings = get_settings()
    start = time.perf_counter()
    llm = make_llm(settings, cache=False)
    load_s = round(time.perf_counter() - start, 2)
    texts, rows = passages(400), []
    question = "What is the application fee, and when is the application deadline?"
    for target in sizes:
        messages = prompt_of_size(llm, texts, target, question)
        prompt_tokens = sum(llm.count_tokens(m["content"]) for m in messages)
        llm._llama.reset()  # the cold case: nothing of this prompt in the KV cache
        cold = stream_once(llm, messages)
        warm = stream_once(llm, messages)  # same prompt: its prefix comes from the KV cache
        row = {"target_tokens": target, "prompt_tokens": prompt_tokens, "cold": cold, "repeated_prefix": warm,
               "prefill_tokens_per_s": round(prompt_tokens / cold["first_token_s"]),
               "first_token_cold_over_cached": ratio(cold["first_token_s"], warm["first_token_s"], 1)}  # fmt: skip
        if target == BUDGET_TOKENS:
            row["first_token_over_budget"] = ratio(cold["first_token_s"], BUDGET_S["first_token"])
            row["answer_over_budget"] = ratio(cold["answer_s"], BUDGET_S["answer"])
        rows.append(row)
        print(row, flush=True)
    llm.close()
    return {"model": settings.llm.name, "threads": settings.llm.llm_threads, "max_tokens": MAX_TOKENS,
            "load_s": load_s, "budget_s_at_1500": BUDGET_S, "rows": rows}  # fmt: skip


def main() -> None:
    """Measure and write generation.json."""
    args = arguments(__doc__.splitlines()[0])
    import os

    if args.smoke:  # the 135M test model and one small prompt
        os.environ["KIT_LLM_MODEL"] = "smollm2-135m"
    import helpers  # noqa: F401

    record = Record("generation", args.out, args.smoke)
    record.data.update(measure((300,) if args.smoke else SIZES))
    record.save()


if __name__ == "__main__":
    main()
