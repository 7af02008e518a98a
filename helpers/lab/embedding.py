"""What notebook 03 measures and draws: a similarity heatmap, embedding speed cold and warm, query prefixes.
What it leaves out: a second local embedding model (none is known to install offline from PyPI).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from llama_index.core.schema import MetadataMode, TextNode
from matplotlib.figure import Figure

from helpers.config import Settings, get_settings
from helpers.corpus import Question
from helpers.embedding.embedder import Embedder
from helpers.metrics import chunk_supports, evaluate_retrieval


def shorten(text: str, width: int = 48) -> str:
    """One line of at most `width` characters."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def evidence_pairs(questions: Sequence[Question], nodes: Sequence[TextNode], n: int = 4) -> list[tuple[str, str]]:
    """(question, chunk text) for the first `n` questions of different categories whose evidence one chunk holds."""
    pairs, categories = [], set()
    for question in questions:
        if question.category in categories or not question.evidence:
            continue
        evidence = question.evidence[0]
        node = next((n for n in nodes if chunk_supports(n.text, str(n.metadata.get("source")), evidence)), None)
        if node is not None:
            pairs.append((question.question, node.text))
            categories.add(question.category)
        if len(pairs) == n:
            break
    return pairs


def plot_similarity_heatmap(scores: np.ndarray, rows: Sequence[str], columns: Sequence[str]) -> Figure:
    """A heatmap of cosine similarities with the value written in every cell."""
    figure = Figure(figsize=(1.9 * len(columns) + 3, 0.6 * len(rows) + 1.8))
    axes = figure.add_subplot()
    image = axes.imshow(scores, cmap="viridis", vmin=min(0.0, float(scores.min())), vmax=1.0)
    axes.set_xticks(range(len(columns)), [shorten(c, 28) for c in columns], rotation=30, ha="right", fontsize=8)
    axes.set_yticks(range(len(rows)), [shorten(r, 48) for r in rows], fontsize=8)
    for (i, j), value in np.ndenumerate(scores):
        axes.text(j, i, f"{value:.2f}", ha="center", va="center", color="white" if value < 0.6 else "black")
    figure.colorbar(image, ax=axes, label="cosine similarity")
    figure.tight_layout()
    return figure


def measure_speed(texts: Sequence[str], settings: Settings | None = None) -> pd.DataFrame:
    """Embeddings per second with an empty cache (cold), then again with it filled (warm), in a temporary cache."""
    settings = settings or get_settings()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        # Timed on the model itself: the shipped course vectors (shipped.py) would answer without computing.
        embedder = Embedder(settings.replace(cache_dir=Path(folder)), shipped_dir=None)
        start = time.perf_counter()
        embedder.load()  # loading the model is a one-off cost, timed on its own row
        rows.append({"run": "load the model", "texts": 0, "computed": 0, "seconds": time.perf_counter() - start})
        for run in ("cold (empty cache)", "warm (cache filled)"):
            before = dict(embedder.stats)
            start = time.perf_counter()
            embedder.embed_texts(texts)
            seconds = time.perf_counter() - start
            computed = embedder.stats["computed"] - before["computed"]
            rows.append({"run": run, "texts": len(texts), "computed": computed, "seconds": seconds})
        embedder.cache.close()
    table = pd.DataFrame(rows).set_index("run")
    table["texts/s"] = (table["texts"] / table["seconds"]).where(table["texts"] > 0).round(0)
    table["seconds"] = table["seconds"].round(3)
    return table


def compare_query_prefixes(
    nodes: Sequence[TextNode],
    questions: Sequence[Question],
    prefixes: Sequence[str],
    settings: Settings | None = None,
    k: int = 5,
) -> pd.DataFrame:
    """Dense retrieval with each query prefix: quality, top score, and how often the top-k equals the first prefix's."""
    from helpers.lab.common import dense_retriever

    settings = settings or get_settings()
    texts = [node.get_content(metadata_mode=MetadataMode.EMBED) for node in nodes]
    rows, first_top, first_recall = [], None, None
    for prefix in prefixes:
        embedder = Embedder(settings.replace(query_prefix=prefix))
        embedder.embed_texts(texts)  # warm the chunk vectors (shared cache) before the retriever embeds them
        retrieve = dense_retriever(nodes, embedder, k=10)
        ranked = {q.id: retrieve(q) for q in questions}
        per_question = evaluate_retrieval(questions, lambda q, ranked=ranked: ranked[q.id], ks=(1, k, 10)).per_question
        recall = per_question.set_index("id")[f"recall@{k}"]
        top = {qid: [h.node_id for h in hits[:k]] for qid, hits in ranked.items()}
        first_top, first_recall = first_top or top, recall if first_recall is None else first_recall
        rows.append(
            {
                "query prefix": repr(prefix),
                "hit@1": per_question["hit@1"].mean(),
                f"recall@{k}": recall.mean(),
                "MRR": per_question["mrr"].mean(),
                "mean top-1 cosine": float(np.mean([hits[0].score for hits in ranked.values()])),
                f"top-{k} same as first row": float(np.mean([top[qid] == first_top[qid] for qid in top])),
                f"questions with better recall@{k}": int((recall > first_recall).sum()),
                "worse": int((recall < first_recall).sum()),
            }
        )
    return pd.DataFrame(rows).set_index("query prefix").round(3)
