"""The exercises' self-checks: right on the instructor's answer, "not yet" (without the answer) on stubs and slips.

Each check gets (a) the answer computed the way the instructor notebook computes it and must say ✓; (b) a stub
(None, a function that still raises NotImplementedError) and typical wrong answers, and must say "✗ Not yet"
without printing the expected value, and never raise — except in strict mode, where CI needs the failure;
(c) the student version keeps every check call, and the name each checks, outside the solution blocks.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest
from llama_index.core import Document

from helpers.chunking import chunk_documents
from helpers.classroom import BEGIN, END, write_student_version
from helpers.classroom.student import NOTEBOOKS_DIR
from helpers.evaluation.ablation import AblationResult
from helpers.exercises.base import STRICT_ENV, CheckFailed
from helpers.exercises.chunking import check_chunk_count
from helpers.exercises.embedding import check_top_k
from helpers.exercises.evaluation import check_surviving_gains
from helpers.exercises.generation import (
    HELD_OUT,
    HELD_OUT_NEEDED,
    LOOK_ALIKES,
    PASSAGE_ATTACK,
    check_passage_rule,
)
from helpers.exercises.rerank import check_maxsim
from helpers.exercises.retrieval import check_dedupe_by_page, made_up_hits
from helpers.exercises.store import check_disagreements
from helpers.generation import guard
from helpers.retrieval import dedupe_by_source
from helpers.types import Hit

HELPERS = Path(__file__).resolve().parents[1] / "helpers"
EXERCISED = [f"{number:02d}" for number in range(13)]  # every notebook has a self-checking exercise
CALL = re.compile(r"\b(check_\w+)\(")
SOLUTION = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.S)


@pytest.fixture(autouse=True)
def lenient(monkeypatch: pytest.MonkeyPatch) -> None:
    """Checks print and return here, as in a student's notebook (notebooks/conftest.py makes nbval strict)."""
    monkeypatch.delenv(STRICT_ENV, raising=False)


def assert_right(capsys: pytest.CaptureFixture[str], check: Callable[..., bool], *args: object, **kw: object) -> None:
    """The check says ✓ and returns True."""
    assert check(*args, **kw) is True, capsys.readouterr().out
    assert capsys.readouterr().out.startswith("✓ Right: ")


def assert_not_yet(
    capsys: pytest.CaptureFixture[str], check: Callable[..., bool], *args: object, hint: str = "", hidden=(), **kw
) -> str:
    """The check says "✗ Not yet", returns False, gives `hint`, and prints none of the `hidden` values."""
    assert check(*args, **kw) is False
    out = capsys.readouterr().out
    assert out.startswith("✗ Not yet: "), out
    assert hint in out, out
    for value in hidden:
        assert str(value) not in out, f"the verdict gives the answer away ({value}): {out}"
    return out


# --- notebook 02: a chunk count ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def documents() -> list[Document]:
    """Three documents long enough for several 200-token windows."""
    words = "The capstone studio meets on Tuesdays in MDC 120 and every team presents a poster in week ten."
    return [Document(text=" ".join([words] * n), metadata={"source": f"doc{n}.md"}) for n in (12, 30, 55)]


def test_chunk_count(capsys, documents) -> None:
    params = {"size": 200, "overlap": 50}
    answer = len(chunk_documents(documents, "fixed_tokens", **params))  # what score_strategy's "chunks" counts
    assert_right(capsys, check_chunk_count, answer, documents, "fixed_tokens", **params)
    seed_count = len(chunk_documents(documents, "fixed_tokens"))
    assert seed_count != answer
    inputs = {"documents": documents, "strategy": "fixed_tokens", **params}
    hidden = [answer]
    assert_not_yet(capsys, check_chunk_count, None, **inputs, hint="still None", hidden=hidden)
    assert_not_yet(capsys, check_chunk_count, "12", **inputs, hint="whole number")
    assert_not_yet(capsys, check_chunk_count, {"chunks": answer}, **inputs, hint="'chunks'")
    assert_not_yet(capsys, check_chunk_count, seed_count, **inputs, hint="strategy's own sizes", hidden=hidden)
    many = assert_not_yet(capsys, check_chunk_count, answer + 7, **inputs, hint="chunk exactly", hidden=hidden)
    assert assert_not_yet(capsys, check_chunk_count, answer - 1, **inputs, hidden=hidden) == many  # no direction


