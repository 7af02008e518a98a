"""The embedder: unit vectors, the on-disk cache (hits, resume after a crash, damage), query prefixes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import helpers.embedding.embedder as embedder_module
from helpers.config import Settings
from helpers.embedding import Embedder, EmbeddingCache, KitEmbedding

TEXTS = ["The application fee is $90.", "Capstone teams have three to five students.", "Office hours are on Friday."]


@pytest.fixture
def settings(tmp_settings: Settings, tmp_path: Path) -> Settings:
    """Settings whose embedding cache lives in a temporary folder."""
    return tmp_settings.replace(cache_dir=tmp_path / "cache")


def test_vectors_are_unit_length_float32_so_cosine_is_a_dot_product(settings: Settings) -> None:
    vectors = Embedder(settings).embed_texts(TEXTS)
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    a, b = vectors[0], vectors[1]
    assert np.isclose(a @ b, (a @ b) / (np.linalg.norm(a) * np.linalg.norm(b)), atol=1e-6)


def test_second_embed_computes_nothing_even_in_a_new_process(settings: Settings) -> None:
    first = Embedder(settings)
    vectors = first.embed_texts([*TEXTS, TEXTS[0]])  # a repeat inside one call is computed once
    assert first.stats == {"computed": 3, "cached": 1, "seeded": 0}
    again = first.embed_texts(TEXTS)
    assert first.stats["computed"] == 3 and np.array_equal(again, vectors[:3])
    fresh = Embedder(settings)  # a new embedder reads the same file: what a re-run of a notebook does
    assert np.array_equal(fresh.embed_texts(TEXTS), vectors[:3])
    assert fresh.stats == {"computed": 0, "cached": 3, "seeded": 0}
    assert fresh._model is None, "a warm run must not even load the model"


def test_an_interrupted_run_keeps_what_it_finished(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embedder_module, "SAVE_EVERY", 2)
    texts = [f"sentence number {i}" for i in range(6)]
    crashing = Embedder(settings)
    real_compute, calls = crashing._compute, []

    def compute_then_crash(batch: list[str]) -> np.ndarray:
        calls.append(batch)
        if len(calls) == 2:
            raise KeyboardInterrupt  # the student pressed stop during the second chunk
        return real_compute(batch)

    monkeypatch.setattr(crashing, "_compute", compute_then_crash)
    with pytest.raises(KeyboardInterrupt):
        crashing.embed_texts(texts)
    resumed = Embedder(settings)
    resumed.embed_texts(texts)
    assert resumed.stats == {"computed": 4, "cached": 2, "seeded": 0}


def test_the_progress_bar_counts_chunks_not_batches(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(embedder_module, "SAVE_EVERY", 2)  # five texts: three saved batches
    Embedder(settings).embed_texts([f"sentence number {i}" for i in range(5)], progress=True)
    bar = capsys.readouterr().err
    assert "5/5" in bar and "chunk" in bar and "3/3" not in bar


def test_query_prefix_is_added_to_queries_only(settings: Settings) -> None:
    plain, prefixed = Embedder(settings), Embedder(settings.replace(query_prefix="query: "))
    assert plain.query_prefix == ""
    assert np.array_equal(prefixed.embed_query("fee?"), plain.embed_texts(["query: fee?"])[0])
    assert not np.array_equal(prefixed.embed_query("fee?"), plain.embed_query("fee?"))
    assert np.array_equal(prefixed.embed_texts(TEXTS), plain.embed_texts(TEXTS))


def test_cache_keys_tell_models_and_endpoints_apart(settings: Settings) -> None:
    local = Embedder(settings)
    openai = Embedder(settings.replace(embed_backend="openai", openai_base_url="http://localhost:8000/v1"))
    other = Embedder(settings.replace(embed_backend="openai", openai_base_url="http://other:8000/v1"))
    assert len({local.model_id, openai.model_id, other.model_id}) == 3
    assert EmbeddingCache.key(local.model_id, "x") != EmbeddingCache.key(openai.model_id, "x")


def test_a_damaged_cache_file_is_moved_aside_not_deleted(tmp_path: Path) -> None:
    path = tmp_path / "embeddings.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.warns(UserWarning, match="unreadable"):
        cache = EmbeddingCache(path)
    cache.put_many({"k": np.ones(3, dtype=np.float32)})
    assert len(cache) == 1 and path.with_suffix(".damaged").exists()


def test_llamaindex_adapter_gives_the_same_vectors(settings: Settings) -> None:
    embedder = Embedder(settings.replace(query_prefix="query: "))
    adapter = KitEmbedding(embedder)
    assert np.allclose(adapter.get_text_embedding(TEXTS[0]), embedder.embed_texts(TEXTS[:1])[0])
    assert np.allclose(adapter.get_query_embedding("fee?"), embedder.embed_query("fee?"))


def test_int8_precision_is_its_own_model_for_the_cache(settings: Settings) -> None:
    fp32 = Embedder(settings.replace(embed_backend="local", embed_precision="fp32"))
    int8 = Embedder(settings.replace(embed_backend="local", embed_precision="int8"))
    assert int8.model_id == f"{fp32.model_id}@int8", "int8 vectors must never be served as float32 ones"
    a, b = fp32.embed_texts(TEXTS), int8.embed_texts(TEXTS)
    assert int8.stats["computed"] == 3 and np.allclose(np.linalg.norm(b, axis=1), 1.0, atol=1e-5)
    assert not np.array_equal(a, b) and np.sum(a * b, axis=1).min() > 0.9  # close, not equal
