"""Embedding throughput: the kit's `Embedder` against the same model's bare forward pass, batch 1 to 128.

What it does: takes course chunks (the texts ingest embeds), and at each batch size embeds them twice —
with `helpers.embedding.Embedder(use_cache=False)` (sentence-transformers underneath, cache bypassed) and
with transformers + torch directly (tokenise, forward, mean pooling over the attention mask, L2 normalise;
texts sorted by length as sentence-transformers does, so padding costs the same). Best of `repeats` runs,
alternating the two. The ratio wrapper/bare is what the wrapper costs (1.0 = nothing); the vectors of the
two are checked equal. Tokens are word pieces the model saw (truncated at its 256 maximum).
`wait_policy_probe` times the bare model in fresh processes with torch's default 2 threads, with OpenMP's
PASSIVE wait policy, and with 1 thread: on a shared, overloaded machine spinning OpenMP threads slow the
forward pass down many times over (docs/decisions.md), which is why the runner sets OMP_WAIT_POLICY=PASSIVE.
What it leaves out: the cache (see `ingest`), OpenAI embeddings, GPUs.

    .venv/bin/python -m bench.embedding [--smoke]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np

from bench.common import REPO_ROOT, Record, arguments, ratio

BATCHES = (1, 2, 4, 8, 16, 32, 64, 128)


def course_texts(limit: int) -> list[str]:
    """The first `limit` chunks of the course corpus as the embedder sees them (title etc. + text)."""
    from helpers.chunking import chunk_documents
    from helpers.config import get_settings
    from helpers.parsing import parse_folder

    settings = get_settings()
    parsed = parse_folder(settings.paths.corpus_dir, progress=False, cache_dir=settings.paths.cache_dir)
    nodes = chunk_documents(parsed.documents, strategy=settings.chunking.chunk_strategy)
    rng = np.random.default_rng(0)  # a seeded sample across the whole corpus, not only the first files
    picked = sorted(rng.choice(len(nodes), size=min(limit, len(nodes)), replace=False))
    return [nodes[i].get_content(metadata_mode="embed") for i in picked]


class BareMiniLM:
    """The packaged MiniLM run with transformers directly: the floor any wrapper can reach."""

    def __init__(self) -> None:
        import torch
        from transformers import AutoModel, AutoTokenizer

        from helpers.models import embedder_path

        self.torch = torch
        self.tokenizer = AutoTokenizer.from_pretrained(str(embedder_path()))
        self.model = AutoModel.from_pretrained(str(embedder_path())).eval()
        self.max_length = 256  # sentence_bert_config.json of all-MiniLM-L6-v2

    def tokens(self, texts: list[str]) -> int:
        """Word pieces the model sees for these texts (after truncation)."""
        return sum(len(ids) for ids in self.tokenizer(texts, truncation=True, max_length=self.max_length)["input_ids"])

    def embed(self, texts: list[str], batch: int) -> np.ndarray:
        """Normalised mean-pooled vectors, in the order of `texts`."""
        order = np.argsort([-len(t) for t in texts], kind="stable")
        out = np.zeros((len(texts), self.model.config.hidden_size), dtype=np.float32)
        with self.torch.inference_mode():
            for start in range(0, len(texts), batch):
                rows = order[start : start + batch]
                encoded = self.tokenizer(
                    [texts[i] for i in rows], padding=True, truncation=True, max_length=self.max_length,
                    return_tensors="pt",
                )  # fmt: skip
                hidden = self.model(**encoded).last_hidden_state
                mask = encoded["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                out[rows] = self.torch.nn.functional.normalize(pooled, dim=1).numpy()
        return out


def best_of_pair(first, second, repeats: int) -> tuple[float, object, float, object]:
    """Run `first()` and `second()` alternately `repeats` times; the shortest time and result of each.

    Alternating exposes both to the same moments of a shared machine's load; the shortest run is the least
    disturbed one.
    """
    best = [float("inf"), float("inf")]
    results: list[object] = [None, None]
    for _ in range(repeats):
        for slot, function in enumerate((first, second)):
            start = time.perf_counter()
            results[slot] = function()
            best[slot] = min(best[slot], time.perf_counter() - start)
    return best[0], results[0], best[1], results[1]


def measure(texts: list[str], batches: tuple[int, ...], repeats: int) -> dict[str, object]:
    """One row per batch size: chunks/s and tokens/s of both, their ratio, the largest vector difference."""
    from helpers.config import get_settings
    from helpers.embedding import Embedder

    bare = BareMiniLM()
    tokens = bare.tokens(texts)
    settings = get_settings()
    rows = []
    for batch in batches:
        kit = Embedder(settings.replace(embed_batch_size=batch), use_cache=False)
        kit.load()
        kit.embed_texts(texts[:2]), bare.embed(texts[:2], batch)  # warm-up (first-call allocations)
        kit_s, kit_vectors, bare_s, bare_vectors = best_of_pair(
            lambda kit=kit: kit.embed_texts(texts), lambda batch=batch: bare.embed(texts, batch), repeats
        )
        row = {
            "batch": batch,
            "kit_chunks_per_s": round(len(texts) / kit_s, 1),
            "bare_chunks_per_s": round(len(texts) / bare_s, 1),
            "kit_tokens_per_s": round(tokens / kit_s),
            "bare_tokens_per_s": round(tokens / bare_s),
            "ratio_kit_over_bare": ratio(bare_s, kit_s, 3),  # throughput ratio = inverse time ratio
            "max_abs_difference": float(np.abs(np.asarray(kit_vectors) - np.asarray(bare_vectors)).max()),
        }
        rows.append(row)
        print(row, flush=True)
    return {"texts": len(texts), "tokens": tokens, "mean_tokens_per_text": round(tokens / len(texts), 1), "rows": rows}


PROBE = """
import json, time, torch, helpers
from bench.embedding import BareMiniLM
threads = int({threads})
if threads:
    torch.set_num_threads(threads)
