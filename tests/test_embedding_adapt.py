"""The adapted embedder's pieces: the in-batch loss, pooling, and a few training steps on the packaged MiniLM."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

from bench.adapt import adapt_embedder, encode, in_batch_loss  # noqa: E402

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


def test_a_hard_negative_is_a_wrong_class_for_every_question() -> None:
    vectors = torch.nn.functional.normalize(torch.eye(4) + 0.01, dim=-1)
    far = torch.nn.functional.normalize(-torch.ones(1, 4), dim=-1)
    assert float(in_batch_loss(vectors, torch.cat([vectors, far]))) < 0.01  # a negative far from all costs nothing
    copy = float(in_batch_loss(vectors, torch.cat([vectors, vectors[:1]])))  # a copy of the first question's positive
    assert copy == pytest.approx(math.log(2) / 4, abs=0.01)  # that question is now a coin toss; the mean of four


def test_training_with_hard_negatives_lowers_the_loss() -> None:
    near_misses = ["ADSP 31017. Machine Learning I. 100 Units.", "Spring break: March 20-24.",
                   "There is no fee to request a transcript.", "Assistant Director, Jane Doe, MS"]  # fmt: skip
    triples = [(question, passage, miss) for (question, passage), miss in zip(PAIRS, near_misses, strict=True)]
    _, _, losses = adapt_embedder(triples, epochs=3, learning_rate=1e-4, batch=4)
    assert len(losses) == 3 and losses[-1] < losses[0]