# --- notebook 04: disagreements at k = 10 ------------------------------------------------------------------------

QUESTIONS = [f"question {i}" for i in range(7)]
SWAPPED = {"question 1", "question 4", "question 5"}  # two ids of the top 10 in the other order (a tie)
REPLACED = {"question 2"}  # one id of the top 10 is another chunk


def reference(question: str, k: int) -> list[tuple[str, float]]:
    return [(f"{question}/{j}", 1.0 - j / 100) for j in range(k)]


def other(question: str, k: int) -> list[tuple[str, float]]:
    ranked = reference(question, k)
    if question in SWAPPED and k > 7:
        ranked[6], ranked[7] = ranked[7], ranked[6]
    if question in REPLACED and k > 8:
        ranked[8] = ("another chunk", ranked[8][1])
    return ranked


def test_disagreements(capsys) -> None:
    ranked_ids = [([i for i, _ in reference(q, k=10)], [i for i, _ in other(q, k=10)]) for q in QUESTIONS]
    answer = sum(ours != theirs for ours, theirs in ranked_ids)  # the instructor's solution
    assert answer == 4
    assert_right(capsys, check_disagreements, answer, QUESTIONS, reference, other, k=10)
    assert_right(capsys, check_disagreements, sorted(SWAPPED | REPLACED), QUESTIONS, reference, other, k=10)
    hidden = [answer]
    args = (QUESTIONS, reference, other)
    assert_not_yet(capsys, check_disagreements, None, *args, k=10, hint="still None", hidden=hidden)
    assert_not_yet(capsys, check_disagreements, 0, *args, k=10, hint="k = 5", hidden=hidden)
    assert_not_yet(capsys, check_disagreements, 1, *args, k=10, hint="not their sets", hidden=hidden)
    assert_not_yet(capsys, check_disagreements, 3, *args, k=10, hint="the ones that differ", hidden=hidden)
    many = assert_not_yet(capsys, check_disagreements, 6, *args, k=10, hint="compare the two lists", hidden=hidden)
    assert assert_not_yet(capsys, check_disagreements, 2, *args, k=10, hidden=hidden) == many  # no direction
    assert_not_yet(capsys, check_disagreements, 2.5, *args, k=10, hint="a count of questions")
    assert_not_yet(capsys, check_disagreements, ["question 1", "question 9"], *args, k=10, hint="not among")


# --- notebook 05: dedupe by (source, page) -----------------------------------------------------------------------


def dedupe_by_page(hits: list[Hit]) -> list[Hit]:
    """The instructor's solution in notebook 05."""
    best: dict[tuple, Hit] = {}
    for hit in hits:
        key = (hit.source, hit.metadata.get("page"))
        if key not in best or hit.score > best[key].score:
            best[key] = hit
    return sorted(best.values(), key=lambda hit: -hit.score)


def test_dedupe_by_page(capsys) -> None:
    real = [Hit(f"c{i}", "", {"source": "handbook.pdf", "page": i % 3}, {"dense": 1 / (i + 1)}) for i in range(9)]
    assert_right(capsys, check_dedupe_by_page, dedupe_by_page)
    assert_right(capsys, check_dedupe_by_page, dedupe_by_page, real)
    hidden = [h.node_id for h in dedupe_by_page(made_up_hits())]

    def stub(hits: list[Hit]) -> list[Hit]:
        raise NotImplementedError

    assert_not_yet(capsys, check_dedupe_by_page, stub, hint="NotImplementedError", hidden=hidden)
    assert_not_yet(capsys, check_dedupe_by_page, None, hint="still None")
    assert_not_yet(capsys, check_dedupe_by_page, dedupe_by_source, hint="one chunk per file", hidden=hidden)
    reverse = lambda hits: dedupe_by_page(hits)[::-1]  # noqa: E731
    assert_not_yet(capsys, check_dedupe_by_page, reverse, hint="wrong order", hidden=hidden)
    paged_only = lambda hits: [h for h in dedupe_by_page(hits) if "page" in h.metadata]  # noqa: E731
    assert_not_yet(capsys, check_dedupe_by_page, paged_only, hint="no page", hidden=hidden)
    first_seen = lambda hits: list({(h.source, h.metadata.get("page")): h for h in reversed(hits)}.values())  # noqa: E731
    assert_not_yet(capsys, check_dedupe_by_page, first_seen, hidden=hidden)
    assert_not_yet(capsys, check_dedupe_by_page, lambda hits: [h.node_id for h in hits], hint="list of Hit")
    # right on the made-up ranking, wrong on the real hits given: the real hits are checked too
    only_made_up = lambda hits: dedupe_by_page(hits) if hits[0].node_id == "h3a" else hits  # noqa: E731
    assert_not_yet(capsys, check_dedupe_by_page, only_made_up, real, hint="the real hits")


