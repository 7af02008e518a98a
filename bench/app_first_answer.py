"""How long after the app's cell runs does its first answer arrive? (budget: 10 s on 2 cores, warm cache)

What it does: imports the kit as notebook 09's first cell does (timed apart), then times what the app cell
does — open the store, start the background warm-up — and asks one question at once (the worst case: a
student who types instantly waits for the warm-up too). The answer cache is bypassed (`--cached` keeps it),
so the model really generates; "warm cache" means the index is built, the model joined and the embeddings
cached. Writes bench/results/app_first_answer.json with the machine's load, which matters on a shared box.
What it leaves out: the browser (tests/browser measures Voilà + Chromium end to end).

    .venv/bin/python bench/app_first_answer.py ["question"] [--cached]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path

BUDGET_S = 10.0
RESULT = Path(__file__).resolve().parent / "results" / "app_first_answer.json"


def measure(question: str, cached: bool) -> dict[str, object]:
    """One cold-process measurement: import, app cell, first answer."""
    start = time.perf_counter()
    import helpers  # noqa: F401  (notebook 09's first cell)
    from helpers.app import AppEngine, Knobs
    from helpers.llm import make_llm

    imported = time.perf_counter()
    # what `open_app()` does, without displaying widgets
    engine = AppEngine()
    if not cached:
        engine.pipeline.llm = make_llm(engine.settings, cache=False)  # the model must really answer
    points = engine.pipeline.store.count()
    knobs = Knobs.from_settings(engine.settings)
    steps: dict[str, float] = {}
    engine.start_warm_up(knobs, lambda step: steps.setdefault(step, round(time.perf_counter() - imported, 2)))
    cell_done = time.perf_counter()
    first_token: list[float] = []
    turn = engine.ask(question, knobs, on_token=lambda _: first_token or first_token.append(time.perf_counter()))
    answered = time.perf_counter()
    engine.close()
    return {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "cores": os.cpu_count(),
        "load_average_1m_at_end": round(os.getloadavg()[0], 2),
        "model": engine.settings.llm.name,
        "retriever": knobs.retriever,
        "points": points,
        "question": question,
        "answer_cache": "used" if cached else "bypassed",
        "import_s": round(imported - start, 2),
        "app_cell_s": round(cell_done - imported, 2),
        "warm_up_steps_s": steps,
        "first_token_s": round(first_token[0] - imported, 2) if first_token else None,
        "question_timings_s": {k: round(v, 2) for k, v in (turn.answer.timings if turn.answer else {}).items()},
        "first_answer_s": round(answered - imported, 2),
        "budget_s": BUDGET_S,
        "within_budget": answered - imported <= BUDGET_S,
        "status": turn.status,
        "answer": turn.text,
        "citations": [str(c) for c in turn.answer.citations] if turn.answer else [],
    }


def main() -> None:
    """Measure once and write the result file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("question", nargs="?", default="What is the application fee?")
    parser.add_argument("--cached", action="store_true", help="let the answer cache serve a repeated question")
    result = measure(**vars(parser.parse_args()))
    RESULT.parent.mkdir(parents=True, exist_ok=True)
    RESULT.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
