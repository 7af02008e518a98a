"""The two plots of notebook 08: every metric by configuration, and F1 per question category.
What it leaves out: confidence bands (the bootstrap table gives the intervals in numbers).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

if TYPE_CHECKING:
    from helpers.evaluation.ablation import AblationResult

METRICS = ("EM", "F1", "recall@5", "faithfulness")


def plot_metrics(result: AblationResult) -> None:
    """Grouped horizontal bars: EM, F1, recall@5 and faithfulness of each configuration (ladder top to bottom)."""
    import matplotlib.pyplot as plt

    table = result.table()[list(METRICS)].iloc[::-1]
    ax = table.plot.barh(figsize=(8, 0.7 * len(table) + 1.5), xlim=(0, 1), width=0.8)
    ax.set_title(f"The ablation ladder on the gold test split ({int(result.table().questions.iloc[0])} questions)")
    ax.set_xlabel("score (faithfulness: judged sample only, judge: " + result.judge + ")")
    ax.legend(loc="lower right", fontsize=8)
    plt.tight_layout()
    plt.show()


def category_table(result: AblationResult, metric: str = "f1") -> pd.DataFrame:
    """Mean `metric` per question category (rows) and configuration (columns), answerable questions only."""
    frame = result.per_question.dropna(subset=[metric])
    table = frame.pivot_table(index="category", columns="configuration", values=metric, aggfunc="mean")
    return table[[c for c in result.configurations if c in table.columns]]


def plot_categories(result: AblationResult, metric: str = "f1") -> None:
    """F1 per question category, one bar per configuration."""
    import matplotlib.pyplot as plt

    table = category_table(result, metric)
    ax = table.plot.bar(figsize=(10, 4), ylim=(0, 1), width=0.85)
    ax.set_title(f"{metric.upper()} by question category and configuration")
    ax.set_ylabel(metric.upper())
    ax.legend(fontsize=7, ncol=2)
    plt.xticks(rotation=30, ha="right")
    plt.tight_layout()
    plt.show()
