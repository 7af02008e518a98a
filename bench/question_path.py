"""What the default question path does with every dev question, to show a refactor changed nothing.

    .venv/bin/python -m bench.question_path --name question_path_after
    .venv/bin/python -m bench.question_path --compare question_path_before question_path_after

For each `dev` question of the course corpus and of the real-document set (when rebuilt) it records the passages the
configured pipeline retrieves (`RAGPipeline.search`: node ids and each hit's highest stage score, rounded to 1e-6)
and a sha256 of the messages `RAGPipeline.generate` sends the reader in short mode, with the answer-token limit. The
reader's answer is a function of exactly these (temperature 0, one model file: the answer cache is keyed by them),
so equal prompts mean equal answers. Here the model is a recorder that keeps the messages and answers nothing: the
run takes a minute, not the hour of the 1.5B reader. Run it with the code before and after a change (a `git
worktree` of the old commit, this file copied into its bench/), then `--compare`.
What it leaves out: the app's and the notebooks' own knobs (only the configured defaults are walked).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from typing import Any

from bench.common import RESULTS_DIR, Record


class MessageRecorder:
    """Stands in for the reader here only: it keeps the messages it is sent and gives an empty answer."""

    name = "message-recorder"

    def __init__(self) -> None:
        self.sent: list[tuple[str, int]] = []

    def chat(self, messages: list[dict[str, str]], max_tokens: int) -> Any:
        from helpers.llm.client import Completion

        digest = hashlib.sha256(json.dumps(messages, ensure_ascii=False, sort_keys=True).encode()).hexdigest()
        self.sent.append((digest, max_tokens))
        return Completion("", 0, 0, 0.0)


def walk(pipeline: Any, questions: list[Any]) -> dict[str, dict[str, Any]]:
    """Per question id: the retrieved (node id, fused score) pairs, and the prompt's sha256 and token limit."""
    rows = {}
    for question in questions:
        hits = pipeline.search(question.question)
        recorder = MessageRecorder()
        pipeline.generate(question.question, hits, llm=recorder, mode="short")
        prompt, limit = recorder.sent[0] if recorder.sent else ("(refused before the model)", 0)
        rows[question.id] = {
            "hits": [[hit.node_id, round(max(hit.scores.values(), default=0.0), 6)] for hit in hits],
            "prompt_sha256": prompt,
            "max_tokens": limit,
        }
    return rows


def record_path() -> dict[str, Any]:
    """Walk both corpora's dev questions with the configured defaults."""
    from helpers.config import get_settings
    from helpers.evaluation.two_corpora import course_corpus, indexed, realworld_corpus, tuning_settings
    from helpers.pipeline import RAGPipeline

    out: dict[str, Any] = {}
    pipeline = RAGPipeline()
    try:
        out["course"] = walk(pipeline, list(course_corpus("dev").questions))
    finally:
        pipeline.close()
    real = realworld_corpus("dev", get_settings())
    if real is not None:
        out["real"] = walk(indexed(real, tuning_settings(real)), list(real.questions))
    return out


def compare(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """Per corpus: questions walked, and how many differ in passages, scores or prompt."""
    summary = {}
    for corpus in sorted(set(before) | set(after)):
        old, new = before.get(corpus, {}), after.get(corpus, {})
        shared = sorted(set(old) & set(new))
        summary[corpus] = {
            "questions": len(shared),
            "only_in_one": len(set(old) ^ set(new)),
            "passages_differ": sum(
                [h[0] for h in old[q]["hits"]] != [h[0] for h in new[q]["hits"]] for q in shared
            ),
            "scores_differ": sum(old[q]["hits"] != new[q]["hits"] for q in shared),
            "prompts_differ": sum(
                (old[q]["prompt_sha256"], old[q]["max_tokens"]) != (new[q]["prompt_sha256"], new[q]["max_tokens"])
                for q in shared
            ),
        }
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--name", default="question_path")
    parser.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args(argv)
    if args.compare:
        before, after = (json.loads((RESULTS_DIR / f"{n}.json").read_text())["paths"] for n in args.compare)
        summary = compare(before, after)
        print(json.dumps(summary, indent=1))
        (RESULTS_DIR / f"{args.compare[1]}_vs_{args.compare[0]}.json").write_text(json.dumps(summary, indent=1) + "\n")
        return 0 if all(not (s["passages_differ"] or s["prompts_differ"]) for s in summary.values()) else 1
    record = Record(args.name, RESULTS_DIR)
    record["paths"] = record_path()
    record.save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
