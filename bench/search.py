"""Search latency on the course corpus: dense, BM25, hybrid (weighted, RRF), hybrid + rerank, against numpy.

What it does: builds the course index in its own data folder (from the warm caches), then times each
retriever of `helpers.retrieval.make_retriever` on the gold `dev` questions, one at a time, query embedding
included and *not* cached (the embedder's cache is off, or repeated questions would be free), query
expansion as configured. The reference, in the same process: embedding the question plus exact numpy
search (`X @ q` over every chunk vector) — the floor of any dense search. Hybrid + rerank uses the kit's
fine-tuned MiniLM cross-encoder on the top `rerank_depth` (20) if `python -m helpers train-reranker` was
run; otherwise it is skipped, with the reason. Budgets: hybrid p50 ≤ 30 ms, reranking the top 20 ≤ 400 ms.
What it leaves out: multi-query and LLM reranking (seconds each, measured in notebook 06), filters.

    .venv/bin/python -m bench.search [--smoke] [--data-dir DIR]
"""

from __future__ import annotations

import time

import numpy as np

from bench.common import Record, arguments, ensure_index, latency, ratio, use_data_dir

BUDGET_MS = {"hybrid_rrf": 30.0, "hybrid": 30.0, "hybrid_rrf+rerank": 400.0}


def measure(questions: list[str]) -> dict[str, object]:
    """Latency of every retriever; ratios to the embed + numpy reference."""
    from helpers.embedding import Embedder
    from helpers.pipeline import RAGPipeline
    from helpers.rerank import Reranked, load_finetuned
    from helpers.retrieval import BM25Retriever

    pipeline = RAGPipeline()
    index = ensure_index(pipeline)
    settings = pipeline.settings
    pipeline.__dict__["embedder"] = Embedder(settings, use_cache=False)  # every query really embedded
    k = settings.retrieval.top_k
    # the reference: the chunk matrix in numpy, the question embedded, X @ q, top k
    nodes = pipeline.store.nodes()
    matrix = np.asarray([n.embedding for n in nodes], dtype=np.float32)
    embed = pipeline.embedder.embed_query
    result: dict[str, object] = {"index": index, "chunks": len(nodes), "questions": len(questions), "k": k}
    result["embed_query"] = latency(embed, questions)

    def reference(question: str) -> np.ndarray:
        scores = matrix @ embed(question)
        return np.argpartition(-scores, k)[:k]

    result["reference_embed_plus_numpy"] = latency(reference, questions)
    start = time.perf_counter()
    bm25 = BM25Retriever.from_store(pipeline.store)
    result["bm25_fit_s"] = round(time.perf_counter() - start, 2)
    retrievers = {name: pipeline.make_retriever(name, bm25=bm25) for name in ("dense", "bm25", "hybrid", "hybrid_rrf")}
    for depth in (0, 3000):  # rescoring off and on, whichever is configured
        retrievers[f"hybrid rescore {depth}"] = pipeline.make_retriever("hybrid", bm25=bm25, rescore=depth)
    reranker, reason = load_finetuned(settings)
    print("reranker:", reason, flush=True)
    result["reranker"] = reason
    if reranker is not None:
        retrievers["hybrid_rrf+rerank"] = Reranked(retrievers["hybrid_rrf"], reranker, settings.rerank.rerank_depth)
        result["rerank_depth"] = settings.rerank.rerank_depth
    rows = {}
    for name, retriever in retrievers.items():
        few = questions if "rerank" not in name else questions[:30]  # a rerank is slow: 30 questions are enough
        row = latency(lambda q, r=retriever: r.retrieve(q, k), few)
        row["over_reference_p50"] = ratio(row["p50_ms"], result["reference_embed_plus_numpy"]["p50_ms"], 1)
        if name in BUDGET_MS:
            row["budget_ms"] = BUDGET_MS[name]
            row["p50_over_budget"] = ratio(row["p50_ms"], BUDGET_MS[name])
        rows[name] = row
        print(name, row, flush=True)
    result["retrievers"] = rows
    pipeline.close()
    return result


def main() -> None:
    """Measure and write search.json."""
    from pathlib import Path

    args = arguments(__doc__.splitlines()[0], lambda p: p.add_argument("--data-dir", type=Path, default=None))
    record = Record("search", args.out, args.smoke)
    record["data_dir"] = str(use_data_dir(args.data_dir))
    import helpers  # noqa: F401
    from helpers.corpus import load_gold

    questions = [q.question for q in load_gold("dev")][: 5 if args.smoke else 100]
    record.data.update(measure(questions))
    record.save()


if __name__ == "__main__":
    main()
