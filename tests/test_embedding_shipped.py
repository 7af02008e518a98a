"""The shipped course vectors: they match today's corpus and chunking, they are the model's vectors, they are
used before the model and never trusted when damaged."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bench.shipped_vectors import SEEDED, course_embed_texts, write_shipped
from helpers.config import Settings, get_settings
from helpers.embedding import Embedder, EmbeddingCache
from helpers.embedding.shipped import ShippedVectors, shipped_path

REGENERATE = ".venv/bin/python -m bench.shipped_vectors"


@pytest.fixture(scope="module")
def course_texts() -> list[str]:
    """What the embedder sees for each course chunk under the default chunking (what a fresh machine builds)."""
    defaults = Settings()
    settings = get_settings().replace(chunking=defaults.chunking)
    return list(dict.fromkeys(course_embed_texts(settings)))


@pytest.fixture
def settings(tmp_settings: Settings, tmp_path: Path) -> Settings:
    """Settings with an empty embedding cache of their own."""
    return tmp_settings.replace(cache_dir=tmp_path / "cache")


@pytest.mark.parametrize("embedder", SEEDED, ids=["default", "torch-fp32"])
def test_the_shipped_vectors_cover_exactly_the_course_chunks(course_texts: list[str], embedder: dict) -> None:
    model = Embedder(Settings().replace(**embedder)).model_id
    seed = ShippedVectors.load(model)
    assert seed is not None, f"{shipped_path(model)} is missing or damaged; regenerate it: {REGENERATE}"
    wanted = {EmbeddingCache.key(model, text) for text in course_texts}
    missing, stale = wanted - set(seed.index), set(seed.index) - wanted
    assert not missing and not stale, (
        f"the shipped course vectors are out of date ({len(missing)} chunks missing, {len(stale)} no longer in the "
        f"corpus): the corpus or the default chunking changed. Regenerate and commit them: {REGENERATE}"
    )


@pytest.mark.parametrize("embedder", SEEDED, ids=["default", "torch-fp32"])
def test_the_shipped_vectors_are_the_models_vectors(
    course_texts: list[str], settings: Settings, embedder: dict
) -> None:
    settings = settings.replace(**embedder)
    sample = course_texts[:: max(1, len(course_texts) // 8)][:8]
    computed = Embedder(settings, shipped_dir=None).embed_texts(sample)
    seeded = Embedder(settings.replace(cache_dir=settings.paths.cache_dir / "other")).embed_texts(sample)
    cosines = np.sum(computed * seeded, axis=1)
    assert cosines.min() > 0.999, f"seeded vectors differ from the model's (cosine {cosines.min():.4f}): {REGENERATE}"


def test_seeded_texts_are_looked_up_and_others_computed(course_texts: list[str], settings: Settings) -> None:
    embedder = Embedder(settings)
    vectors = embedder.embed_texts(course_texts[:5])
    assert embedder.stats == {"computed": 0, "cached": 0, "seeded": 5}
    assert embedder._model is None and embedder.dimension == vectors.shape[1] == 384, "no model needed"
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    embedder.embed_texts([*course_texts[:5], "A sentence the course corpus does not contain."])
    assert embedder.stats == {"computed": 1, "cached": 5, "seeded": 5}, "seeded vectors land in the cache"


def test_a_seed_for_another_model_or_a_damaged_one_is_ignored(tmp_path: Path) -> None:
    key = EmbeddingCache.key("m", "some text")
    unit = np.eye(4, dtype=np.float32)[:1]
    write_shipped("m", [key], unit, tmp_path)
    assert len(ShippedVectors.load("m", tmp_path)) == 1
    assert ShippedVectors.load("other-model", tmp_path) is None  # no file of that name
    shipped_path("other-model", tmp_path).write_bytes(shipped_path("m", tmp_path).read_bytes())  # renamed, still "m"
    with pytest.warns(UserWarning, match="made for model 'm'"):
        assert ShippedVectors.load("other-model", tmp_path) is None
    write_shipped("m", [key], unit * 3, tmp_path)  # not unit length: damaged
    with pytest.warns(UserWarning, match="length 1"):
        assert ShippedVectors.load("m", tmp_path) is None
    shipped_path("m", tmp_path).write_bytes(b"not a zip file")
    with pytest.warns(UserWarning, match="unreadable"):
        assert ShippedVectors.load("m", tmp_path) is None
