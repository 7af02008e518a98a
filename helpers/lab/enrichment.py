"""What the LLM's e-mail metadata adds to retrieval: exact dense search with none, some or all of its fields in the
embedded text, on the gold e-mail questions. What it leaves out: metadata filters and BM25 (notebooks 04–05).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pandas as pd
from llama_index.core import Document

from helpers.chunking import chunk_documents
from helpers.config import Settings
from helpers.corpus import DOCS_DIR, Question, course_files
from helpers.embedding import Embedder
from helpers.lab.common import Subset, ci_subset, dense_retriever
from helpers.metrics import evaluate_retrieval
from helpers.parsing import parse
from helpers.parsing.enrich import FIELDS, Enrichment, flat_fields

VARIANTS = {"no metadata": (), "summary + topics": ("summary", "topics"), "all five fields": FIELDS}


def email_documents() -> list[Document]:
    """Every e-mail of the course corpus, parsed (ids relative to the corpus folder, as in the gold set)."""
    return [doc for path in course_files() if path.suffix == ".eml" for doc in parse(path, root=DOCS_DIR)]


@ci_subset
def email_subset(documents: Sequence[Document], questions: Sequence[Question], settings: Settings,
                 n_questions: int = 8, n_distractors: int = 3) -> Subset:  # fmt: skip
    """Every e-mail and question in `full`; in `ci`, sampled questions, their e-mails and a few distractors."""
    rng = random.Random(settings.seed)
    picked = rng.sample(list(questions), min(n_questions, len(questions)))
    needed = {doc for q in picked for doc in q.evidence_docs}
    # Distractors: e-mails of the same threads first (the hardest to tell apart), then any others.
    threads = {d.metadata.get("thread") for d in documents if d.metadata["source"] in needed}
    rest = [d for d in documents if d.metadata["source"] not in needed]
    siblings = [d for d in rest if d.metadata.get("thread") in threads]
    others = rng.sample([d for d in rest if d not in siblings], len(rest) - len(siblings))
    keep = needed | {d.metadata["source"] for d in (siblings + others)[:n_distractors]}
    order = [q.id for q in questions]
    return [d for d in documents if d.metadata["source"] in keep], sorted(picked, key=lambda q: order.index(q.id))


def enrichment_table(documents: Sequence[Document], enrichments: Sequence[Enrichment]) -> pd.DataFrame:
    """One row per e-mail: the fields the LLM wrote (or its error) and the seconds it took (when first asked)."""
    rows = []
    for doc, result in zip(documents, enrichments, strict=True):
        fields = flat_fields(result.metadata) if result.metadata else {}
        name = doc.metadata["source"].split("/")[-1]
        rows.append({"e-mail": name, **fields, "error": result.error, "seconds": round(result.seconds, 1)})
    return pd.DataFrame(rows).set_index("e-mail")


def embed_only(documents: Sequence[Document], keys: Sequence[str]) -> list[Document]:
    """Copies in which, of the enrichment fields, only `keys` are part of the text the embedder reads."""
    copies = []
    for doc in documents:
        copy = doc.model_copy(deep=True)
        hidden = [key for key in FIELDS if key not in keys and key in copy.metadata]
        copy.excluded_embed_metadata_keys = [k for k in copy.excluded_embed_metadata_keys if k not in FIELDS] + hidden
        copies.append(copy)
    return copies


def metadata_gain_table(
    documents: Sequence[Document], questions: Sequence[Question], embedder: Embedder, k: int = 5
) -> pd.DataFrame:
    """One row per variant (no metadata, summary + topics, all five fields): hit@1, recall@k, MRR (pipeline chunker)."""
    rows = {}
    for name, keys in VARIANTS.items():
        nodes = chunk_documents(embed_only(documents, keys), embedder.settings.chunking.chunk_strategy)
        scores = evaluate_retrieval(questions, dense_retriever(nodes, embedder, k=10), ks=(1, k)).mean()
        rows[name] = {"e-mails": len(documents), "chunks": len(nodes), "questions": len(questions)}
        rows[name].update({m: round(float(scores[m]), 3) for m in ("hit@1", f"recall@{k}", "mrr")})
    return pd.DataFrame.from_dict(rows, orient="index").rename(columns={"mrr": "MRR"})
