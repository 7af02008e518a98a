"""Evaluation on top of the whole pipeline: ablations, bootstrap intervals, LLM judges, ragas, the two-corpora
runs and the dated report (`python -m helpers report`). The metrics themselves are pure functions in
`helpers.metrics`. What it leaves out: building retrievers and models (the pipeline).
"""
