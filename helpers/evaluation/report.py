"""Export an evaluation (`python -m helpers report`): a dated Markdown and HTML report, and a per-question CSV.
What it leaves out: plots in the files (the notebook draws them) and comparing two reports.
"""

from __future__ import annotations

import datetime as dt
import os
import platform
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from helpers.config import REPO_ROOT, Settings, get_settings

if TYPE_CHECKING:
    from helpers.evaluation.ablation import AblationResult

REPORTS_DIR = REPO_ROOT / "reports"


def machine(settings: Settings, judge: str = "") -> dict[str, str]:
    """What the numbers were measured on and with."""
    try:
        ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
        memory = f"{ram:.1f} GB"
    except (ValueError, OSError, AttributeError):
        memory = "unknown"
    return {
        "date": dt.datetime.now().strftime("%Y-%m-%d %H:%M"),
        "CPUs": str(os.cpu_count()),
        "RAM": memory,
        "Python": sys.version.split()[0],
        "platform": platform.platform(),
        "load average (1 min) at export": f"{os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else "unknown",
        "answering model": settings.llm.name,
        "embedder": settings.embedding.embed_model,
        "judge": judge or settings.llm.name,
        "profile": settings.profile,
    }


def ragas_table(result: AblationResult) -> pd.DataFrame:
    """Mean ragas scores per configuration (answerable questions), the judge named in its own column."""
    columns = ["ragas exact match", "string similarity", "BLEU", "ROUGE-L", "chrF", "context recall (non-LLM)"]
    frame = result.per_question
    table = frame.groupby("configuration", sort=False)[[c for c in columns if c in frame]].mean()
    table["faithfulness"] = frame.groupby("configuration", sort=False).faithfulness.mean()
    table["faithfulness judged"] = frame.groupby("configuration", sort=False).faithfulness.count()
    table["judge"] = result.judge
    return table


def export_report(
    result: AblationResult, settings: Settings | None = None, folder: Path | None = None,
    rubric: pd.DataFrame | None = None, title: str = "RAG Teaching Kit — evaluation",
) -> dict[str, Path]:  # fmt: skip
    """Write `evaluation_<date>.md`, `.html` and `_per_question.csv` under `folder`; return their paths."""
    settings = settings or get_settings()
    folder = Path(folder or settings.paths.output_dir)
    folder.mkdir(parents=True, exist_ok=True)
    stem = f"evaluation_{dt.date.today().isoformat()}_{settings.profile}"
    about = pd.Series(machine(settings, result.judge), name="value").to_frame()
    sections = [
        ("Machine and configuration", about),
        ("Ablation (gold test split; p = one-sided paired bootstrap of the F1 gain, 10,000 resamples)", result.table()),
        ("Paired bootstrap details (F1)", result.significance("f1").set_index("configuration")),
        ("ragas (non-LLM metrics on every answer; faithfulness on the judged sample)", ragas_table(result)),
    ]
    if rubric is not None and len(rubric):
        sections.append(("LLM-as-judge rubric (1–5)", rubric.drop(columns=["answer", "reference"], errors="ignore")))
    notes = "\n".join(f"- {note}" for note in result.notes)
    markdown = [f"# {title}\n", "Written by `helpers.evaluation.report`; every number measured in this run.\n"]
    html = [f"<h1>{title}</h1>"]
    for heading, table in sections:
        markdown += [f"## {heading}\n", table.round(3).to_markdown(), ""]
        html += [f"<h2>{heading}</h2>", table.round(3).to_html()]
    markdown += ["## Notes\n", notes, ""]
    html += ["<h2>Notes</h2><ul>", *(f"<li>{note}</li>" for note in result.notes), "</ul>"]
    endings = {"markdown": ".md", "html": ".html", "csv": "_per_question.csv"}
    paths = {kind: folder / f"{stem}{ending}" for kind, ending in endings.items()}
    paths["markdown"].write_text("\n".join(markdown), encoding="utf-8")
    page = "<!doctype html><meta charset='utf-8'><title>{}</title><body>{}</body>".format(title, "\n".join(html))
    paths["html"].write_text(page, encoding="utf-8")
    result.per_question.drop(columns=["contexts"], errors="ignore").to_csv(paths["csv"], index=False)
    return paths


def run_full_evaluation(folder: Path = REPORTS_DIR, progress: bool = True) -> dict[str, Path]:
    """The whole ablation on the gold `test` split in the `full` profile, judged, then exported to `folder`."""
    from helpers.corpus import load_gold
    from helpers.evaluation.ablation import BUDGETS, rubric_rows, run_ablation
    from helpers.evaluation.judge import RubricJudge
    from helpers.evaluation.ragas_eval import Judge
    from helpers.llm.cache import llm_cache
    from helpers.pipeline import RAGPipeline

    settings = get_settings().replace(profile="full")
    pipeline, judge = RAGPipeline(settings), Judge(settings)
    try:
        pipeline.ingest(progress=False)
        questions = load_gold(split="test")
        result = run_ablation(pipeline, questions, judge, progress=progress)
        rubric_judge = RubricJudge(pipeline.llm, llm_cache(settings))
        rubric = rubric_judge.judge_rows(rubric_rows(result, questions, BUDGETS["full"]["rubric"], settings.seed))
    finally:
        judge.close()
        pipeline.close()
    return export_report(result, settings, folder, rubric)
