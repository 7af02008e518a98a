"""The adapted embedder's pieces: the in-batch loss, pooling, and a few training steps on the packaged MiniLM."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from helpers.embedding.adapt import adapt_embedder, encode, in_batch_loss  # noqa: E402

PAIRS = [
    ("What is the course number of Machine Learning II?", "ADSP 31018. Machine Learning II. 100 Units."),
    ("When does the fall break start?", "Fall break: Oct. 13-17."),
    ("How much is the application fee?", "There is a $90 non-refundable application fee."),
    ("Who directs the in-person program?", "Program Director, Greg Green, PhD"),
]


def test_in_batch_loss_is_low_when_each_question_matches_its_own_passage() -> None:
    vectors = torch.nn.functional.normalize(torch.eye(4) + 0.01, dim=-1)
    matched = in_batch_loss(vectors, vectors)
    shuffled = in_batch_loss(vectors, vectors[[1, 2, 3, 0]])
    assert float(matched) < 0.01 < float(shuffled)


def test_training_steps_lower_the_loss_and_keep_unit_vectors() -> None:
    model, tokenizer, losses = adapt_embedder(PAIRS, epochs=3, learning_rate=1e-4, batch=4)
    assert len(losses) == 3 and losses[-1] < losses[0]
    vectors = encode(model, tokenizer, [passage for _, passage in PAIRS])
    assert vectors.shape == (4, 384)
    assert torch.allclose(vectors.norm(dim=-1), torch.ones(4), atol=1e-5)
    assert not model.training  # handed back ready to embed