bare = BareMiniLM()
texts = [f"Sentence number {{i}} about the application fee, the capstone studio and ADS 530." for i in range({n})]
bare.embed(texts[:4], 16)
start = time.perf_counter()
bare.embed(texts, 16)
rate = round(len(texts) / (time.perf_counter() - start), 1)
print(json.dumps({{"threads": torch.get_num_threads(), "chunks_per_s": rate}}))
"""


def wait_policy_probe(n: int) -> list[dict[str, object]]:
    """Bare forward-pass throughput in fresh processes: default OpenMP waiting vs PASSIVE vs one thread."""
    rows = []
    for label, policy, threads in (("torch default", None, 0), ("OMP_WAIT_POLICY=PASSIVE", "PASSIVE", 0),
                                   ("1 thread", None, 1)):  # fmt: skip
        env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
        env["PYTHONPATH"] = str(REPO_ROOT)
        if policy:
            env["OMP_WAIT_POLICY"] = policy
        code = PROBE.format(threads=threads, n=n)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=REPO_ROOT)
        ok = out.returncode == 0
        result = json.loads(out.stdout.strip().splitlines()[-1]) if ok else {"error": out.stderr[-300:]}
        rows.append({"setting": label, **result})
        print(rows[-1], flush=True)
    return rows


def main() -> None:
    """Measure and write embedding.json."""
    args = arguments(__doc__.splitlines()[0])
    import helpers  # noqa: F401  (offline environment)

    record = Record("embedding", args.out, args.smoke)
    if args.smoke:
        texts = [f"Sentence number {i} about the application fee and the capstone studio." for i in range(6)]
        record.data.update(measure(texts, (1, 4), repeats=1))
    else:
        record.data.update(measure(course_texts(256), BATCHES, repeats=2))
    record["threads"] = __import__("torch").get_num_threads()
    record["omp_wait_policy"] = os.environ.get("OMP_WAIT_POLICY", "(default)")
    if not args.smoke:  # three fresh processes: too slow for the smoke test
        record["wait_policy_probe"] = wait_policy_probe(64)
    record.save()


if __name__ == "__main__":
    main()
