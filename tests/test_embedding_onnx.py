"""The ONNX Runtime backend: torch's vectors, a deterministic checksummed export, a clear message without it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from helpers.config import ConfigError, Settings
from helpers.embedding import Embedder
from helpers.embedding.onnx_model import FILES, RECORD, OnnxEmbedder, ensure_exported, export_dir, sha256_file
from helpers.lab.embedding_speed import BACKENDS, time_embedders
from helpers.models import ModelNotAvailable, embedder_path

# short and long texts in one batch (padding), one past MiniLM's 256 word pieces (truncation), one with no words
TEXTS = [
    "The application fee is $90.",
    "Capstone teams have three to five students and meet the sponsor every other week. " * 20,
    "Office hours are on Friday.",
    "ADS 530 — Machine Learning I (final exam: 12/14, room 105).",
    "…",
]


@pytest.fixture(scope="module")
def onnx_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache folder for the module: the model is exported (and quantised) once, not per test."""
    folder = tmp_path_factory.mktemp("onnx-cache")
    ensure_exported(embedder_path(), folder, "int8")
    return folder


@pytest.fixture
def settings(tmp_settings: Settings, onnx_cache: Path) -> Settings:
    return tmp_settings.replace(cache_dir=onnx_cache)


def vectors(settings: Settings, backend: str, precision: str = "fp32") -> np.ndarray:
    """The texts' vectors from one set-up, computed (no cache, no shipped vectors), in batches of 2."""
    changes = {"embed_backend": backend, "embed_precision": precision, "embed_batch_size": 2}
    return Embedder(settings.replace(**changes), use_cache=False, shipped_dir=None).embed_texts(TEXTS)


def test_onnx_fp32_gives_the_torch_vectors(settings: Settings) -> None:
    torch_vectors, onnx_vectors = vectors(settings, "local"), vectors(settings, "onnx")
    assert onnx_vectors.shape == torch_vectors.shape == (len(TEXTS), 384) and onnx_vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(onnx_vectors, axis=1), 1.0, atol=1e-5)
    assert np.sum(torch_vectors * onnx_vectors, axis=1).min() >= 0.999


def test_onnx_int8_is_close_to_fp32_but_has_its_own_cache_key(settings: Settings) -> None:
    fp32, int8 = vectors(settings, "onnx"), vectors(settings, "onnx", "int8")
    cosines = np.sum(fp32 * int8, axis=1)
    assert not np.array_equal(fp32, int8) and cosines.min() >= 0.95  # per-channel int8: ~0.99 on course chunks
    ids = {Embedder(settings.replace(**changes)).model_id for changes in BACKENDS.values()}
    assert len(ids) == 3, "torch fp32 and ONNX fp32 share a key (same vectors); each int8 has its own"
    onnx_fp32, torch_fp32 = ({"embed_backend": b, "embed_precision": "fp32"} for b in ("onnx", "local"))
    assert Embedder(settings.replace(**onnx_fp32)).model_id == Embedder(settings.replace(**torch_fp32)).model_id


def test_the_setting_switches_the_backend(settings: Settings) -> None:
    from sentence_transformers import SentenceTransformer

    assert isinstance(Embedder(settings.replace(embed_backend="onnx")).load(), OnnxEmbedder)
    assert isinstance(Embedder(settings.replace(embed_backend="local")).load(), SentenceTransformer)
    with pytest.raises(ConfigError, match="embed_backend"):
        settings.replace(embed_backend="onxx")


def test_the_export_is_deterministic_and_checksummed(onnx_cache: Path, tmp_path: Path) -> None:
    folder = export_dir(embedder_path(), onnx_cache)
    record = json.loads((folder / RECORD).read_text(encoding="utf-8"))
    assert record["source_sha256"] == sha256_file(embedder_path() / "model.safetensors")
    for name in FILES.values():
        assert record["files"][name] == sha256_file(folder / name)
    again = ensure_exported(embedder_path(), tmp_path, "fp32")  # a second export, elsewhere: the same bytes
    assert sha256_file(again) == record["files"][FILES["fp32"]]
    again.write_bytes(b"damaged")  # a file that fails its checksum is exported again, never loaded
    with pytest.warns(UserWarning, match="does not match"):
        ensure_exported(embedder_path(), tmp_path, "fp32")
    assert sha256_file(again) == record["files"][FILES["fp32"]]


def test_missing_onnxruntime_gives_a_clear_message(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # what `import onnxruntime` does when it is not installed
    embedder = Embedder(settings.replace(embed_backend="onnx"), use_cache=False)
    with pytest.raises(ModelNotAvailable, match=r"needs the onnxruntime package.*setup\.sh.*embed_backend = 'local'"):
        embedder.embed_texts(TEXTS[:1])


def test_sorting_by_length_changes_the_padding_not_the_vectors(settings: Settings) -> None:
    model = Embedder(settings.replace(embed_backend="onnx", embed_precision="fp32"), use_cache=False).load()
    sorted_vectors = model.encode(TEXTS, batch_size=2)
    model.sort_by_length = False
    assert np.allclose(model.encode(TEXTS, batch_size=2), sorted_vectors, atol=1e-5)
    assert model.word_pieces(TEXTS)[1] == 256  # truncated at MiniLM's maximum, [CLS] and [SEP] included


def test_time_embedders_reports_a_ratio_to_the_first() -> None:
    class Fake:
        def embed_texts(self, texts: list[str]) -> None:
            return None

    table = time_embedders(["a", "b"], {"first": Fake(), "second": Fake()}, rounds=1)
    assert list(table.index) == ["first", "second"] and table.loc["first", "× first"] == 1.0
    assert set(table.columns) >= {"chunks/s", "seconds"} and len(table.attrs["load average"]) == 3


def test_an_int8_vector_depends_on_its_text_alone(settings: Settings) -> None:
    model = Embedder(settings.replace(embed_backend="onnx", embed_precision="int8"), use_cache=False).load()
    together = model.encode(TEXTS, batch_size=len(TEXTS))
    alone = np.vstack([model.encode([text]) for text in TEXTS])
    assert model.runs_alone and np.allclose(together, alone, atol=1e-6), "batch-mates must not move a vector"
    model.precision = "fp32-for-the-test"  # batched int8 runs, to show why: its batch-mates move each vector
    batched = model.encode(TEXTS, batch_size=len(TEXTS))
    assert np.sum(batched * alone, axis=1).min() < 0.9999
