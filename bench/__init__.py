"""Benchmarks of the kit: speed, size and scale, each against a reference measured in the same run.

    bash scripts/bench.sh                 # = .venv/bin/python -m bench (add --notebooks for the course wall time)

One module per measurement, each runnable alone (`python -m bench.<name> --out DIR [--smoke]`) and writing
`<name>.json` (with the date, the machine, its load and the versions, see `common.py`):
`embedding` (the kit's Embedder vs a bare forward pass), `ingest` (cold / warm, per stage), `search` (dense,
BM25, hybrid, rerank on the course corpus vs numpy), `vector_scale` (embedded Qdrant vs numpy up to 300k
vectors, plot), `generation` (first token, tokens/s), `memory` (the app's peak RSS), `notebooks` (headless
wall time). `report.py` turns the JSON files into `bench/results/README.md`; `__main__.py` runs them all.
What it leaves out: a Qdrant server (none can run on the reference machine; set QDRANT_URL to try one).
"""
