"""The packaged MiniLM in int8 (torch dynamic quantisation) vs float32: speed, vector drift, retrieval quality.

What it does: with `embed_precision = "fp32"` and `"int8"` (`helpers.embedding.embedder.quantise_int8`), each
without the shipped vectors (the kit's embedding cache keeps each precision under its own keys): chunks/s on
course chunks of about 150 word pieces (batch 32, best of 2, after one warm-up batch), the cosine between the
two vectors of each of 200 course chunks (worst and mean), and dense recall@5 / hit@5 on the gold dev split
(exact numpy search over every course chunk under the configured chunking). The reference of each int8 figure
is the float32 figure of the same run.
What it leaves out: ONNX Runtime, hybrid retrieval and reranking (the dense score alone shows the drift).

    .venv/bin/python -m bench.embedding_int8 [--smoke]
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import numpy as np

from bench.common import Record, arguments, ratio

PRECISIONS = ("fp32", "int8")
TARGET_PIECES = (120, 180)  # "about 150 word pieces": the course chunks in this range are timed


def word_pieces(embedder: object, texts: list[str]) -> list[int]:
    """Number of word pieces of each text under the model's tokenizer (truncated at its maximum)."""
    model = embedder.load()  # type: ignore[attr-defined]
    limit = model.max_seq_length
    return [min(len(model.tokenizer(text)["input_ids"]), limit) for text in texts]


def throughput(embedder: object, texts: list[str], batch: int = 32) -> float:
    """Best of two timed passes over `texts` (chunks/s), after one untimed warm-up batch."""
    model = embedder.load()  # type: ignore[attr-defined]
    model.encode(texts[:batch], batch_size=batch)
    best = float("inf")
    for _ in range(2):
        start = time.perf_counter()
        model.encode(texts, batch_size=batch)
        best = min(best, time.perf_counter() - start)
    return len(texts) / best


def dense_recall(vectors: np.ndarray, nodes: list, questions: list, query_vectors: np.ndarray, k: int = 5) -> dict:
    """Mean recall@k and hit@k of exact dot-product search over every chunk."""
    from helpers.metrics.retrieval import hit_at_k, recall_at_k, relevance_labels
    from helpers.types import Hit

    recalls, hits = [], []
    for question, query in zip(questions, query_vectors, strict=True):
        top = np.argsort(-(vectors @ query))[:k]
        ranked = [Hit(nodes[i].id_, nodes[i].text, dict(nodes[i].metadata)) for i in top]
        labels = relevance_labels(ranked, question.evidence)
        recalls.append(recall_at_k(labels, k, len(question.evidence)))
        hits.append(hit_at_k(labels, k))
    return {f"recall@{k}": round(float(np.mean(recalls)), 4), f"hit@{k}": round(float(np.mean(hits)), 4)}


def main() -> None:
    """Measure and write embedding_int8.json."""
    args = arguments(__doc__.splitlines()[0])
    import helpers  # noqa: F401
    from helpers.chunking import chunk_for_settings
    from helpers.config import get_settings
    from helpers.corpus import load_gold
    from helpers.embedding import Embedder
    from helpers.parsing import parse_folder

    record = Record("embedding_int8", args.out, args.smoke)
    settings = get_settings()
    documents = parse_folder(settings.paths.corpus_dir, progress=False, cache_dir=settings.paths.cache_dir).documents
    nodes = chunk_for_settings(documents, settings.chunking)
    texts = [node.get_content(metadata_mode="embed") for node in nodes]
    questions = [q for q in load_gold("dev") if q.evidence]
    if args.smoke:
        nodes, texts, questions = nodes[:64], texts[:64], questions[:5]
    rows, sample_vectors = {}, {}
    with tempfile.TemporaryDirectory(prefix="kit-bench-int8-") as folder:
        for precision in PRECISIONS:
            # The kit's cache serves the course vectors already computed (int8 has its own keys); --smoke: a new one.
            cache_dir = Path(folder) if args.smoke else settings.paths.cache_dir
            embedder = Embedder(settings.replace(cache_dir=cache_dir, embed_precision=precision), shipped_dir=None)
            in_range = [
                (text, n)
                for text, n in zip(texts, word_pieces(embedder, texts), strict=True)
                if TARGET_PIECES[0] <= n <= TARGET_PIECES[1]
            ][: 32 if args.smoke else 256]
            timed = [text for text, _ in in_range]
            chunks_per_s = throughput(embedder, timed)
            vectors = embedder.embed_texts(texts)
            sample_vectors[precision] = vectors[:200]
            rows[precision] = {
                "chunks_per_s": round(chunks_per_s, 1),
                "timed_chunks": len(timed),
                "mean_word_pieces": round(float(np.mean([n for _, n in in_range])), 1),
                **dense_recall(vectors, nodes, questions, embedder.embed_queries([q.question for q in questions])),
            }
            print(precision, rows[precision], flush=True)
            embedder.cache.close()
    cosines = np.sum(sample_vectors["fp32"] * sample_vectors["int8"], axis=1)
    record["chunks"], record["questions"] = len(texts), len(questions)
    record["chunk_strategy"] = settings.chunking.chunk_strategy
    record["rows"] = rows
    record["int8_over_fp32_speed"] = ratio(rows["int8"]["chunks_per_s"], rows["fp32"]["chunks_per_s"])
    record["cosine_fp32_int8"] = {"chunks": len(cosines), "min": round(float(cosines.min()), 4),
                                  "mean": round(float(cosines.mean()), 4),
                                  "max_difference": round(float(1 - cosines.min()), 4)}  # fmt: skip
    record.save()


if __name__ == "__main__":
    main()
