"""The benchmark runner works end to end at tiny sizes (the real run: `bash scripts/bench.sh`)."""

from __future__ import annotations

import json
from pathlib import Path

from bench.__main__ import main


def test_bench_smoke_writes_json_and_table(tmp_path: Path) -> None:
    """Vector scale at 1k (Qdrant vs numpy) in a fresh process, then the Markdown page from its JSON."""
    assert main(["--smoke", "--only", "vector_scale", "--out", str(tmp_path)]) == 0
    result = json.loads((tmp_path / "vector_scale.json").read_text())
    assert result["smoke"] and result["machine"]["cores"] >= 1 and "load_average_end" in result["machine"]
    row = result["rows"][0]
    assert row["points"] == 1000 and row["same_top_k_as_numpy"] and row["dot_same_top_k_as_numpy"]
    assert (tmp_path / "vector_scale.png").stat().st_size > 0
    page = (tmp_path / "README.md").read_text()
    assert "embedded Qdrant vs exact numpy" in page and "QDRANT_URL" in page


def test_the_waits_page_puts_each_wait_beside_its_floor_and_its_before() -> None:
    """bench.waits' table from a small record: before, now, floor and now ÷ floor on every row measured."""
    from bench.waits import BEFORE, markdown

    machine = {"cpu": "cpu", "cores": 2, "load_average_start": [0.1], "load_average_end": [0.2]}
    answer = {"prompt_tokens": 600, "answer_tokens": 20, "first_token_s": 5.0, "answer_s": 6.0, "floor_s": 4.0}
    record = {
        "date": "today", "commit": "abc", "machine": machine,
        "floors": {"matmul_gflops": 100.0, "python_start_s": 0.02, "upsert_s": 3.0,
                   "reader": {"load_s": 1.0, "prefill_tokens_per_s": 150.0, "decode_tokens_per_s": 15.0}},
        "embedding": {"embedder": "m", "chunks_per_s": 100.0, "torch_fp32_chunks_per_s": 33.0, "speed_up": 3.03,
                      "floor_chunks_per_s": 50.0, "ratio": 0.5},
        "chunking": {"seconds": 0.5, "text_mb": 4.0, "s_per_mb": 0.125, "floor_s": 0.1, "ratio": 5.0},
        "course_index": {"process_s": 12.0, "points": 1631, "floor_s": 3.02, "ratio": 3.97},
        "folder_ingest": {"skipped": "no folder x"},
        "answers": {"model": "reader", "rows": [{"case": "cold", **answer}, {"case": "prefix cached", **answer}]},
        "ask": {"seconds": 15.0, "floor_s": 10.0, "ratio": 1.5},
    }  # fmt: skip
    page = markdown(record)
    rows = [line for line in page.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert len(rows) == 7 and "no folder x" in page
    measured = [row for row in rows if "no folder" not in row]
    assert all(row.rstrip(" |").split("|")[-1].strip() not in ("", "None") for row in measured), page
    assert BEFORE["course index, cold"] in page and "| 1.5 |" in page and "| 1.5 |" in rows[-1]


def test_the_paired_stage_puts_two_runs_answers_side_by_side(tmp_path: Path, monkeypatch) -> None:
    """bench.realworld paired: both runs' means per corpus shared by both, and the paired F1 difference."""
    import pandas as pd

    import bench.realworld as realworld

    monkeypatch.setattr(realworld, "RESULTS_DIR", tmp_path)

    def answers(setup: str, f1: list[float], corpora: tuple[str, ...]) -> pd.DataFrame:
        return pd.DataFrame([
            {"id": f"q{i}", "kind": "answerable", "corpus": corpus, "set-up": setup, "f1": score, "em": score,
             "in_context": True, "prompt_tokens": 800} for corpus in corpora for i, score in enumerate(f1)
        ])  # fmt: skip

    answers("old", [0.0, 0.5, 1.0, 0.0], ("course", "real")).to_csv(tmp_path / "a_answers.csv", index=False)
    answers("new", [1.0, 0.5, 1.0, 1.0], ("real",)).to_csv(tmp_path / "b_answers.csv", index=False)
    frame, both = realworld.paired_stage("a:old", "b:new")
    assert list(frame.corpus) == ["real"] and set(both.corpus) == {"real"}  # the course ran on one side only
    row = frame.iloc[0]
    assert row["questions"] == 4 and row["F1 difference"] == 0.5
    assert row["f1 | old"] == 0.375 and row["f1 | new"] == 0.875
    answers("old", [1.0, 1.0, 1.0, 1.0], ("real",)).to_csv(tmp_path / "c_answers.csv", index=False)
    frame, _ = realworld.paired_stage("a:old", "c:old")  # one set-up name in both runs: the runs name the sides
    assert frame.iloc[0]["f1 | c:old"] == 1.0 and frame.iloc[0]["F1 difference"] == 0.625


def test_the_durations_profile_groups_items_by_test_file_and_notebook(tmp_path: Path) -> None:
    from bench.test_durations import items, profile

    junit = tmp_path / "junit.xml"
    junit.write_text(
        '<testsuites><testsuite name="pytest">'
        '<testcase classname="tests.test_store" name="test_a" time="2.5" />'
        '<testcase classname="tests.test_store" name="test_b" time="0.5"><skipped message="no" /></testcase>'
        '<testcase classname="notebooks.07_prompting_generation.ipynb" name="Cell 23" time="17.8" />'
        '<testcase classname="notebooks.07_prompting_generation.ipynb" name="Cell 1" time="1.2" />'
        "</testsuite></testsuites>",
        encoding="utf-8",
    )
    found = profile(items(junit))
    assert found["per_file_s"] == {"07_prompting_generation.ipynb": 19.0, "test_store.py": 3.0}
    assert found["notebook_seconds"] == 19.0 and found["item_seconds"] == 22.0 and found["items"] == 4
    assert found["slowest"][0] == {"item": "07_prompting_generation.ipynb::Cell 23", "seconds": 17.8}