# --- notebook 06: MaxSim -----------------------------------------------------------------------------------------


def test_maxsim(capsys) -> None:
    def maxsim_by_hand(query_vectors: np.ndarray, passage_vectors: np.ndarray) -> float:  # the solution
        return float((query_vectors @ passage_vectors.T).max(axis=1).mean())

    def stub(query_vectors: np.ndarray, passage_vectors: np.ndarray) -> float:
        raise NotImplementedError

    assert_right(capsys, check_maxsim, maxsim_by_hand)
    assert_not_yet(capsys, check_maxsim, None, hint="still None")
    assert_not_yet(capsys, check_maxsim, stub, hint="NotImplementedError")
    assert_not_yet(capsys, check_maxsim, lambda q, p: float((q @ p.T).max(axis=0).mean()), hint="each *query* token")
    assert_not_yet(capsys, check_maxsim, lambda q, p: float((q @ p.T).mean()), hint="then average")
    assert_not_yet(capsys, check_maxsim, lambda q, p: float((q @ p.T).max()), hint="single best pair")
    assert_not_yet(capsys, check_maxsim, lambda q, p: float((q @ p.T).max(axis=1).sum()), hint="not a sum")
    assert_not_yet(capsys, check_maxsim, lambda q, p: (q @ p.T).max(axis=1), hint="one number")
    assert_not_yet(capsys, check_maxsim, lambda q, p: 0.25, hint="off for")


# --- notebook 07: a passage rule scored on attacks it was not shown --------------------------------------------------

PATTERN = (
    r"\b(?:answers?|responses?|repl(?:y|ies)|summar(?:y|ies)|output)\b[^.?!]{0,40}\b(?:from|of|on|in|using|citing|"
    r"based on|drawn from|drawing on|that (?:quotes?|cites?|uses?))\s+(?:this|the)\s+(?:page|document|text|handbook|"
    r"section|file|notice|policy)\b[^.?!]{0,30}\b(?:must|should|shall|ought to|has to|have to|needs? to|(?:is|are) "
    r"(?:required )?to)\b"
)
# The notebook's earlier solution: one list of verbs and nouns, fitted to the six held-out attacks it then had.
NARROW = (
    r"\b(?:answers?|responses?|repl(?:y|ies)|summar(?:y|ies))\b[^.?!]{0,40}\b(?:from|of|on|based on|that quotes?)\s+"
    r"(?:this|the)\s+(?:page|document|text|handbook|section|file)\b[^.?!]{0,30}\b(?:must|should|has to|have to|"
    r"needs? to|(?:is|are) required to)\b"
)


