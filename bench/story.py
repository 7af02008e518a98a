"""The story's end: the ladder (closed book → naive → kit defaults → + rerank → + multi-query) on both test sets.

What it does: answers a seeded sample of the course gold `test` split and of the real-document `test` split
(rebuilt by `course_data/realworld/rebuild.py` into the kit's data folder) with every row of
`helpers.evaluation.ladder`, in the full profile with the default reader, and writes the per-question rows
(story_ladder.csv), the table (story_ladder.json) and the plot the README shows (story_ladder.png).
Each corpus is indexed in its own folder under `<data_dir>/tuning/` (as bench/realworld.py does), apart from the
course index a notebook or the app may hold.
What it leaves out: judges and p-values (notebook 08's ablation); the `dev` splits (used for tuning).

    .venv/bin/python -m bench.story [--smoke] [--questions 30] [--cold-llm-cache]

`--cold-llm-cache`: no answer from the user cache (which may hold outputs of older code for the same prompt); the
shipped answers still serve, each kernel checking a sample of them live.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from bench.common import Record, arguments, use_cache_as_after_setup


def main() -> None:
    """Run the ladder, save rows, table and plot."""

    def options(parser: Any) -> None:
        parser.add_argument("--questions", type=int, default=None, help="answerable questions per corpus")
        parser.add_argument("--cold-llm-cache", action="store_true", help="no cached answers but the shipped ones")

    args = arguments(__doc__.splitlines()[0], options)
    import matplotlib

    matplotlib.use("Agg")
    if args.cold_llm_cache:  # every answer computed now (or shipped, checked live): none from an older run's cache
        use_cache_as_after_setup(Path(tempfile.mkdtemp(prefix="kit-bench-story-")))
    from helpers.config import get_settings
    from helpers.evaluation.ladder import SAMPLE, plot_story, story_ladder, story_table
    from helpers.evaluation.two_corpora import close_all

    settings = get_settings().replace(profile="ci" if args.smoke else "full")
    if args.smoke:
        settings = settings.replace(llm_model="smollm2-135m")
    n = args.questions or SAMPLE[settings.profile]
    record = Record("story_ladder", args.out, args.smoke)
    from helpers.evaluation.ladder import story_corpora

    corpora = story_corpora(settings, split="test")
    if not args.smoke and len(corpora) < 2:
        raise SystemExit("the real-document set is not rebuilt: run course_data/realworld/rebuild.py first")
    try:
        rows = story_ladder(settings, split="test", n=n, corpora=corpora)
    finally:
        close_all()
    table = story_table(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    rows.to_csv(args.out / "story_ladder.csv", index=False)
    plot_story(table).savefig(args.out / "story_ladder.png", dpi=110)
    record["reader"] = settings.llm.llm_model
    record["llm_cache"] = "cold" if args.cold_llm_cache else "warm"
    record["questions_per_corpus"] = table.attrs["questions"]
    record["table"] = json.loads(table.to_json(orient="split"))
    record["markdown"] = table.to_markdown()
    record.save()
    print(table.to_string())


if __name__ == "__main__":
    main()
