"""The class leaderboard: each student's capstone result as one row of `leaderboard.csv`, and the class's table.

    >>> write_row(leaderboard_row(report, chosen, settings))     # the capstone's last cell
    >>> collect_leaderboard("course/submitted")                  # python -m helpers leaderboard course/submitted

What it leaves out: checking a row against its notebook (nbgrader's hidden tests do that) and publishing the table.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from helpers.mechanisms import in_use

if TYPE_CHECKING:
    from helpers.byod.capstone import Setting
    from helpers.config import Settings

LEADERBOARD = "leaderboard.csv"
NAME_VARIABLES = ("KIT_STUDENT", "JUPYTERHUB_USER")  # where the student's name is read when none is given
NBGRADER_STEPS = ("submitted", "autograded")  # nbgrader's folders of one folder per student
COLUMNS = ["student", "retriever", "k", "questions", "test_em", "test_f1", "f1_low", "f1_high", "vs_default",
           "vs_low", "vs_high", "functions", "profile", "reader", "written"]  # fmt: skip
ORDER = ["test_f1", "test_em", "student"]


def student_name(name: str | None = None) -> str:
    """The name given, else the first of `NAME_VARIABLES` that is set, else "anonymous"."""
    found = [name, *(os.environ.get(variable) for variable in NAME_VARIABLES)]
    return next((value.strip() for value in found if value and value.strip()), "anonymous")


def leaderboard_row(
    report: Mapping[str, Any], chosen: Setting, settings: Settings, name: str | None = None
) -> dict[str, Any]:
    """One student's row (`COLUMNS`) from the capstone's test report and chosen setting."""
    mine = ";".join(f"{slot}={function}" for slot, function in sorted(in_use().items()))
    numbers = {"questions": report["questions"], "test_em": report["em"], "test_f1": report["f1"]}
    numbers |= {key: report[key] for key in ("f1_low", "f1_high", "vs_default", "vs_low", "vs_high")}
    written = datetime.now(UTC).isoformat(timespec="seconds")
    return {"student": student_name(name), "retriever": chosen.retriever, "k": chosen.k, **numbers,
            "functions": mine or "the kit's own", "profile": settings.profile, "reader": settings.llm.name,
            "written": written}  # fmt: skip


def write_row(row: Mapping[str, Any], folder: str | Path | None = None) -> Path:
    """Write `row` as `leaderboard.csv` in `folder` (default: the working folder, the notebook's); returns the path."""
    path = Path(folder or Path.cwd()) / LEADERBOARD
    pd.DataFrame([row], columns=COLUMNS).to_csv(path, index=False)
    return path


def _nbgrader_student(path: Path) -> str | None:
    """The student of `<step>/<student>/<assignment>/leaderboard.csv` in nbgrader's tree, else None."""
    parts = path.resolve().parts
    return parts[-3] if len(parts) >= 4 and parts[-4] in NBGRADER_STEPS else None


def _read(path: Path) -> pd.DataFrame | None:
    """The rows of one file (the student named by nbgrader's tree); None, with a warning, when unreadable."""
    try:
        rows = pd.read_csv(path, dtype={"student": str})
    except (OSError, ValueError) as error:
        warnings.warn(f"{path}: not a readable leaderboard ({error}); skipped", stacklevel=3)
        return None
    missing = [column for column in ("student", "test_f1") if column not in rows]
    if missing:
        warnings.warn(f"{path}: no {', '.join(missing)} column; skipped", stacklevel=3)
        return None
    student = _nbgrader_student(path)
    return rows.assign(student=student) if student else rows


def collect_leaderboard(folder: str | Path) -> pd.DataFrame:
    """Every student's row under `folder`, one per student (the latest written), best test F1 first."""
    root = Path(folder)
    if not root.is_dir():
        raise FileNotFoundError(f"{root} is not a folder: give the course's submitted/ folder, or any folder of rows")
    tables = [table for path in sorted(root.rglob(LEADERBOARD)) if (table := _read(path)) is not None]
    if not tables:
        return pd.DataFrame(columns=COLUMNS)
    rows = pd.concat(tables, ignore_index=True).reindex(columns=COLUMNS)
    rows = rows.sort_values("written", kind="stable").drop_duplicates("student", keep="last")
    ascending = [False, False, True]
    return rows.sort_values(ORDER, ascending=ascending, kind="stable", na_position="last").reset_index(drop=True)
