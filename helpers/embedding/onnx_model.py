"""The packaged MiniLM through ONNX Runtime: exported once from the torch model, in float32 or int8.

`ensure_exported` writes the files into `<cache_dir>/onnx/` with their sha256 (a file that no longer matches is
exported again); `OnnxEmbedder` mean-pools as sentence-transformers does, and once exported, torch is not imported.
What it leaves out: ONNX Runtime's offline optimiser, static quantisation (needs calibration data), GPUs.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from helpers.config import EmbeddingSettings
from helpers.models import ModelNotAvailable

OPSET = 17
PRECISIONS = ("fp32", "int8")
FILES = {"fp32": "model.onnx", "int8": "model-int8.onnx"}
RECORD = "export.json"
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
MISSING_RUNTIME = (
    "embed_backend = 'onnx' needs the onnxruntime package (pinned in requirements.lock, with onnx for the int8 "
    "copy): run the set-up command (bash scripts/setup.sh), or set embed_backend = 'local' (KIT_EMBED_BACKEND=local) "
    "to embed with torch."
)


def require(module: str) -> Any:
    """Import onnxruntime (or onnx), or say clearly what is missing and what to do."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as err:
        raise ModelNotAvailable(f"{MISSING_RUNTIME} ({module}: {err})") from err


def sha256_file(path: Path) -> str:
    """sha256 of a file, read in 1 MB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def weights_file(model_path: Path) -> Path:
    """The packaged model's weights (what an export is derived from)."""
    for name in ("model.safetensors", "pytorch_model.bin"):
        if (model_path / name).exists():
            return model_path / name
    raise ModelNotAvailable(f"no model weights (model.safetensors) in {model_path}")


def max_length(model_path: Path) -> int:
    """The model's maximum word pieces (sentence-transformers' `max_seq_length`, 256 for MiniLM)."""
    config = model_path / "sentence_bert_config.json"
    if config.exists():
        return int(json.loads(config.read_text(encoding="utf-8")).get("max_seq_length", 256))
    return 256


def unpadded_tokenizer(model_path: Path) -> Any:
    """The model's own tokenizer, truncating at its maximum and never padding (a batch pads to its longest text)."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(model_path / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length(model_path))
    return tokenizer


def word_pieces(texts: Sequence[str], model_path: Path) -> list[int]:
    """Word pieces the model reads for each text (after truncation, special tokens included)."""
    return [len(encoding.ids) for encoding in unpadded_tokenizer(model_path).encode_batch(list(texts))]


def export_dir(model_path: Path, cache_dir: Path) -> Path:
    """Where the exported files of one packaged model live in the kit's cache."""
    name = f"{model_path.parent.name}.{model_path.name}" if model_path.name == "model" else model_path.name
    return Path(cache_dir) / "onnx" / f"{name}-opset{OPSET}"


