"""What bench.notebooks reads back from an executed notebook: the shipped-answers lines, the slowest cells, text."""

from __future__ import annotations

import nbformat

from bench.notebooks import shipped_lines, slowest_cells, text_outputs


def executed() -> nbformat.NotebookNode:
    """A notebook as nbclient leaves it: outputs and each cell's start and reply times."""
    notebook = nbformat.v4.new_notebook()
    times = [("10:00:00.000", "10:00:02.500"), ("10:00:03.000", "10:01:03.000")]
    for index, (start, end) in enumerate(times):
        cell = nbformat.v4.new_code_cell(f"# cell {index}\nprint({index})")
        cell.metadata["execution"] = {
            "iopub.execute_input": f"2026-11-26T{start}Z",
            "shell.execute_reply": f"2026-11-26T{end}Z",
        }
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=f"{index}\n")]
        notebook.cells.append(cell)
    report = "Shipped answers: 40 outputs looked up; 10 recomputed live: 10 identical to the shipped ones.\n"
    notebook.cells.append(nbformat.v4.new_code_cell("print(shipped_report())"))
    notebook.cells[-1].outputs = [nbformat.v4.new_output("stream", name="stdout", text=report)]
    return notebook


def test_the_slowest_cell_comes_first_with_its_first_line() -> None:
    slowest = slowest_cells(executed())
    assert [(row["cell"], row["seconds"], row["first_line"]) for row in slowest] == [(1, 60.0, "# cell 1"),
                                                                                   (0, 2.5, "# cell 0")]  # fmt: skip


def test_the_shipped_answers_line_and_the_text_outputs_are_read_back() -> None:
    notebook = executed()
    assert shipped_lines(notebook) == [
        "Shipped answers: 40 outputs looked up; 10 recomputed live: 10 identical to the shipped ones."
    ]
    assert [row["cell"] for row in text_outputs(notebook)] == [0, 1, 2] and text_outputs(notebook)[1]["text"] == "1\n"
