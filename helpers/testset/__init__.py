"""A test set for any corpus, written by the local LLM: generate, filter, review, agree.

    chunks = corpus_chunks("my_docs")                      # parsed and chunked as the kit ingests them
    pairs = apply_filters(QAWriter().write_all(sample_chunks(chunks, 50)))
    save_jsonl([p for p in pairs if p.kept], "questions.jsonl")   # what `python -m helpers eval` reads

What it leaves out: multi-hop and unanswerable questions (one chunk, one answer per pair).
"""

from helpers.testset.agreement import agreement, second_pass
from helpers.testset.export import as_questions, save_jsonl
from helpers.testset.generate import Generated, QAWriter, answer_candidates, corpus_chunks, sample_chunks
from helpers.testset.quality import apply_filters, copied, grounded, reasons, standalone
from helpers.testset.review import Review

__all__ = [
    "Generated",
    "QAWriter",
    "Review",
    "agreement",
    "answer_candidates",
    "apply_filters",
    "as_questions",
    "copied",
    "corpus_chunks",
    "grounded",
    "reasons",
    "sample_chunks",
    "save_jsonl",
    "second_pass",
    "standalone",
]
