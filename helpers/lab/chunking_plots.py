"""What notebook 02 displays besides the comparison table: window agreement, length histograms, recall curves.

What it leaves out: the measurements themselves (`helpers.lab.chunking`) and any styling beyond matplotlib defaults.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd
from llama_index.core import Document
from llama_index.core.node_parser import TokenTextSplitter

from helpers.chunking import STRATEGIES, chunk_documents, count_tokens
from helpers.chunking.fixed import plain_token_chunks

EMBEDDER_LIMIT = 256  # MiniLM reads at most 256 word pieces of a chunk


def window_agreement(text: str, size: int = 600, overlap: int = 150) -> pd.DataFrame:
    """Token counts of each window: the plain-Python windows next to LlamaIndex's `TokenTextSplitter`."""
    plain = [count_tokens(chunk) for chunk in plain_token_chunks(text, size, overlap)]
    splitter = TokenTextSplitter(chunk_size=size, chunk_overlap=overlap, separator=" ", backup_separators=["\n"])
    llama = [count_tokens(chunk) for chunk in splitter.split_text(text)]
    rows = max(len(plain), len(llama))
    pad = [None] * rows
    return pd.DataFrame(
        {"plain token_windows": (plain + pad)[:rows], "TokenTextSplitter": (llama + pad)[:rows]},
        index=pd.RangeIndex(rows, name="window"),
    )


def plot_length_histograms(documents: Sequence[Document], strategies: Iterable[str] = STRATEGIES, bins: int = 30):
    """One histogram of chunk lengths (tokens) per strategy, on a shared x axis; returns the figure."""
    import matplotlib.pyplot as plt

    names = list(strategies)
    lengths = {name: [count_tokens(node.text) for node in chunk_documents(documents, name)] for name in names}
    edges = np.linspace(0, min(1000, max(max(v) for v in lengths.values())), bins + 1)
    rows = -(-len(names) // 3)  # ceiling division: three plots per row
    fig, axes = plt.subplots(rows, 3, figsize=(12, 3 * rows), sharex=True, squeeze=False)
    for ax, name in zip(axes.ravel(), names, strict=False):
        ax.hist(np.clip(lengths[name], 0, edges[-1]), bins=edges, color="tab:blue")
        ax.axvline(EMBEDDER_LIMIT, color="tab:red", linestyle="--", linewidth=1)
        ax.set_title(f"{name} ({len(lengths[name])} chunks)", fontsize=10)
    for ax in axes.ravel()[len(names) :]:
        ax.set_visible(False)
    fig.supxlabel("chunk length in cl100k tokens (longer ones in the last bin); red: what MiniLM reads at most")
    fig.supylabel("chunks")
    fig.tight_layout()
    return fig


def plot_recall_by_budget(curves: pd.DataFrame):
    """Recall against context budget, one line per strategy (the output of `recall_by_budget`); returns the figure."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for name in curves.columns:
        ax.plot(curves.index, curves[name], marker="o", label=name)
    ax.set_xlabel(curves.index.name)
    ax.set_ylabel("recall of evidence quotes")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
