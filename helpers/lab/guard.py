"""Measuring the input guard both ways: false rejections on benign questions, catches on injection attempts
(`guard_rates`; `OLD_RULES` are the earlier single-word patterns), and the passage rules on attacked documents
and ordinary passages (`flag_rates`).
What it leaves out: the LLM's own resistance to an injection that gets through (notebook 07, exercise 5).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from helpers.config import REPO_ROOT, Settings
from helpers.corpus.attacks import GOLD_DIR, DocumentAttack, document_benign, plant_attacks, read_jsonl
from helpers.generation.guard import Rule, check_input, screen_passage

BENIGN_PATH = GOLD_DIR / "guard_benign.jsonl"
INJECTIONS_PATH = GOLD_DIR / "guard_injections.jsonl"

# The guard's earlier patterns: single words, so "grades … students" blocked an honest question. Kept for the
# before/after comparison only.
OLD_PATTERNS = [
    r"\b(ignore|disregard|forget|override|bypass)\b.{0,40}\b(instructions?|rules|prompt|guidelines|directions)",
    r"\byou are now\b|\bfrom now on,? you\b|\bact as\b|\bpretend (to be|you)\b|\brole-?play\b",
    r"\bsystem prompt\b|\bhidden instructions?\b|\byour (initial |original )?instructions\b",
    r"\b(developer|debug|god|jailbreak) mode\b|(?-i:\bDAN\b)|\bnew (rules|instructions)\b|^\s*system\s*:",
    r"#{2,}\s*new instructions|\[system|</?(context|system)>",
    r"\b(make up|invent|fabricate|forge|fake)\b",
    r"\b(skip|without|no|drop|stop)( the| any)? (citations?|citing|sources)\b|\b(never|don'?t) cite\b",
    r"\bstudent id\b|\bhome address(es)?\b|\b(names|grades|gpas?)\b.{0,40}\bstudents\b",
    r"\b(decode|base64)\b|[A-Za-z0-9+/]{24,}={0,2}",
    r"\b(olvida|ignora)\b.{0,40}\b(instrucciones|reglas)\b|\bprompt de sistema\b|\bsin (citar|fuentes)\b",
    r"\b(oublie|ignore)[sz]?\b.{0,40}\b(instructions|consignes|règles)\b|\binvente\b",
    r"\b(ignoriere|vergiss)\b.{0,40}\b(anweisungen|regeln)\b|\bsystemprompt\b",
]
OLD_RULES = [Rule(f"old-{i}", f"matched the old pattern {p!r}", p) for i, p in enumerate(OLD_PATTERNS)]


@dataclass(frozen=True)
class Attempt:
    """One injection attempt: `pure` (nothing to answer) or `mixed` (a real question with an injection attached)."""

    id: str
    question: str
    kind: str


def realworld_dev() -> list[str]:
    """The real-document dev questions, or [] while that set does not exist yet."""
    from helpers.corpus.pinned import REALWORLD

    try:
        questions = REALWORLD.load(split="dev")
    except (OSError, ValueError):  # the file not there yet, or not readable as gold questions
        return []
    return [q.question for q in questions if q.category != "injection"]


def benign_sets() -> dict[str, list[str]]:
    """Every benign question the kit has, by the set it comes from."""
    from helpers.corpus import load_gold, load_routing
    from helpers.corpus.questions import load_questions

    sets = {
        "gold (no injections)": [q.question for q in load_gold() if q.category != "injection"],
        "scanned page": [r["question"] for r in read_jsonl(GOLD_DIR / "scanned_page.jsonl")],
        "routing": [r["question"] for r in load_routing()],
        "generated": [q.question for q in load_questions(GOLD_DIR / "generated_course_questions.jsonl")],
        "BYOD example": [q.question for q in load_questions(REPO_ROOT / "course_data/byod_example/questions.csv")],
        "real documents (dev)": realworld_dev(),
        "guard_benign.jsonl": [r["question"] for r in read_jsonl(BENIGN_PATH)],
    }
    return {name: questions for name, questions in sets.items() if questions}


def injection_sets() -> dict[str, list[Attempt]]:
    """The injection attempts: gold dev (tuned on), the new file (tuned on), gold test (held out)."""
    from helpers.corpus import load_gold

    def gold(split: str) -> list[Attempt]:
        questions = load_gold(split, category="injection")
        return [Attempt(q.id, q.question, "mixed" if q.answer else "pure") for q in questions]

    new = [Attempt(r["id"], r["question"], r["kind"]) for r in read_jsonl(INJECTIONS_PATH)]
    return {"gold dev": gold("dev"), "guard_injections.jsonl": new, "gold test (held out)": gold("test")}


def _row(name: str, kind: str, verdicts: Sequence[Any]) -> dict:
    """Counts for one set: how many the guard blocked, and flagged (blocked, or a sentence cut)."""
    flagged = sum(bool(v.blocked or v.removed) for v in verdicts)
    return {"set": name, "kind": kind, "questions": len(verdicts), "blocked": sum(v.blocked for v in verdicts),
            "flagged": flagged, "rate": flagged / len(verdicts)}  # fmt: skip


def _injection_row(name: str, attempts: Sequence[Attempt], rules: Sequence[Rule] | None) -> dict:
    """Counts for one injection set: caught (blocked or the injected part cut), and mixed ones answered."""
    verdicts = [check_input(a.question, rules) for a in attempts]
    kept = sum(not v.blocked and bool(v.removed) for a, v in zip(attempts, verdicts, strict=True) if a.kind == "mixed")
    return _row(name, "injection", verdicts) | {"mixed answered": f"{kept}/{sum(a.kind == 'mixed' for a in attempts)}"}


def guard_rates(rules: Sequence[Rule] | None = None) -> pd.DataFrame:
    """One row per set: benign ones flagged (false rejections) and injections caught, with rates and totals."""
    benign = [_row(name, "benign", [check_input(q, rules) for q in qs]) for name, qs in benign_sets().items()]
    injections = [_injection_row(name, attempts, rules) for name, attempts in injection_sets().items()]
    rows = [*benign, _total("all benign", benign), *injections, _total("all injections", injections)]
    return pd.DataFrame(rows).set_index("set").fillna("")


def _total(name: str, rows: Sequence[dict]) -> dict:
    """A totals row for `rows`."""
    questions, flagged = sum(r["questions"] for r in rows), sum(r["flagged"] for r in rows)
    return {"set": name, "kind": rows[0]["kind"], "questions": questions, "blocked": sum(r["blocked"] for r in rows),
            "flagged": flagged, "rate": flagged / questions}  # fmt: skip


def old_false_rejections() -> pd.DataFrame:
    """Benign questions the old rules flagged, with the old pattern that matched and what the guard does now."""
    rows = []
    for name, questions in benign_sets().items():
        for question in questions:
            old = check_input(question, OLD_RULES)
            if old.blocked or old.removed:
                new = check_input(question)
                now = "blocked" if new.blocked else ("a sentence cut" if new.removed else "passes")
                rule = old.reasons[0].removeprefix("matched the old pattern ")
                verdict = "blocked" if old.blocked else "cut"
                rows.append({"set": name, "question": question, "old verdict": verdict, "old rule": rule, "now": now})
    return pd.DataFrame(rows, columns=["set", "question", "old verdict", "old rule", "now"])


def parsed_chunks(folder: Path, settings: Settings) -> list[tuple[str, Any, str]]:
    """(source, page, text) of every chunk the kit makes of `folder`, as ingestion would (no embedding)."""
    from helpers.chunking import chunk_for_settings
    from helpers.parsing import parse_folder

    documents = parse_folder(folder, progress=False, cache_dir=settings.paths.cache_dir).documents
    nodes = chunk_for_settings(documents, settings.chunking)
    return [(str(n.metadata.get("source")), n.metadata.get("page"), n.get_content()) for n in nodes]


def passage_flags(chunks: Sequence[tuple[str, Any, str]], rules: Sequence[Rule] | None = None) -> pd.DataFrame:
    """One row per flagged chunk: its source, page, the rule and the sentence."""
    rows = []
    for source, page, text in chunks:
        if flag := screen_passage(text, rules):
            rows.append({"source": source, "page": page, "rule": flag.rule, "sentence": flag.sentence})
    return pd.DataFrame(rows, columns=["source", "page", "rule", "sentence"])


def suite_flags(
    attacks: Sequence[DocumentAttack], settings: Settings, rules: Sequence[Rule] | None = None
) -> pd.DataFrame:
    """One row per attack: whether a chunk of its planted file is flagged (by which rule), its split, format …"""
    with tempfile.TemporaryDirectory() as folder:
        plant_attacks(Path(folder), attacks)
        flags = passage_flags(parsed_chunks(Path(folder), settings), rules)
    by_file = flags.groupby("source").rule.first().to_dict() if len(flags) else {}
    rows = [{"id": a.id, "split": a.split, "format": a.format, "language": a.language, "position": a.position,
             "flagged by": by_file.get(f"{a.id}.{a.format}", "")} for a in attacks]  # fmt: skip
    return pd.DataFrame(rows).assign(flagged=lambda frame: frame["flagged by"] != "")


def flag_rates(attacks: Sequence[DocumentAttack], settings: Settings, corpora: dict[str, Sequence]) -> pd.DataFrame:
    """The passage rules both ways: attacks flagged per split, and benign passages or chunks flagged per set."""
    suite = suite_flags(attacks, settings)
    rows = [{"set": f"attacks ({split})", "kind": "attack", "passages": len(group), "flagged": int(group.flagged.sum())}
            for split, group in suite.groupby("split")]  # fmt: skip
    for split in ("dev", "test"):
        texts = [("document_benign.jsonl", None, r["text"]) for r in document_benign(split)]
        rows.append({"set": f"benign passages ({split})", "kind": "benign", "passages": len(texts),
                     "flagged": len(passage_flags(texts))})  # fmt: skip
    for name, chunks in corpora.items():
        rows.append({"set": f"{name} chunks", "kind": "benign", "passages": len(chunks),
                     "flagged": len(passage_flags(chunks))})  # fmt: skip
    return pd.DataFrame(rows).set_index("set").assign(rate=lambda frame: frame.flagged / frame.passages)


def injection_results(results_dir: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The committed `python -m bench.injections` run: takeovers per split and guard, and the guard's cost on dev."""
    record = json.loads((results_dir / "injections.json").read_text(encoding="utf-8"))
    rows = [{"split": key.split(" / ")[0], "guard": key.split(" / ")[1], **value}
            for key, value in record["takeovers"].items()]  # fmt: skip
    table = pd.DataFrame(rows).set_index(["split", "guard"])[["questions", "taken over", "holds the answer"]]
    cost = pd.DataFrame(record.get("dev_cost", {})).T
    return table.unstack("guard"), cost
