"""Turn the JSON results in a folder into one Markdown page (`README.md` there): the tables a reader wants.

Each section reads one result file if it exists (a benchmark not run is listed as such) and prints its date,
its load average at start and end, and its numbers, each beside the reference measured in the same run.

    .venv/bin/python -m bench.report [--out bench/results]
"""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from typing import Any

from bench.common import arguments

EMBEDDED_LIMIT = 20_000  # the recommended limit of embedded mode (docs/decisions.md says why)
QDRANT_WARNS = 20_000  # qdrant-client warns above this many points in local mode
BUDGET_MS = 30.0  # the hybrid search budget on 2 cores


def table(header: list[str], rows: list[list[Any]]) -> str:
    """A Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join("" if v is None else str(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def stamp(data: dict[str, Any]) -> str:
    """Date, load at start → end, wall time, and whether it was a smoke run."""
    machine = data.get("machine", {})
    start, end = machine.get("load_average_start", ["?"]), machine.get("load_average_end", ["?"])
    smoke = " **(smoke run: tiny sizes)**" if data.get("smoke") else ""
    return f"_{data.get('date', '?')} · load (1 min) {start[0]} → {end[0]} · {data.get('wall_s', '?')} s_{smoke}"


def embedding(d: dict[str, Any]) -> str:
    rows = [
        [
            r["batch"],
            r["kit_chunks_per_s"],
            r["bare_chunks_per_s"],
            r["kit_tokens_per_s"],
            r["bare_tokens_per_s"],
            r["ratio_kit_over_bare"],
        ]
        for r in d["rows"]
    ]
    text = (
        f"{d['texts']} course chunks ({d['mean_tokens_per_text']} word pieces each on average), best of 2; "
        f"torch threads {d.get('threads')}, OMP_WAIT_POLICY {d.get('omp_wait_policy')}.\n\n"
    )
    text += table(["batch", "kit chunks/s", "bare chunks/s", "kit tokens/s", "bare tokens/s", "kit / bare"], rows)
    if d.get("wait_policy_probe"):
        probe = [
            [r["setting"], r.get("threads"), r.get("chunks_per_s", r.get("error"))] for r in d["wait_policy_probe"]
        ]
        text += "\n\nBare forward pass, 64 short texts, batch 16, fresh processes (why the runner sets the thread "
        text += "environment):\n\n" + table(["setting", "threads", "chunks/s"], probe)
    return text


def ingest(d: dict[str, Any]) -> str:
    rows = []
    for run in ("cold, computed", "cold", "warm"):
        r = d.get(run, {})
        if not r:
            continue
        if "error" in r:
            rows.append([run, "error: " + r["error"][-120:]] + [""] * 9)
            continue
        s, share = r["stages_s"], r["stage_share"]
        stages = [f"{s[k]:.2f} s ({share[k]:.0%})" for k in ("parse", "chunk", "embed", "store")]
        embedded = f"{r.get('embeddings_computed')} / {r.get('embeddings_seeded', 0)}"
        totals = [r["ingest_s"], r["process_s"], r.get("over_budget_ratio")]
        rows.append([run, r["chunks"], r["written"], embedded, *stages, *totals])
    header = [
        "run",
        "chunks",
        "written",
        "vectors computed / shipped",
        "parse",
        "chunk",
        "embed (incl. model load)",
        "store",
        "ingest s",
        "process s (with imports)",
        "ingest / budget",
    ]
    text = table(header, rows) + f"\n\nwarm / cold: **{d.get('warm_over_cold')}** (budgets: 60 s cold, 5 s warm)"
    if d.get("cold_over_cold_computed") is not None:
        text += f"; cold with the shipped vectors / cold computing them: **{d['cold_over_cold_computed']}**"
    return text + "."


def embedding_int8(d: dict[str, Any]) -> str:
    rows = [
        [name, r["chunks_per_s"], r["mean_word_pieces"], r["recall@5"], r["hit@5"]] for name, r in d["rows"].items()
    ]
    cos = d["cosine_fp32_int8"]
    return (
        f"{d['chunks']} course chunks ({d['chunk_strategy']}), {d['questions']} gold dev questions, dense exact "
        f"search.\n\n{table(['precision', 'chunks/s', 'word pieces', 'recall@5', 'hit@5'], rows)}\n\n"
        f"int8 / fp32 speed: **{d['int8_over_fp32_speed']}**; cosine between the two vectors of {cos['chunks']} "
        f"chunks: min {cos['min']}, mean {cos['mean']}."
    )


def chunking(d: dict[str, Any]) -> str:
    rows = [
        [r["corpus"], r["strategy"], r["chunks"], r["mb"], r["s_per_mb"], r.get("reference_s_per_mb"),
         r.get("speedup"), r["tokenizer_pass_s_per_mb"], r["over_tokenizer_pass"], r.get("identical_nodes")]
        for r in d["rows"]
    ]  # fmt: skip
    header = ["corpus", "strategy", "chunks", "MB", "s/MB", "s/MB obvious code", "speed-up",
              "s/MB one tokenizer pass", "over tokenizer pass", "same nodes"]  # fmt: skip
    note = (
        "The obvious code is kept in `bench/chunking.py` (each chunk hashing its whole document, `glue` re-summing "
        "its window, LlamaIndex's splitters re-counting every word); the floor is one cl100k_base pass.\n\n"
    )
    return note + table(header, rows)


def search(d: dict[str, Any]) -> str:
    ref = d["reference_embed_plus_numpy"]
    rows = [
        ["embed the question (no cache)", d["embed_query"]["p50_ms"], d["embed_query"]["p95_ms"], "", ""],
        ["reference: embed + numpy X @ q", ref["p50_ms"], ref["p95_ms"], 1.0, ""],
    ]
    for name, r in d["retrievers"].items():
        budget = f"{r['p50_over_budget']} of {r['budget_ms']:.0f} ms" if "budget_ms" in r else ""
        rows.append([name, r["p50_ms"], r["p95_ms"], r["over_reference_p50"], budget])
    text = f"{d['chunks']} chunks, {d['questions']} gold dev questions, k = {d['k']}, query expansion as configured; "
    text += f"BM25 fit {d['bm25_fit_s']} s. Reranker: {d['reranker']}.\n\n"
    return text + table(["retriever", "p50 ms", "p95 ms", "p50 / reference", "p50 / budget"], rows)


def vector_scale(d: dict[str, Any]) -> str:
    rows = []
    for r in d["rows"]:
        build = r["build_on_disk"]
        built = (
            f"{build['seconds']} s ({build['points_per_s']}/s)"
            if build["complete"]
            else (
                f"stopped at {build['points_written']} points after {build['seconds']} s; "
                f"projected {build['projected_s']} s"
            )
        )
        rows.append(
            [
                f"{r['points']:,}",
                r["numpy"]["p50_ms"],
                r["qdrant_cosine"]["p50_ms"],
                r["qdrant_cosine"]["p95_ms"],
                r["qdrant_cosine_over_numpy_p50"],
                r["qdrant_cosine_with_payload"]["p50_ms"],
                r["qdrant_dot"]["p50_ms"],
                r["qdrant_dot_over_numpy_p50"],
                built,
                r.get("reopen_s", "—"),
                r.get("rss_mb_reopened", "—"),
            ]
        )
    header = [
        "points",
        "numpy p50 ms",
        "Qdrant cosine p50 ms",
        "Qdrant cosine p95 ms",
        "cosine / numpy",
        "cosine + payload p50 ms",
        "Qdrant dot p50 ms",
        "dot / numpy",
        "on-disk build",
        "reopen s",
        "RSS reopened MB",
    ]
    text = f"{d['queries']} random unit queries, top {d['top_k']}, upserts in batches of {d['upsert_batch']}.\n\n"
    text += table(header, rows) + "\n\n![latency against size](vector_scale.png)\n"
    probe = d.get("numpy_10k_p50_ms_by_blas_threads")
    if probe:
        text += "\nnumpy search at 10k, p50 ms, fresh processes: " + ", ".join(f"{k}: {v}" for k, v in probe.items())
    profiles = [r["profile_cosine"] for r in d["rows"] if r.get("profile_cosine")]
    if profiles:
        text += f"\n\ncProfile of 5 cosine queries at the largest size (by own time):\n\n```\n{profiles[-1]}\n```"
    return text


def store_scale(d: dict[str, Any]) -> str:
    """bench/store_scale.py's own page, minus its title and stamp (the section has both)."""
    from bench.store_scale import markdown

    return "\n".join(markdown(d).splitlines()[4:])