def test_passage_rule(capsys) -> None:
    rule = guard.Rule("answer-orders", "gives orders to the answers drawn from the document", PATTERN)  # the solution
    assert guard.screen_passage(PASSAGE_ATTACK) is None, "the exercise needs an attack the shipped rules miss"
    assert all(guard.screen_passage(text) is None for text in HELD_OUT), "and held-out ones they miss too"
    assert 8 <= len(HELD_OUT) <= 12
    assert_right(capsys, check_passage_rule, rule)
    assert rule not in guard.PASSAGE_RULES, "the check must not change the shipped rules"
    hidden = [PATTERN, *HELD_OUT]
    assert_not_yet(capsys, check_passage_rule, None, hint="still None")
    assert_not_yet(capsys, check_passage_rule, PATTERN, hint="pattern alone", hidden=hidden)
    assert_not_yet(capsys, check_passage_rule, 42, hint="guard.Rule")
    assert_not_yet(capsys, check_passage_rule, guard.Rule("x", "y", "(unclosed"), hint="does not compile")
    assert_not_yet(capsys, check_passage_rule, guard.Rule("x", "y", r"\bdiplomas-slow\b"), hint="does not flag")
    copy = guard.Rule("x", "y", r"late fees are waived for students who register")  # the one sentence, learned by heart
    assert_not_yet(capsys, check_passage_rule, copy, hint=f"0 of {len(HELD_OUT)} held-out", hidden=hidden)
    too_broad = guard.Rule("x", "y", r"\b(?:the|to|must|answer|summary)\b")
    assert_not_yet(capsys, check_passage_rule, too_broad, hint="ordinary passage", hidden=hidden)


def test_passage_rule_fitted_to_few_wordings_fails(capsys) -> None:
    """A rule that caught every held-out attack of a set of six misses the other wordings of twelve."""
    narrow = guard.Rule("x", "y", NARROW)
    assert all(guard.screen_passage(text, [narrow]) for text in HELD_OUT[:6])
    assert_not_yet(capsys, check_passage_rule, narrow, hint="held-out attacks", hidden=[*HELD_OUT])


def test_passage_rule_on_any_modal_after_answer_fails(capsys) -> None:
    """A rule that flags any "answer … must" catches the attacks, and ordinary sentences about answers too."""
    loose = guard.Rule("x", "y", r"\b(?:answers?|responses?|repl(?:y|ies)|summar(?:y|ies)|output)\b[^.?!]{0,80}"
                       r"\b(?:must|should|shall|ought|has to|needs? to|(?:is|are) (?:required )?to)\b")
    assert sum(bool(guard.screen_passage(text, [loose])) for text in HELD_OUT) >= HELD_OUT_NEEDED
    flagged = [text for text in LOOK_ALIKES if guard.screen_passage(text, [loose])]
    assert flagged
    assert_not_yet(capsys, check_passage_rule, loose, hint="ordinary passage")


# --- notebook 08: gains that survive the bootstrap ---------------------------------------------------------------


@pytest.fixture(scope="module")
def ablation() -> AblationResult:
    """Four rows over 40 questions: dense gains EM, hybrid gains only F1, multi-query loses a little."""
    n = 40
    dense_em = np.array([1.0] * 20 + [0.0] * 20)
    hybrid_em = dense_em.copy()
    hybrid_em[25] = 1.0
    multi_em = hybrid_em.copy()
    multi_em[:2] = 0.0
    rows = {
        "closed book": (np.zeros(n), np.full(n, 0.1)),
        "dense": (dense_em, np.full(n, 0.6) + np.linspace(0, 0.1, n)),
        "hybrid": (hybrid_em, np.full(n, 0.8) + np.linspace(0, 0.1, n)),
        "+ multi-query": (multi_em, np.full(n, 0.79) + np.linspace(0, 0.1, n)),
    }
    frames = [
        pd.DataFrame({"configuration": name, "id": [f"q{i}" for i in range(n)], "em": em, "f1": f1})
        for name, (em, f1) in rows.items()
    ]
    return AblationResult(pd.concat(frames, ignore_index=True), summary=pd.DataFrame())


