"""The student's RAG carries: every slot's solution, kept in my_rag.py, runs the pipeline, the app and the evaluation
in a fresh interpreter; a wrong top_k written into the file changes the pipeline's passages."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from helpers.mechanisms import MY_RAG, SLOTS, keep, load_mine, reset

ROOT = Path(__file__).resolve().parents[1]
# the function each slot's exercise has the student write, by notebook
SOLUTIONS = {
    "02_chunking.ipynb": {"split": "recursive_split"},
    "03_embeddings.ipynb": {"top_k": "cosine_top_k"},
    "05_retrieval.ipynb": {"bm25": "bm25_scores", "fusion": "min_max_fusion", "rrf": "rrf_scores"},
    "07_prompting_generation.ipynb": {"prompt": "build_prompt", "budget": "fit_passages"},
    "08_evaluation.ipynb": {"exact_match": "exact_match", "f1": "token_f1", "bootstrap": "bootstrap_differences"},
}


def notebook_solutions(name: str, wanted: set[str]) -> str:
    """The instructor notebook's imports and the cells that define the functions `wanted` (their functions and
    constants), as a module: what the student's kernel holds when the exercise's check passes."""
    cells = json.loads((ROOT / "notebooks" / name).read_text(encoding="utf-8"))["cells"]
    imports, functions = [], []
    for cell in cells:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        tree = ast.parse(source)
        imported = [node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)]
        imports += [ast.get_source_segment(source, node) for node in imported]
        defined = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
        if wanted & {node.name for node in defined}:  # the cell's constants too (a list of separators …)
            kept = [node for node in tree.body if isinstance(node, ast.FunctionDef | ast.Assign)]
            functions += [ast.get_source_segment(source, node) for node in kept]
    return "\n".join(dict.fromkeys(imports)) + "\n\n\n" + "\n\n\n".join(functions) + "\n"


def test_a_scripted_student_keeps_every_slot_and_a_fresh_interpreter_runs_on_them(tmp_path: Path) -> None:
    student = tmp_path / "student"
    student.mkdir()
    for notebook, slots in SOLUTIONS.items():  # the student's notebooks: each solution kept as its check would
        module_name = f"solved_{notebook[:2]}"
        (student / f"{module_name}.py").write_text(notebook_solutions(notebook, set(slots.values())), encoding="utf-8")
        sys.path.insert(0, str(student))
        try:
            module = __import__(module_name)
        finally:
            sys.path.remove(str(student))
        for slot, function in slots.items():
            assert keep(slot, getattr(module, function), student) == student / MY_RAG
    kept = (student / MY_RAG).read_text(encoding="utf-8")
    assert all(f"'{slot}':" in kept for slot in SLOTS)
    try:
        assert set(load_mine(student)) == set(SLOTS), (student / MY_RAG).read_text()  # every slot filled
    finally:
        reset()

    run = subprocess.run(
        [sys.executable, "-c", FRESH_KERNEL, str(student), str(tmp_path / "data")],
        capture_output=True, text=True, timeout=600, cwd=ROOT,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    counted = json.loads(run.stdout.strip().splitlines()[-1])
    assert {slot: counted["calls"].get(slot, 0) > 0 for slot in SLOTS} == dict.fromkeys(SLOTS, True)
    assert counted["hits"] and counted["app_hits"] and counted["f1"] is not None

    (student / MY_RAG).write_text(kept + WRONG_TOP_K, encoding="utf-8")  # the student breaks their top_k
    wrong = subprocess.run(
        [sys.executable, "-c", FRESH_KERNEL, str(student), str(tmp_path / "data")],
        capture_output=True, text=True, timeout=600, cwd=ROOT,
    )  # fmt: skip
    assert wrong.returncode == 0, wrong.stderr[-3000:]
    assert json.loads(wrong.stdout.strip().splitlines()[-1])["nearest"] != counted["nearest"]


WRONG_TOP_K = textwrap.dedent('''

    def worst_first(matrix, query, k):
        scores = matrix @ query
        return [(int(row), float(scores[row])) for row in scores.argsort()[:k]]


    SLOTS["top_k"] = worst_first
''')

# A new interpreter, as a new kernel: load the student's file, then ask the pipeline, the app and the evaluation.
# The model is a recorder (this test only): the slots run before and after it, not inside it.
FRESH_KERNEL = textwrap.dedent('''
    import json, sys
    from pathlib import Path

    import helpers
    from helpers.app import AppEngine, Knobs
    from helpers.config import get_settings
    from helpers.corpus import Question
    from helpers.evaluation.bootstrap import paired_bootstrap
    from helpers.generation.scores import score_answer
    from helpers.llm.client import Completion
    from helpers.mechanisms import calls, load_mine
    from helpers.pipeline import RAGPipeline

    class Recorder:  # stands in for the model in this test only
        name = "recorder"
        def chat(self, messages, max_tokens):
            return Completion("$90 [1]", 0, 3, 0.0)
        def stream(self, messages, max_tokens):
            yield "$90 [1]"
        def close(self):
            pass

    folder, data = Path(sys.argv[1]), Path(sys.argv[2])
    docs = data.parent / "docs"
    docs.mkdir(exist_ok=True)
    (docs / "fees.md").write_text("# Fees\\n\\nThe application fee is $90. Tuition is $14,850 per quarter. " * 4)
    (docs / "capstone.md").write_text("# Capstone\\n\\nCapstone teams have three to five students. " * 4)
    load_mine(folder)
    settings = get_settings().replace(data_dir=data, corpus_dir=docs, chunk_size=80, chunk_overlap=0,
                                      refusal_threshold=0.0, query_expansion=False)
    pipeline = RAGPipeline(settings)
    pipeline.ingest(docs, progress=False)
    pipeline.__dict__["llm"] = Recorder()
    question = "What is the application fee?"
    answer = pipeline.ask(question, mode="short")
    pipeline.ask(question, retriever=pipeline.make_retriever("hybrid_rrf"), mode="short")
    engine = AppEngine(pipeline)
    engine._llms["local"] = Recorder()
    engine.ready.set()
    turn = engine.ask(question, Knobs(rerank=False, multi_query=False))
    gold = Question(id="q", question=question, answer="$90", category="fees", split="dev")
    row = score_answer(gold, answer)
    paired_bootstrap([0.0, 1.0, 1.0], [1.0, 1.0, 0.0], resamples=50, seed=0)
    nearest = pipeline.retrieve(question, 1, pipeline.make_retriever("dense", expand=False))
    pipeline.close()
    print(json.dumps({"calls": calls(), "hits": [h.node_id for h in answer.hits], "nearest": nearest[0].node_id,
                      "app_hits": [h.node_id for h in turn.hits], "f1": row["f1"]}))
''')


@pytest.fixture(autouse=True)
def kit_functions_after() -> None:
    reset()