def generation(d: dict[str, Any]) -> str:
    rows = [
        [
            r["prompt_tokens"],
            r["cold"]["first_token_s"],
            r["prefill_tokens_per_s"],
            r["cold"]["tokens_per_s"],
            r["cold"]["answer_s"],
            r["repeated_prefix"]["first_token_s"],
            r["first_token_cold_over_cached"],
        ]
        for r in d["rows"]
    ]
    header = [
        "prompt tokens",
        "first token s (cold)",
        "prefill tokens/s",
        "generation tokens/s",
        "answer s",
        "first token s (prefix cached)",
        "cold / cached",
    ]
    text = f"{d['model']}, {d['threads']} threads, answers up to {d['max_tokens']} tokens, load {d['load_s']} s.\n\n"
    budget = [r for r in d["rows"] if "first_token_over_budget" in r]
    if budget:
        text += (
            f"At 1,500 tokens: first token {budget[0]['first_token_over_budget']} × its 3 s budget, "
            f"answer {budget[0]['answer_over_budget']} × its 6 s budget.\n\n"
        )
    return text + table(header, rows)


def memory(d: dict[str, Any]) -> str:
    app, models = d.get("app", {}), d.get("models", {})
    if "error" in app:
        return "app process failed: " + app["error"][-300:]
    steps = ", ".join(f"{k} {v} MB" for k, v in app["rss_mb_after"].items())
    return (
        f"Model {d['model']}, {app['points']} points. App process peak RSS **{app['peak_rss_mb']} MB** "
        f"(RSS after each step: {steps}); reference, the two models alone: {models.get('peak_rss_mb')} MB; "
        f"ratio app / models **{d.get('app_over_models_peak')}**."
    )


