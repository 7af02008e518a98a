"""An embedder adapted to a folder of documents: MiniLM trained on questions the reader wrote about its chunks.

The packaged MiniLM was trained on the web at large; it has never seen a course catalog's "ADSP 31018" or a
calendar's "Fall 1 9-week term". Fine-tuning it on pairs (question, the chunk it was written from) teaches it the
folder's words: each question should be nearer its own chunk than the other chunks of its batch (in-batch
negatives, the "multiple negatives ranking" loss of sentence-transformers), and, when a pair carries a third text, also
nearer than that hard negative (a chunk BM25 ranks high for the question). No gold question is used, so the same
recipe works on any folder; the questions and negatives come from `helpers.rerank.synthetic.training_pairs`.

    model, tokenizer, losses = adapt_embedder([("What is the course number of Machine Learning II?", "ADSP 31018. …"),
                                               ("When does Fall 1 start?", "Fall 1 9-week term: Aug. 18.")])
    vectors = encode(model, tokenizer, ["ADSP 31018. Machine …"])

What it leaves out: checking that a hard negative does not answer the question too, a validation split, and saving
the model as an embedder the pipeline loads (bench/adapted_embedder.py measures it beside the pipeline).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from helpers.models import embedder_path

SCALE = 20.0  # cosine similarities times this are the logits (sentence-transformers' default)
QUERY_TOKENS, PASSAGE_TOKENS = 64, 256  # word pieces kept of a question and of a chunk
Example = tuple[str, str] | tuple[str, str, str]  # (question, its chunk) or (question, its chunk, a hard negative)


def load_minilm(path: Path | None = None) -> tuple[Any, Any]:
    """The packaged MiniLM as a transformers model (evaluation mode) and its tokenizer."""
    from transformers import AutoModel, AutoTokenizer

    folder = str(path or embedder_path())
    return AutoModel.from_pretrained(folder).eval(), AutoTokenizer.from_pretrained(folder)


def encode(model: Any, tokenizer: Any, texts: Sequence[str], max_tokens: int = PASSAGE_TOKENS, batch: int = 64,
           grad: bool = False) -> Any:  # fmt: skip
    """Mean-pooled, L2-normalised vectors of `texts` (a torch tensor, one row each), as MiniLM's pooling does."""
    import torch

    rows = []
    for start in range(0, len(texts), batch):
        tokens = tokenizer(list(texts[start : start + batch]), padding=True, truncation=True, max_length=max_tokens,
                           return_tensors="pt")  # fmt: skip
        with torch.set_grad_enabled(grad):
            hidden = model(**tokens).last_hidden_state
            mask = tokens["attention_mask"].unsqueeze(-1).float()
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            rows.append(torch.nn.functional.normalize(pooled, dim=-1))
    return torch.cat(rows)


def in_batch_loss(questions: Any, passages: Any) -> Any:
    """Cross-entropy of each question against every passage of the batch, its own (same row) the right class.

    `passages` may hold more rows than `questions`: the rows past the positives are hard negatives for every question.
    """
    import torch

    logits = questions @ passages.T * SCALE
    return torch.nn.functional.cross_entropy(logits, torch.arange(len(questions)))


def adapt_embedder(
    pairs: Sequence[Example], epochs: int = 2, learning_rate: float = 2e-5, batch: int = 32, seed: int = 0,
    path: Path | None = None,
) -> tuple[Any, Any, list[float]]:  # fmt: skip
    """MiniLM fine-tuned on (question, chunk) pairs, in-batch negatives: the model, its tokenizer, each step's loss.

    A pair's optional third text is a hard negative: it joins the batch's passages, a wrong class for every question.
    """
    import torch

    torch.manual_seed(seed)
    order = random.Random(seed)
    model, tokenizer = load_minilm(path)
    model.train()
    optimiser = torch.optim.AdamW(model.parameters(), lr=learning_rate)
    losses, pairs = [], list(pairs)
    for _ in range(epochs):
        order.shuffle(pairs)
        for start in range(0, len(pairs), batch):
            chunk = pairs[start : start + batch]
            if len(chunk) < 2:  # one pair has no other passage to be told apart from
                continue
            questions = encode(model, tokenizer, [pair[0] for pair in chunk], QUERY_TOKENS, grad=True)
            texts = [pair[1] for pair in chunk] + [pair[2] for pair in chunk if len(pair) > 2]
            passages = encode(model, tokenizer, texts, PASSAGE_TOKENS, grad=True)
            loss = in_batch_loss(questions, passages)
            loss.backward()
            optimiser.step()
            optimiser.zero_grad()
            losses.append(float(loss.detach()))
    return model.eval(), tokenizer, losses
