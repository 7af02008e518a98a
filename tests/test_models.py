"""The packaged models: located offline, the chunked GGUF joined and checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.models import QWEN_05B, ChunkedGGUF, ModelNotAvailable, embedder_path, join_chunked_model, smollm_path


def test_packaged_models_are_on_disk() -> None:
    assert (embedder_path() / "model.safetensors").is_file()
    assert smollm_path().suffix == ".gguf"


def test_join_verifies_checksum(tmp_path: Path) -> None:
    # A real join of the real parts; the second call is served from the verified cache.
    path = join_chunked_model(QWEN_05B, tmp_path)
    assert path.stat().st_size > 400_000_000
    assert join_chunked_model(QWEN_05B, tmp_path) == path


def test_wrong_checksum_stops_with_clear_message(tmp_path: Path) -> None:
    broken = ChunkedGGUF("broken.gguf", QWEN_05B.packages[-1:], "0" * 64, "test")
    with pytest.raises(ModelNotAvailable, match="sha256"):
        join_chunked_model(broken, tmp_path)
    assert not (tmp_path / "models" / "broken.gguf").exists()


def test_missing_package_says_how_to_install() -> None:
    missing = ChunkedGGUF("x.gguf", ("no_such_kit_package",), "0" * 64, "test")
    with pytest.raises(ModelNotAvailable, match="set-up command"):
        join_chunked_model(missing, Path("/nonexistent"))