def notebooks(d: dict[str, Any]) -> str:
    rows = [[r["notebook"], r["seconds"], r["status"], r["over_budget_ratio"]] for r in d.get("rows", [])]
    text = table(["notebook", "seconds", "status", "seconds / 240 s budget"], rows)
    return text + f"\n\nTotal {d.get('total_s')} s in profile ci ({d.get('total_over_budget')} × the 20-minute budget)."


def app_first_answer(d: dict[str, Any]) -> str:
    return (
        f"First answer {d['first_answer_s']} s after the app cell (budget {d['budget_s']} s; first token "
        f"{d['first_token_s']} s; import {d['import_s']} s), model {d['model']}, retriever {d['retriever']}, "
        f"load at end {d['load_average_1m_at_end']}."
    )


def waits(d: dict[str, Any]) -> str:
    from bench.waits import markdown

    return markdown(d).split("\n", 2)[2].strip()


SECTIONS = {
    "waits": ("What a user waits for, beside its floor (issue 17's table)", waits),
    "embedding": ("Embedding throughput: the kit's Embedder vs the bare forward pass", embedding),
    "embedding_int8": ("Embedding in int8 (dynamic quantisation) vs float32", embedding_int8),
    "ingest": ("Ingest of the course corpus: cold and warm, per stage", ingest),
    "chunking": ("Chunking speed per strategy: the kit's code vs the obvious code", chunking),
    "search": ("Search latency on the course corpus", search),
    "vector_scale": ("Dense search at scale: embedded Qdrant vs exact numpy", vector_scale),
    "store_scale": ("The embedded store at scale: local mode and qdrant-edge vs exact numpy", store_scale),
    "generation": ("Generation: time to first token and tokens/s", generation),
    "memory": ("Memory: peak RSS of the app process", memory),
    "notebooks": ("The course: notebook wall time (headless, ci profile)", notebooks),
    "app_first_answer": ("The app's first answer (bench/app_first_answer.py)", app_first_answer),
}


def size_at(rows: dict[int, dict[str, Any]], budget_ms: float) -> int | None:
    """The collection size at which cosine p50 reaches `budget_ms`, interpolated on log-log axes."""
    points = sorted((n, r["qdrant_cosine"]["p50_ms"]) for n, r in rows.items())
    for (n0, t0), (n1, t1) in itertools.pairwise(points):
        if t0 <= budget_ms < t1:
            slope = (math.log(t1) - math.log(t0)) / (math.log(n1) - math.log(n0))
            return round(math.exp(math.log(n0) + (math.log(budget_ms) - math.log(t0)) / slope), -3)
    return None