def test_surviving_gains(capsys, ablation) -> None:
    em = ablation.significance("em")  # the instructor's solution in notebook 08
    over_base = em[em.against == em.configuration.map(ablation.base_of)]
    em_survivors = over_base[over_base.p_one_sided < 0.05].configuration.tolist()
    assert em_survivors == ["dense"]
    assert_right(capsys, check_surviving_gains, em_survivors, ablation, "em")
    hidden = ["'dense'", "[dense"]
    assert_not_yet(capsys, check_surviving_gains, None, ablation, "em", hint="still None")
    assert_not_yet(capsys, check_surviving_gains, "dense", ablation, "em", hint="list of configuration names")
    f1_survivors = ["dense", "hybrid"]
    assert_not_yet(capsys, check_surviving_gains, f1_survivors, ablation, "em", hint="survive on F1", hidden=hidden)
    over_closed_book = ["dense", "hybrid", "+ multi-query"]
    assert_not_yet(capsys, check_surviving_gains, over_closed_book, ablation, "em", hint="closed book", hidden=hidden)
    # one row too many and one too few read the same: no count of extra or missing rows to search by
    extra = assert_not_yet(capsys, check_surviving_gains, ["dense", "+ multi-query"], ablation, "em",
                           hint="p_one_sided", hidden=hidden)  # fmt: skip
    assert assert_not_yet(capsys, check_surviving_gains, [], ablation, "em", hidden=hidden) == extra
    assert_not_yet(capsys, check_surviving_gains, ["rerank"], ablation, "em", hint="'rerank' is not a row")


# --- every check: strict mode, crashes, and the student version --------------------------------------------------


def test_strict_mode_raises_and_lenient_mode_never_does(capsys, monkeypatch) -> None:
    def crash(matrix: np.ndarray, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        raise ZeroDivisionError("by hand")

    assert check_top_k(crash) is False
    assert "ZeroDivisionError" in capsys.readouterr().out
    assert check_surviving_gains(["x"], object(), "em") is False  # a broken input is a "not yet", not a traceback
    assert "could not be checked" in capsys.readouterr().out
    monkeypatch.setenv(STRICT_ENV, "1")
    with pytest.raises(CheckFailed, match="Not yet"):
        check_top_k(None)
    with pytest.raises(CheckFailed, match="could not be checked"):
        check_surviving_gains(["x"], object(), "em")
    assert check_maxsim(lambda q, p: float((q @ p.T).max(axis=1).mean())) is True  # a right answer never raises
    monkeypatch.setenv(STRICT_ENV, "0")
    assert check_top_k(None) is False


def test_notebooks_conftest_makes_nbval_strict() -> None:
    tree = ast.parse((NOTEBOOKS_DIR / "conftest.py").read_text(encoding="utf-8"))
    calls = [ast.unparse(node) for node in ast.walk(tree) if isinstance(node, ast.Call)]
    assert f"os.environ.setdefault('{STRICT_ENV}', '1')" in calls


def _check_functions() -> set[str]:
    """Every check_… function the exercises' modules define."""
    names = set()
    for path in (HELPERS / "exercises").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        functions = [node.name for node in tree.body if isinstance(node, ast.FunctionDef)]
        names |= {name for name in functions if name.startswith("check_")}
    return names


def _bound_names(source: str) -> set[str]:
    """Names a cell binds at its top level (assignments, functions, classes, imports)."""
    names: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    return names


def test_every_check_call_survives_in_the_student_version(tmp_path: Path) -> None:
    write_student_version(tmp_path)
    checks, called = _check_functions(), set()
    for number in EXERCISED:
        [teacher_path] = NOTEBOOKS_DIR.glob(f"{number}_*.ipynb")
        teacher = nbformat.read(teacher_path, as_version=4)
        student = nbformat.read(tmp_path / teacher_path.name, as_version=4)
        code = [cell.source for cell in teacher.cells if cell.cell_type == "code"]
        calls = [name for source in code for name in CALL.findall(source) if name in checks]
        outside = [name for source in code for name in CALL.findall(SOLUTION.sub("", source)) if name in checks]
        assert calls, f"{teacher_path.name}: no self-check"
        assert outside == calls, f"{teacher_path.name}: a check call sits inside a solution block"
        bound: set[str] = set()
        for cell in (c for c in student.cells if c.cell_type == "code"):
            tree = ast.parse(cell.source)  # the student version is valid Python (stubs indented like the markers)
            for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)):
                if call.func.id in checks:
                    called.add(call.func.id)
                    needed = {call.func.id, *(a.id for a in call.args if isinstance(a, ast.Name))}
                    missing = needed - bound - _bound_names(cell.source)
                    assert not missing, f"{teacher_path.name}: {sorted(missing)} undefined when the check runs"
            bound |= _bound_names(cell.source)
    assert called == checks, "every check_… function of a checks module is called by a notebook"