def export_fp32(model_path: Path, target: Path) -> str:
    """Trace the packaged model's transformer into `target` (ONNX, batch and length dynamic); the version of torch
    that traced it (the same torch and weights give the same bytes)."""
    import torch
    from transformers import AutoModel

    class LastHidden(torch.nn.Module):
        """The transformer with plain tensor inputs and one output: a vector per word piece."""

        def __init__(self, model: torch.nn.Module) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            out = self.model(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
            return out.last_hidden_state

    # eager attention: the traced graph then always applies the padding mask (sdpa may skip it when the example
    # batch has no padding, and the trace would keep that shortcut)
    model = AutoModel.from_pretrained(str(model_path), attn_implementation="eager").eval()
    ids = torch.tensor([[101, 7592, 2088, 2003, 1037, 6251, 102], [101, 7592, 102, 0, 0, 0, 0]], dtype=torch.int64)
    mask = (ids != 0).to(torch.int64)
    dynamic = {name: {0: "batch", 1: "sequence"} for name in INPUTS}
    dynamic["last_hidden_state"] = {0: "batch", 1: "sequence"}
    with torch.inference_mode(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tracer and deprecation notices: the export is checked by its output
        torch.onnx.export(
            LastHidden(model), (ids, mask, torch.zeros_like(ids)), str(target), input_names=list(INPUTS),
            output_names=["last_hidden_state"], dynamic_axes=dynamic, opset_version=OPSET, do_constant_folding=True,
            dynamo=False,
        )  # fmt: skip
    return str(torch.__version__)


def quantise_int8(source: Path, target: Path) -> None:
    """ONNX Runtime dynamic quantisation of every MatMul's weights to int8: one scale per output channel (much
    closer to float32 than one per tensor, docs/decisions.md), 7 bits (AVX2's multiply-add never saturates)."""
    import logging

    require("onnx")
    from onnxruntime.quantization import QuantType, quantize_dynamic

    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # quantize_dynamic logs a "consider pre-processing" warning on the root logger
    try:
        quantize_dynamic(
            str(source), str(target), op_types_to_quantize=["MatMul"], weight_type=QuantType.QInt8, per_channel=True,
            reduce_range=True,
        )  # fmt: skip
    finally:
        root.setLevel(level)


def _record(folder: Path) -> dict[str, Any]:
    """The export record (empty when missing or unreadable)."""
    try:
        return json.loads((folder / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def ensure_exported(model_path: Path, cache_dir: Path, precision: str = "fp32") -> Path:
    """The ONNX file of `precision`, exported (and quantised) now if missing, damaged or from other weights."""
    if precision not in PRECISIONS:
        raise ValueError(f"ONNX precision must be one of {PRECISIONS}, got {precision!r}")
    require("onnxruntime")
    folder = export_dir(model_path, cache_dir)
    folder.mkdir(parents=True, exist_ok=True)
    record = _record(folder)
    source = sha256_file(weights_file(model_path))
    if record.get("source_sha256") != source:
        record = {"source": model_path.name, "source_sha256": source, "opset": OPSET, "files": {}}
    for needed in ("fp32", precision) if precision != "fp32" else ("fp32",):
        name = FILES[needed]
        path = folder / name
        if path.exists() and record["files"].get(name) == sha256_file(path):
            continue
        if path.exists():
            warnings.warn(f"{path} does not match its recorded sha256: exporting it again", stacklevel=2)
        handle, tmp_name = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)  # renamed in place
        os.close(handle)
        tmp = Path(tmp_name)
        try:
            if needed == "fp32":
                record["torch"] = export_fp32(model_path, tmp)
            else:
                quantise_int8(folder / FILES["fp32"], tmp)
            tmp.replace(path)
        finally:
            tmp.unlink(missing_ok=True)
        record["files"][name] = sha256_file(path)
        (folder / RECORD).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return folder / FILES[precision]


class OnnxEmbedder:
    """MiniLM sentence vectors from an ONNX file: tokenise, sort by length, pad per batch, run, mean-pool."""

    def __init__(
        self, model_path: Path, cache_dir: Path, precision: str = "fp32", threads: int | None = None,
        sort_by_length: bool = True,
    ) -> None:  # fmt: skip
        ort = require("onnxruntime")

        self.model_path, self.precision, self.sort_by_length = Path(model_path), precision, sort_by_length
        self.path = ensure_exported(self.model_path, cache_dir, precision)
        self.max_length = max_length(self.model_path)
        self.tokenizer = unpadded_tokenizer(self.model_path)
        self.threads = threads or min(os.cpu_count() or 1, 8)
        # int8 runs one text at a time (`runs_alone`): then `threads` texts run side by side on one-thread runs,
        # which on 2 cores beat one text on two threads (docs/decisions.md); float32 batches on all threads
        self.workers = self.threads if self.runs_alone else 1
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1 if self.workers > 1 else self.threads
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # threads that wait by sleeping, not spinning: on a shared machine spinning threads starve (bench/embedding)
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.session = ort.InferenceSession(str(self.path), options, providers=["CPUExecutionProvider"])
        self.inputs = {item.name for item in self.session.get_inputs()}

    @property
    def runs_alone(self) -> bool:
        """int8 embeds one text per run: dynamic quantisation takes one activation scale per run, so in a batch a
        text's vector would depend on its batch-mates (it moves about as far from its own vector embedded alone as
        int8 is from float32). Alone, a vector is a function of its text, as the cache and the shipped vectors
        assume, and no run pads."""
        return self.precision == "int8"

    def _run(self, encodings: list[Any], rows: np.ndarray) -> np.ndarray:
        """Mean-pooled (not yet normalised) vectors of the texts at `rows`, padded to the longest of them."""
        width = max(len(encodings[i].ids) for i in rows)
        batch = {name: np.zeros((len(rows), width), dtype=np.int64) for name in INPUTS}
        for row, i in enumerate(rows):
            n = len(encodings[i].ids)
            batch["input_ids"][row, :n] = encodings[i].ids
            batch["attention_mask"][row, :n] = 1
            batch["token_type_ids"][row, :n] = encodings[i].type_ids
        (hidden,) = self.session.run(None, {k: v for k, v in batch.items() if k in self.inputs})
        mask = batch["attention_mask"][:, :, None].astype(np.float32)
        return (hidden * mask).sum(axis=1) / np.clip(mask.sum(axis=1), 1e-9, None)

    def word_pieces(self, texts: Sequence[str]) -> list[int]:
        """Word pieces the model reads for each text (after truncation, special tokens included)."""
        return [len(encoding.ids) for encoding in self.tokenizer.encode_batch(list(texts))]

    def encode(self, texts: Sequence[str], batch_size: int = EmbeddingSettings().embed_batch_size) -> np.ndarray:
        """One L2-normalised vector per text, in the order given (int8: one text per run, see `runs_alone`)."""
        batch_size = 1 if self.runs_alone else batch_size
        encodings = self.tokenizer.encode_batch(list(texts))
        order = np.arange(len(encodings))
        if self.sort_by_length:  # longest first: each batch pads to a length close to all of its texts
            order = np.argsort([-len(e.ids) for e in encodings], kind="stable")
        batches = [order[start : start + batch_size] for start in range(0, len(order), batch_size)]
        if self.workers > 1 and len(batches) > 1:  # independent one-text runs, side by side (the session is shared)
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(self.workers) as pool:
                pooled = list(pool.map(lambda rows: self._run(encodings, rows), batches))
        else:
            pooled = [self._run(encodings, rows) for rows in batches]
        out = np.zeros((len(encodings), pooled[0].shape[1] if pooled else 0), dtype=np.float32)
        for rows, vectors in zip(batches, pooled, strict=True):
            out[rows] = vectors
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.clip(norms, 1e-12, None)