def recommendation(folder: Path) -> str:
    """The embedded-mode limit, with the numbers it rests on (when vector_scale ran)."""
    path = folder / "vector_scale.json"
    if not path.exists():
        return ""
    rows = {r["points"]: r for r in json.loads(path.read_text())["rows"]}
    facts = ", ".join(
        f"{n:,}: {r['qdrant_cosine']['p50_ms']} ms p50 / {r['qdrant_cosine']['p95_ms']} ms p95"
        for n, r in sorted(rows.items())
    )
    crossing = size_at(rows, BUDGET_MS)
    measured = f"about **{crossing:,.0f} points**" if crossing else "a size outside the measured range"
    return (
        f"## Where embedded Qdrant stops being the right choice\n\nEmbedded (local-mode) Qdrant searches by "
        "brute force in Python (every stored vector re-normalised and every score sorted, per query); its "
        f"latency grows with the collection ({facts}). "
        f"It reaches the {BUDGET_MS:.0f} ms search budget at {measured} in this run (qdrant-client itself warns "
        f"above {QDRANT_WARNS:,}). Recommended limit of the embedded mode: **{EMBEDDED_LIMIT:,} chunks**; past "
        "it, run a Qdrant server (HNSW index, many processes can share it):\n\n"
        "```bash\ndocker run -p 6333:6333 qdrant/qdrant\nexport QDRANT_URL=http://localhost:6333\n```\n"
    )


READING = """## Reading these numbers

- The machine is shared: each section states its 1-minute load average at start and end (2 cores; the
  benchmarks under `nice -n 5`). Sections ran one after another, so compare ratios within a section, not
  absolute numbers across sections; on this machine a latency measured a few seconds apart can move ±50 %
  (the search retrievers run one after the other, not interleaved).
- Thread environment: with torch's and OpenBLAS's default spinning threads, this overloaded machine ran the
  MiniLM forward pass 7-36× slower and numpy's `X @ q` 10-60× slower than with `OMP_WAIT_POLICY=PASSIVE` /
  `OPENBLAS_NUM_THREADS=1` (probes above and earlier runs that day). The runner sets both; `import helpers` sets
  `OMP_WAIT_POLICY=PASSIVE` too (unless you set it), which cut a 481-token local answer
  from 8.9-12.5 s to 2.3-3.5 s at load 3.
- Embedded Qdrant: cProfile shows local mode's cosine search re-normalising every stored vector on every
  query (`qdrant_client/local/distances.py: cosine_similarity`) and sorting every score. A DOT collection
  on the kit's already unit-length vectors returns the same top-k (checked) 2-6× faster; that is a change
  to `helpers.store` (distance of new collections), measured here, not made.
- Memory: the app's peak is the two models (torch + MiniLM, the 0.5 GB GGUF mapped); the course index and
  BM25 add nothing measurable at 1.6k chunks (the reference process peaked higher than the app).
"""


def write(folder: Path) -> Path:
    """Write README.md in `folder` from the JSON files there."""
    parts = [
        "# Benchmark results\n",
        "Produced by `bash scripts/bench.sh` (`python -m bench`); every number beside "
        "its reference measured in the same run. The machine is shared: read each section's load average.\n",
    ]
    machine = None
    for name, (title, render) in SECTIONS.items():
        path = folder / f"{name}.json"
        if not path.exists():
            parts.append(f"## {title}\n\nnot run.\n")
            continue
        data = json.loads(path.read_text(encoding="utf-8"))
        machine = machine or data.get("machine")
        try:
            body = render(data)
        except (KeyError, TypeError, IndexError) as err:
            body = f"(could not render: {type(err).__name__} {err})"
        parts.append(f"## {title}\n\n{stamp(data) if 'machine' in data else ''}\n\n{body}\n")
    parts.append(recommendation(folder))
    parts.append(READING)
    if machine:
        parts.insert(
            2,
            f"Machine: {machine['cores']} cores, {machine['ram_gb']} GB RAM, {machine['cpu']}, "
            f"{machine['os']}; run under nice {machine.get('nice')}.\n",
        )
    path = folder / "README.md"
    folder.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(parts), encoding="utf-8")
    print(f"wrote {path}")
    return path


def main() -> None:
    """Write the Markdown page."""
    write(arguments(__doc__.splitlines()[0]).out)


if __name__ == "__main__":
    main()
