"""Evaluation on top of the whole pipeline: ablations, bootstrap intervals, LLM judges, ragas, the two-corpora
runs and the dated report (`python -m helpers report`).

The metrics themselves (hit@k, recall@k, MRR, nDCG, answer-based relevance, SQuAD-style EM and F1) are pure
functions in `helpers.metrics`, at the bottom of the package (`from helpers.metrics import hit_at_k`).
What it leaves out: building retrievers and models (the pipeline).
"""
