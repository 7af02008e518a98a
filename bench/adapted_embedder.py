"""An embedder adapted to the documents: answer in context with MiniLM fine-tuned on the reader's questions.

    .venv/bin/python -m bench.adapted_embedder                       # 250 questions per corpus, alphas 0.5 and 0.6
    .venv/bin/python -m bench.adapted_embedder --alphas 0.5,0.6,0.7 --name adapted_embedder_alphas
    .venv/bin/python -m bench.adapted_embedder --hard-negatives --alphas 0.4,0.5,0.6 \
        --name realworld_adapted_embedder_hard  # the run docs/results.md reports

1. The 1.5B reader writes one question for each of `--questions` chunks sampled from each corpus
   (`helpers.rerank.synthetic.training_pairs`; its answers are cached, so a second run writes nothing).
2. One MiniLM is fine-tuned on both corpora's (question, chunk) pairs (`bench.adapt`: in-batch
   negatives, `--epochs`, `--lr`); with `--hard-negatives` each pair also carries the chunk BM25 ranks highest for
   its question that is not its own and shares no more of the question's words (`training_pairs` mines it).
3. For each corpus and split, the configured pipeline (weighted hybrid, expansion, near-copies dropped, the 550-token
   budget) runs with its dense side replaced by exact cosine search over the chunks embedded by the packaged MiniLM
   or by the adapted one (both in torch fp32, so the two differ only in the weights), at each fusion weight
   `--alphas`; a row per (corpus, split, model, alpha): answer in the reader's context, and answer in the dense
   side's top 5.

No gold question is used for training; the `dev` rows choose, the `test` rows report. Results:
`bench/results/<name>.{csv,json}` (default `realworld_adapted_embedder`).
What it leaves out: the reader's F1 with the adapted embedder (it needs the model saved as the pipeline's embedder).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from bench.adapt import QUERY_TOKENS, Example, adapt_embedder, encode, load_minilm
from bench.common import RESULTS_DIR, Record
from helpers.config import get_settings
from helpers.embedding.similarity import cosine_top_k
from helpers.evaluation.two_corpora import course_corpus, indexed, reader_passages, realworld_corpus, tuning_settings
from helpers.generation import check_input
from helpers.metrics import contains_answer
from helpers.retrieval.base import Filters, stored_chunks
from helpers.types import Hit


class ExactDense:
    """Dense retrieval by exact cosine over every chunk, with a given model (a stand-in for the Qdrant search)."""

    def __init__(self, model: Any, tokenizer: Any, chunks: Sequence[Hit], embedded: Sequence[str]) -> None:
        self.model, self.tokenizer, self.chunks = model, tokenizer, list(chunks)
        self.matrix = encode(model, tokenizer, list(embedded)).numpy()

    def retrieve(self, query: str, k: int, filters: Filters | None = None) -> list[Hit]:
        """The k chunks nearest the query (filters are not needed here: the sweep asks none)."""
        vector = encode(self.model, self.tokenizer, [query], QUERY_TOKENS).numpy()[0]
        return [Hit(self.chunks[i].node_id, self.chunks[i].text, self.chunks[i].metadata, {"dense": score})
                for i, score in cosine_top_k(self.matrix, vector, k)]  # fmt: skip


def training_questions(n: int, hard: bool = False) -> tuple[list[Example], dict[str, int]]:
    """(question, chunk) pairs the reader wrote about `n` chunks of each corpus, and how many per corpus.

    With `hard`, a pair whose question has a BM25 hard negative carries it as a third text.
    """
    from helpers.llm import make_llm
    from helpers.llm.cache import CachedCompleter, llm_cache
    from helpers.rerank.synthetic import training_pairs

    base, pairs, counts = get_settings(), [], {}
    llm = CachedCompleter(lambda: make_llm(base), base.llm.name, llm_cache(base))  # one reader writes for both
    for name, corpus in (("course", course_corpus("dev", base)), ("real", realworld_corpus("dev", base))):
        pipeline = indexed(corpus, tuning_settings(corpus, base))
        chunks, _ = stored_chunks(pipeline.store)
        examples: list[Example] = []
        for pair in training_pairs(llm, chunks, n, 1, base.seed):  # each positive, then its negative if one was found
            if pair.label == 1.0:
                examples.append((pair.question, pair.passage))
            elif hard:
                examples[-1] = (*examples[-1][:2], pair.passage)
        counts[name] = len(examples)
        pairs.extend(examples)
    return pairs, counts


def context_rows(models: dict[str, tuple[Any, Any]], alphas: Sequence[float]) -> list[dict[str, Any]]:
    """Answer in the reader's context and in the dense top 5, per corpus, split, model and fusion weight."""
    base, rows, embedded_once = get_settings(), [], {}
    for split in ("dev", "test"):
        for name, corpus in (("course", course_corpus(split, base)), ("real", realworld_corpus(split, base))):
            pipeline = indexed(corpus, tuning_settings(corpus, base))
            chunks, embedded = stored_chunks(pipeline.store)
            for label, (model, tokenizer) in models.items():
                if (name, label) not in embedded_once:  # both splits search the same chunks
                    embedded_once[(name, label)] = ExactDense(model, tokenizer, chunks, embedded)
                dense = embedded_once[(name, label)]
                questions = [(q, check_input(q.question).question) for q in corpus.answerable]
                in_dense = np.mean([any(contains_answer(h.text, q.answers) for h in dense.retrieve(text, 5))
                                    for q, text in questions])  # fmt: skip
                for alpha in alphas:
                    retriever = pipeline.make_retriever(dense=dense, alpha=alpha)
                    k = pipeline.settings.retrieval.top_k
                    found = [any(contains_answer(h.text, q.answers)
                                 for h in reader_passages(pipeline, q.question, retriever.retrieve(text, k)))
                             for q, text in questions]  # fmt: skip
                    rows.append({"corpus": name, "split": split, "embedder": label, "alpha": alpha,
                                 "questions": len(questions), "answer in context": float(np.mean(found)),
                                 "dense top 5 holds the answer": float(in_dense)})  # fmt: skip
                    print(rows[-1], flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    """Write the questions, adapt MiniLM, measure both embedders in the pipeline; write the rows."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=250, help="chunks per corpus the reader writes a question for")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=2e-5)
    parser.add_argument("--hard-negatives", action="store_true", help="one BM25 hard negative per question too")
    parser.add_argument("--alphas", default="0.5,0.6", help="comma-separated dense weights of the fusion")
    parser.add_argument("--name", default="realworld_adapted_embedder")
    args = parser.parse_args(argv)
    record = Record(args.name, RESULTS_DIR)
    pairs, counts = training_questions(args.questions, args.hard_negatives)
    started = time.perf_counter()
    model, tokenizer, losses = adapt_embedder(pairs, args.epochs, args.lr, seed=get_settings().seed)
    trained_s = time.perf_counter() - started
    alphas = [float(alpha) for alpha in args.alphas.split(",")]
    rows = context_rows({"packaged MiniLM": load_minilm(), "adapted MiniLM": (model, tokenizer)}, alphas)
    frame = pd.DataFrame(rows)
    frame.to_csv(RESULTS_DIR / f"{args.name}.csv", index=False)
    record["training"] = {"pairs per corpus": counts, "hard negatives": sum(len(pair) > 2 for pair in pairs),
                          "epochs": args.epochs, "learning rate": args.lr,
                          "seconds": round(trained_s, 1), "first and last loss": [losses[0], losses[-1]]}  # fmt: skip
    record["rows"] = rows
    record.save()
    print(frame.pivot_table(index=["embedder", "alpha"], columns=["corpus", "split"], values="answer in context"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
