"""Defaults on two corpora: the sweeps that chose the kit's defaults, on the course gold set and the real set.

    .venv/bin/python -m bench.realworld retrieval            # chunking x retrieval grid, no LLM (dev)
    .venv/bin/python -m bench.realworld context              # what the reader gets at equal prompt tokens (dev)
    .venv/bin/python -m bench.realworld fusion               # each fusion of the retrieval sweep at those budgets
    .venv/bin/python -m bench.realworld answers --limit 30   # reader set-ups on the dev splits (LLM, long)
    .venv/bin/python -m bench.realworld final --limit 40     # old vs new defaults on the test splits
    .venv/bin/python -m bench.realworld budget --limit 20    # F1 against prompt tokens: the context budget (dev)
    .venv/bin/python -m bench.realworld rules                # refusal rules scored on the reader's dev answers
    .venv/bin/python -m bench.realworld misses               # where each missed answer stopped, dev and test (no LLM)
    .venv/bin/python -m bench.realworld paired --baseline F:SETUP --system F:SETUP --name N  # two runs' answers, paired
    .venv/bin/python -m bench.realworld versioned            # time-aware retrieval off / on, every split (no LLM)

`paired` is for a change no setting switches (a parser's): the answers of two runs of the same questions (files
`bench/results/<F>_answers.csv`, set-up SETUP) side by side, with the paired bootstrap of F1, as one comparison.

`versioned` writes `bench/results/versioned_retrieval.{json,csv}` (one row per corpus, split, set-up and kind of
question: all, names a year, names none; `hits changed`: questions whose top k differs from the defaults') and
`versioned_retrieval_questions.csv` (one row per question).

`--cold-llm-cache`: no answer from the user cache (it may hold outputs of older code); the shipped answers still serve.

Each stage prints its table (one column per corpus) and writes `bench/results/realworld_<stage>.{csv,json}`.
The real set is rebuilt first (`course_data/realworld/README.md`); without it only the course column is filled.
What it leaves out: the reranker sweep (notebook 06, `helpers.lab.rerank`).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
from tqdm.auto import tqdm

from bench.common import RESULTS_DIR, Record, use_cache_as_after_setup
from helpers.config import Settings, get_settings
from helpers.corpus import Question
from helpers.corpus.pinned import VERSIONED
from helpers.evaluation.misses import reranker_ceiling, stage_shares
from helpers.evaluation.two_corpora import (
    CHUNK_KEYS,
    SUPPORT_FLOORS,
    Corpus,
    answer_rows,
    close_all,
    course_corpus,
    indexed,
    paired_f1,
    pinned_corpus,
    reader_passages,
    realworld_corpus,
    refusal_rules,
    side_by_side,
    tuning_settings,
)
from helpers.metrics.answer_relevance import contains_answer
from helpers.metrics.answers import answer_support

if TYPE_CHECKING:
    from helpers.pipeline import RAGPipeline
    from helpers.retrieval import Retriever

OLD_DEFAULTS: dict[str, Any] = dict(
    chunk_strategy="recursive_chars", chunk_size=0, chunk_overlap=-1, retriever="hybrid_rrf", hybrid_pool=30,
    top_k=4, context_tokens=1500, bm25_tokenizer="kit", best_passage_last=False, near_duplicate=0.0,
)  # fmt: skip
CHUNKINGS: dict[str, dict[str, Any]] = {
    "recursive 500/50 (old)": dict(chunk_strategy="recursive_chars", chunk_size=0, chunk_overlap=-1),
    "words 250/50": dict(chunk_strategy="word_window", chunk_size=250, chunk_overlap=50),
    "recursive 1000/100": dict(chunk_strategy="recursive_chars", chunk_size=1000, chunk_overlap=100),
    "words 150/30": dict(chunk_strategy="word_window", chunk_size=150, chunk_overlap=30),
    "recursive 1500/150": dict(chunk_strategy="recursive_chars", chunk_size=1500, chunk_overlap=150),
    "sections merged": dict(chunk_strategy="header_sections_merged", chunk_size=0, chunk_overlap=-1),
}
KIT_TOKENS = dict(bm25_tokenizer="kit")  # the BM25 tokenizer the unsuffixed rows were measured with
RETRIEVALS: dict[str, dict[str, Any]] = {
    "rrf pool 30 (old)": dict(retriever="hybrid_rrf", hybrid_pool=30, **KIT_TOKENS),
    "rrf pool 50": dict(retriever="hybrid_rrf", hybrid_pool=50, **KIT_TOKENS),
    "weighted 0.5 pool 50": dict(retriever="hybrid", hybrid_alpha=0.5, hybrid_pool=50, **KIT_TOKENS),
    "weighted 0.3 pool 50": dict(retriever="hybrid", hybrid_alpha=0.3, hybrid_pool=50, **KIT_TOKENS),
    "weighted 0.7 pool 50": dict(retriever="hybrid", hybrid_alpha=0.7, hybrid_pool=50, **KIT_TOKENS),
    "rrf pool 50 stemmed": dict(retriever="hybrid_rrf", hybrid_pool=50, bm25_tokenizer="stemmed"),
    "weighted 0.5 pool 50 stemmed": dict(
        retriever="hybrid", hybrid_alpha=0.5, hybrid_pool=50, bm25_tokenizer="stemmed"
    ),
    "weighted 0.5 pool 50 dates": dict(retriever="hybrid", hybrid_alpha=0.5, hybrid_pool=50, bm25_tokenizer="dates"),
    "dense": dict(retriever="dense"),
    "bm25": dict(retriever="bm25", **KIT_TOKENS),
}
# Every copy of a passage kept, as when the fusion sweep was measured (`near_duplicate` came later).
RETRIEVALS = {name: {**params, "near_duplicate": 0.0} for name, params in RETRIEVALS.items()}
TOP_KS = (3, 4, 5, 6, 8)
BUDGETS: dict[str, dict[str, Any]] = {  # eight chunks retrieved, the context cut to a budget (lowest ranks go first)
    "defaults (k 4, budget 1500)": dict(top_k=4, context_tokens=1500, short_style="phrase"),  # the defaults then
    **{f"k 8, budget {tokens}": dict(top_k=8, context_tokens=tokens) for tokens in (300, 600, 1000)},
}

# What the reader gets for its prompt tokens (small-to-big, larger windows, merged neighbours, chunk headers).
CONTEXT_SETUPS: dict[str, dict[str, Any]] = {
    "recursive 500/50 (default)": {},
    "recursive 500/50 + window 1": dict(context_window=1),
    "recursive 250/25": dict(chunk_size=250, chunk_overlap=25),
    "recursive 250/25 + window 1": dict(chunk_size=250, chunk_overlap=25, context_window=1),
    "recursive 250/25 + window 2": dict(chunk_size=250, chunk_overlap=25, context_window=2),
    "recursive 1000/100": dict(chunk_size=1000, chunk_overlap=100),
    "words 250/50": dict(chunk_strategy="word_window", chunk_size=250, chunk_overlap=50),
    "recursive 500/50 + headers": dict(chunk_context=True),
    "recursive 500/50 + near-copies dropped": dict(near_duplicate=0.8),
    "recursive 500/50 + MaxSim": dict(reranker="maxsim"),  # the first stage's top 20 reranked (notebook 06)
    "recursive 500/50 + headers + MaxSim": dict(chunk_context=True, reranker="maxsim"),
}
CONTEXT_BUDGETS = (200, 300, 450, 550, 650)  # context tokens; the prompt adds about 320 (system, examples, question)

CORPORA = ("course", "real")
# The reader's whole-dev-split run (`answers --name realworld_reader_dev`) the refusal rules are scored on.
RULES_ANSWERS, RULES_BASE, RULES_FORCED = "reader_dev", "defaults (k 4)", "16 hits cut to 550 tokens, forced answer"


def versioned_corpus(split: str = "dev", settings: Settings | None = None) -> Corpus | None:
    """The versioned real-document set: one document in several academic years (course_data/versioned/README.md)."""
    return pinned_corpus(VERSIONED, "versioned", split, settings)


def corpora(split: str, base: Settings, names: tuple[str, ...] = CORPORA) -> list[Corpus]:
    """The course corpus and, when rebuilt, the real one (or only those named; "versioned": the versioned set)."""
    found = [versioned_corpus(split, base) if "versioned" in names else None]
    found.append(course_corpus(split, base) if "course" in names else None)
    found.append(realworld_corpus(split, base) if "real" in names else None)
    return [corpus for corpus in found if corpus is not None]


# --- scoring one set-up on one corpus: what the reader gets, and what it answers ----------------------------------


def what_the_reader_gets(
    pipeline: RAGPipeline, settings: Settings, corpus: Corpus, ranked: Sequence[Sequence[Any]]
) -> tuple[list[bool], list[bool], list[int]]:
    """Per answerable question, from its ranked hits cut as the prompt cuts them under `settings`: whether the
    answer is in the passages, whether its evidence document is, and the passages' tokens."""
    from helpers.chunking import count_tokens

    found, recalled, tokens = [], [], []
    for question, hits in zip(corpus.answerable, ranked, strict=True):
        used = reader_passages(_with_settings(pipeline, settings), question.question, hits)
        found.append(any(contains_answer(hit.text, question.answers) for hit in used))
        recalled.append(any(hit.source in question.evidence_docs for hit in used))
        tokens.append(sum(count_tokens(hit.text) for hit in used))
    return found, recalled, tokens


def retrieval_rows(
    pipeline: RAGPipeline, corpus: Corpus, retriever: Retriever, ks: Sequence[int]
) -> list[dict[str, float]]:
    """For each k: answer in the reader's context, evidence document in it, context tokens, ms per question.

    The retriever is asked once per question for max(ks) hits; every smaller k is the head of that list (a
    hybrid's ranking does not depend on k: each side returns its fixed pool).
    """
    ranked, seconds = [], []
    for question in corpus.answerable:
        start = time.perf_counter()
        ranked.append(pipeline.search(question.question, max(ks), retriever))
        seconds.append(time.perf_counter() - start)
    rows = []
    for k in ks:
        found, recalled, tokens = what_the_reader_gets(pipeline, pipeline.settings.replace(top_k=k), corpus, ranked)
        rows.append({
            "k": k,
            "questions": len(found),
            "answer in context": statistics.fmean(found) if found else float("nan"),
            "evidence doc in context": statistics.fmean(recalled) if recalled else float("nan"),
            "context tokens": statistics.fmean(tokens) if tokens else float("nan"),
            "ms / question": 1000 * statistics.fmean(seconds) if seconds else float("nan"),
        })  # fmt: skip
    return rows


TABLE_CATEGORIES = ("table_lookup", "date")  # questions answered by a row of a table or calendar


def context_rows(
    pipeline: RAGPipeline, corpus: Corpus, retriever: Retriever, budgets: Sequence[int], k: int = 16
) -> list[dict[str, float]]:
    """Answer in the reader's context at equal prompt size: `k` hits cut to each context budget (tokens).

    A set-up that gives longer passages fits fewer of them in the same budget, so set-ups are compared at the
    same cost. Also reported: the answer in context for the table and calendar questions alone, and the mean
    prompt tokens (system, examples and question included) the passages make.
    """
    from helpers.generation import fixed_prompt_tokens

    questions = corpus.answerable
    cleaned = [pipeline.check(question.question).question for question in questions]
    ranked = [pipeline.retrieve(text, k, retriever) for text in cleaned]
    fixed = [fixed_prompt_tokens(text, pipeline.settings.generation.worked_examples) for text in cleaned]
    tables = [question.category in TABLE_CATEGORIES for question in questions]
    rows = []
    for budget in budgets:
        settings = pipeline.settings.replace(top_k=k, context_tokens=budget)
        found, _, tokens = what_the_reader_gets(pipeline, settings, corpus, ranked)
        in_tables = [hit for hit, table in zip(found, tables, strict=True) if table]
        rows.append({
            "budget": budget,
            "questions": len(found),
            "answer in context": statistics.fmean(found) if found else float("nan"),
            "tables and calendars": statistics.fmean(in_tables) if in_tables else float("nan"),
            "table questions": len(in_tables),
            "context tokens": statistics.fmean(tokens) if tokens else float("nan"),
            "prompt tokens": statistics.fmean(f + t for f, t in zip(fixed, tokens, strict=True)) if tokens else 0.0,
        })  # fmt: skip
    return rows


def _with_settings(pipeline: RAGPipeline, settings: Settings) -> RAGPipeline:
    """The pipeline with other settings (same index): only `reader_passages` reads them here."""
    pipeline.settings = settings
    return pipeline


def answer_row(
    pipeline: RAGPipeline, questions: Iterable[Question], progress: bool = False, label: str = ""
) -> tuple[dict[str, float], pd.DataFrame]:
    """The reader's short answers scored: EM, F1 (answerable), refusals, prompt tokens, seconds; and the rows."""
    from helpers.generation.answer import strip_citations
    from helpers.generation.scores import score_answer

    rows = []
    for question in tqdm(list(questions), desc=label or "answers", disable=not progress, leave=False):
        answer = pipeline.ask(question.question, mode="short")
        row = score_answer(question, answer)
        row["in_context"] = any(contains_answer(hit.text, question.answers) for hit in answer.hits)
        context = " ".join(hit.text for hit in answer.hits)
        row["support"] = answer_support(strip_citations(answer.text), context) if answer.status == "answered" else 0.0
        rows.append(row)
    frame = pd.DataFrame(rows)
    answerable = frame[frame.kind == "answerable"]
    unanswerable = frame[frame.kind == "unanswerable"]
    called = frame[frame.llm_called]  # an answer from the cache keeps the seconds of its real call
    summary = {
        "questions": len(frame),
        "EM": float(answerable.em.mean()),
        "F1": float(answerable.f1.mean()),
        "answer in context": float(answerable.in_context.mean()),
        "refused (answerable)": float(answerable.status.isin(["refused", "no_context"]).mean()),
        "refused (unanswerable)": float(unanswerable.status.isin(["refused", "no_context"]).mean())
        if len(unanswerable)
        else float("nan"),
        "prompt tokens": float(frame.prompt_tokens[frame.llm_called].mean()),
        "s / answer": float(called.seconds.mean()) if len(called) else float("nan"),
    }
    return summary, frame


def retrieval_stage(
    base: Settings,
    split: str = "dev",
    names: tuple[str, ...] = CORPORA,
    chunkings: tuple[str, ...] = (),
    record: Record | None = None,
    retrievals: tuple[str, ...] = (),
) -> pd.DataFrame:
    """Every chunking (or those named) x retrieval x k on each corpus, scored without the LLM; saved as it goes."""
    from helpers.retrieval import BM25Retriever, DenseRetriever, Memoized
    from helpers.retrieval.bm25 import TOKENIZERS

    rows = []
    for corpus in corpora(split, base, names):
        for chunk_name, chunking in CHUNKINGS.items():
            if chunkings and chunk_name not in chunkings:
                continue
            pipeline = indexed(corpus, tuning_settings(corpus, base, **chunking), progress=True)
            bm25: dict[str, BM25Retriever] = {}  # fitted once per index and tokenizer
            dense = Memoized(DenseRetriever(pipeline.store, pipeline.embedder))  # each query embedded once
            for retrieval_name, retrieval in RETRIEVALS.items():
                if retrievals and retrieval_name not in retrievals:
                    continue
                settings = tuning_settings(corpus, base, **chunking, **retrieval)
                pipeline.settings = settings
                tokenizer = settings.retrieval.bm25_tokenizer
                if tokenizer not in bm25:
                    bm25[tokenizer] = BM25Retriever.from_store(pipeline.store, tokenizer=TOKENIZERS[tokenizer])
                retriever = pipeline.make_retriever(
                    None, bm25=bm25[tokenizer], dense=dense, pool=settings.retrieval.hybrid_pool
                )
                for row in retrieval_rows(pipeline, corpus, retriever, TOP_KS):
                    rows.append({"corpus": corpus.name, "chunking": chunk_name, "retrieval": retrieval_name, **row})
                print(pd.DataFrame(rows[-len(TOP_KS) :]).round(3).to_string(), flush=True)
            if record is not None:  # a long sweep keeps what it measured so far
                write(record, pd.DataFrame(rows))
        close_all()
    return pd.DataFrame(rows)


def context_stage(
    base: Settings,
    split: str = "dev",
    names: tuple[str, ...] = CORPORA,
    wanted: tuple[str, ...] = (),
    record: Record | None = None,
    setups: dict[str, dict[str, Any]] | None = None,
) -> pd.DataFrame:
    """Each context set-up (or those named) on each corpus: answer in context at equal budgets; saved as it goes.
    `setups`: CONTEXT_SETUPS by default; the `fusion` stage passes RETRIEVALS (each fusion at the reader's budgets)."""
    rows = []
    for corpus in corpora(split, base, names):
        for name, changes in (setups or CONTEXT_SETUPS).items():
            if wanted and name not in wanted:
                continue
            settings = tuning_settings(corpus, base, **changes)
            pipeline = indexed(corpus, settings, progress=True)
            retriever = pipeline.retriever  # the configured one: reranked when the set-up names a reranker
            for row in context_rows(pipeline, corpus, retriever, CONTEXT_BUDGETS):
                rows.append({"corpus": corpus.name, "set-up": name, **row})
            print(pd.DataFrame(rows[-len(CONTEXT_BUDGETS) :]).round(3).to_string(), flush=True)
            if record is not None:
                write(record, pd.DataFrame(rows))
        close_all()
    return pd.DataFrame(rows)


def answer_stage(
    base: Settings,
    setups: dict[str, dict[str, Any]],
    split: str,
    limit: int | None,
    names: tuple[str, ...] = CORPORA,
    record: Record | None = None,
    extra: dict[str, Any] | None = None,
) -> pd.DataFrame:
    """The reader's EM/F1 for each named set-up on each corpus (the first `limit` questions of a split)."""
    rows, answers = [], []
    for corpus in corpora(split, base, names):
        questions = sample(corpus.questions, limit)
        for name, changes in setups.items():
            settings = tuning_settings(corpus, base, **changes)
            label = f"{corpus.name}: {name}"
            summary, frame = answer_row(indexed(corpus, settings), questions, progress=True, label=label)
            rows.append({"corpus": corpus.name, "set-up": name, **summary})
            answers.append(frame.assign(corpus=corpus.name, **{"set-up": name}))
            print(rows[-1], flush=True)
            if record is not None:  # a long run keeps what it measured so far, and every answer
                write(record, pd.DataFrame(rows), extra)
                pd.concat(answers).to_csv(RESULTS_DIR / f"{record.name}_answers.csv", index=False)
        close_all()
    return pd.DataFrame(rows)


def anatomy_table(rows: pd.DataFrame, by: Sequence[str] = ("corpus", "split")) -> pd.DataFrame:
    """Per group (corpus and split by default): questions, the share at each stage, and the reranker's ceiling."""
    table: dict[Any, dict[str, float]] = {}
    for key, group in rows.groupby(list(by), sort=False):
        shares = stage_shares(group).to_dict()
        table[key] = {"questions": len(group), **shares, "reranker ceiling": reranker_ceiling(group)}
    frame = pd.DataFrame.from_dict(table, orient="index")
    frame.index.names = list(by)
    return frame


def misses_stage(
    base: Settings, names: tuple[str, ...] = CORPORA, setups: dict[str, dict[str, Any]] | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Where each set-up (default: the configured pipeline) loses each answer, on both splits of each corpus: the
    shares per stage and the rows per question. The test split is only reported here: nothing is chosen from it."""
    from helpers.evaluation.misses import miss_anatomy

    questions = []
    for split in ("dev", "test"):
        for corpus in corpora(split, base, names):
            for name, changes in (setups or {"configured": {}}).items():
                pipeline = indexed(corpus, tuning_settings(corpus, base, **changes))
                found = miss_anatomy(pipeline, corpus.answerable)
                questions.append(found.assign(**{"set-up": name, "corpus": corpus.name, "split": split}))
            close_all()
    rows = pd.concat(questions, ignore_index=True)
    return anatomy_table(rows, by=("set-up", "corpus", "split")).reset_index(), rows


PERIOD_SETUPS: dict[str, dict[str, Any]] = {  # record keys (`chunk_records`) and `period_aware` are on by default
    "neither": dict(chunk_records=False, period_aware=False),
    "record keys": dict(period_aware=False),
    "period aware": dict(chunk_records=False),
    "defaults": {},
    **{f"rescored from {depth}": dict(hybrid_rescore=depth) for depth in (1000, 3000, 10000)},
}


def versioned_stage(
    base: Settings, names: tuple[str, ...] = ("versioned", *CORPORA)
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Time-aware retrieval off and on, on both splits of the versioned set and of the other corpora (when rebuilt):
    per question whether the answer and its evidence document reach the reader's context, and the shares per
    corpus, split, set-up and kind of question (all; names a year; names none or "this fall"). No LLM."""
    questions = []
    for split in ("dev", "test"):
        for corpus in corpora(split, base, names):
            for name, changes in PERIOD_SETUPS.items():
                pipeline = indexed(corpus, tuning_settings(corpus, base, **changes))
                ranked = [pipeline.search(q.question) for q in corpus.answerable]
                in_context, recalled, _ = what_the_reader_gets(pipeline, pipeline.settings, corpus, ranked)
                for question, answer, document, hits in zip(
                    corpus.answerable, in_context, recalled, ranked, strict=True
                ):
                    questions.append({
                        "corpus": corpus.name, "split": split, "set-up": name, "id": question.id,
                        "names_year": question.extra.get("names_year", ""),
                        "university": question.extra.get("university", ""), "answer in context": answer,
                        "evidence doc in context": document, "hits": " ".join(h.node_id[:8] for h in hits),
                    })  # fmt: skip
            close_all()
    rows = pd.DataFrame(questions)
    rows["kind"] = rows.names_year.map(lambda kind: "names a year" if kind == "explicit" else "names none")
    question = ["corpus", "split", "id"]
    before = rows[rows["set-up"] == "defaults"].set_index(question).hits
    rows["hits changed"] = rows.hits.to_numpy() != before.reindex(pd.MultiIndex.from_frame(rows[question])).to_numpy()
    kinds = pd.concat([rows.assign(kind="all"), rows[rows.corpus == "versioned"]])
    groups = kinds.groupby(["corpus", "split", "set-up", "kind"], sort=False)
    table = groups[["answer in context", "evidence doc in context"]].mean()
    table = table.assign(questions=groups.size(), **{"hits changed": groups["hits changed"].sum()})
    return table.reset_index(), rows


def sample(questions: Sequence[Question], limit: int | None, seed: int = 0) -> list[Question]:
    """A seeded random `limit` of the questions (all when None), in their file order: the same on every run."""
    if not limit or limit >= len(questions):
        return list(questions)
    keep = set(random.Random(seed).sample(range(len(questions)), limit))
    return [question for i, question in enumerate(questions) if i in keep]


def write(record: Record, frame: pd.DataFrame, extra: dict[str, Any] | None = None) -> None:
    """The stage's rows as CSV and, with the machine record (load average at both ends), as JSON."""
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    frame.to_csv(RESULTS_DIR / f"{record.name}.csv", index=False)
    for key, value in {**(extra or {}), "rows": frame.to_dict("records")}.items():
        record[key] = value
    record.save()


def paired_stage(baseline: str, system: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two runs' answers ("results-name:set-up" each) as one frame, and per corpus both sides' means and paired F1.

    Each side is labelled by its set-up's name, or by the whole "results-name:set-up" when both share a name.
    """
    setups = [spec.partition(":")[2] for spec in (baseline, system)]
    labels = setups if setups[0] != setups[1] else [baseline, system]  # the set-up's name unless both share it
    sides = []
    for spec, setup, label in zip((baseline, system), setups, labels, strict=True):
        name = spec.partition(":")[0]
        answers = pd.read_csv(RESULTS_DIR / f"{name}_answers.csv")
        sides.append(answers[answers["set-up"] == setup].assign(**{"set-up": label}))
        if sides[-1].empty:
            raise SystemExit(f"no answers of set-up {setup!r} in {name}_answers.csv")
    both = set(sides[0].corpus) & set(sides[1].corpus)  # a run of one corpus pairs with that corpus only
    answers = pd.concat(sides, ignore_index=True)
    answers = answers[answers.corpus.isin(both)]
    answerable = answers[answers.kind == "answerable"]
    means = answerable.groupby(["corpus", "set-up"], sort=False)[["f1", "em", "in_context", "prompt_tokens"]].mean()
    frame = paired_f1(answers, *labels).join(means.unstack("set-up").round(3).pipe(_flat_columns))
    return frame.reset_index(names="corpus"), answers


def _flat_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """("f1", "set-up") columns as "f1 | set-up"."""
    frame.columns = [f"{metric} | {setup}" for metric, setup in frame.columns]
    return frame


def main(argv: list[str] | None = None) -> int:
    """Run one stage, print its table, write its results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    stages = ("retrieval", "context", "fusion", "answers", "final", "budget", "rules", "misses", "paired", "versioned")
    parser.add_argument("stage", choices=stages)
    parser.add_argument("--limit", type=int, default=None, help="questions per corpus (answers, final)")
    parser.add_argument("--corpora", default=",".join(CORPORA), help="comma-separated: course, real, versioned")
    parser.add_argument("--chunkings", default="", help="comma-separated names of CHUNKINGS (retrieval; default all)")
    parser.add_argument("--retrievals", default="", help="comma-separated names of RETRIEVALS (default all)")
    parser.add_argument("--split", choices=("dev", "test"), default="dev", help="retrieval: the split to sweep")
    parser.add_argument("--tag", default="", help="appended to the results' file names")
    parser.add_argument("--setups", default="", help="JSON {name: {setting: value}} for the answers or context stage")
    parser.add_argument("--name", default="", help="results file name (default realworld_<stage><tag>)")
    parser.add_argument("--contexts", default="", help="comma-separated names of CONTEXT_SETUPS (default all)")
    parser.add_argument("--cold-llm-cache", action="store_true", help="no cached answers but the shipped ones")
    parser.add_argument("--baseline", default="", help="paired: results-name:set-up of the baseline's answers")
    parser.add_argument("--system", default="", help="paired: results-name:set-up of the answers compared with it")
    args = parser.parse_args(argv)
    if args.cold_llm_cache:  # every answer computed now (or shipped): none from an older run's cache
        use_cache_as_after_setup(Path(tempfile.mkdtemp(prefix="kit-bench-realworld-")))
    base, names = get_settings(), tuple(args.corpora.split(","))
    prefix = "realworld_test_" if args.split == "test" else "realworld_"  # test rows never mix into dev tables
    record = Record(args.name or f"{prefix}{args.stage}{args.tag}", RESULTS_DIR)
    if args.stage == "retrieval":
        chunkings = tuple(name for name in args.chunkings.split(",") if name)
        retrievals = tuple(name for name in args.retrievals.split(",") if name)
        frame = retrieval_stage(base, args.split, names, chunkings, record, retrievals)
        write(record, frame)
        frame["set-up"] = frame.chunking + " | " + frame.retrieval + " | k=" + frame.k.astype(str)
        print(side_by_side(frame.to_dict("records"), "answer in context").to_string())
        return 0
    if args.stage == "rules":  # no model call: the stored answers under each rule
        frame = refusal_rules(answer_rows(RULES_ANSWERS, RESULTS_DIR), RULES_BASE, RULES_FORCED, SUPPORT_FLOORS)
        write(record, frame, {"answers": f"realworld_{RULES_ANSWERS}_answers.csv"})
        print(side_by_side(frame.to_dict("records"), "F1 (all questions)", index="rule").round(3).to_string())
        return 0
    if args.stage == "paired":  # no model call: two runs' stored answers, paired
        if not (args.baseline and args.system and args.name):
            parser.error("paired needs --baseline, --system and --name")
        frame, answers = paired_stage(args.baseline, args.system)
        write(record, frame, {"baseline": args.baseline, "system": args.system})
        answers.to_csv(RESULTS_DIR / f"{record.name}_answers.csv", index=False)
        print(frame.to_string())
        return 0
    if args.stage == "versioned":  # no model call: time-aware retrieval off / on, both splits
        record = Record(args.name or "versioned_retrieval", RESULTS_DIR)
        frame, questions = versioned_stage(base, ("versioned", *names))
        write(record, frame, {"setups": PERIOD_SETUPS})
        questions.to_csv(RESULTS_DIR / f"{record.name}_questions.csv", index=False)
        print(frame.round(3).to_string())
        return 0
    if args.stage == "misses":  # no model call: each answerable question's stage, dev and test
        frame, questions = misses_stage(base, names, json.loads(args.setups) if args.setups else None)
        write(record, frame)
        questions.to_csv(RESULTS_DIR / f"{record.name}_questions.csv", index=False)
        print(frame.round(3).to_string())
        return 0
    if args.stage in ("context", "fusion"):  # fusion: each of RETRIEVALS on the default chunks, at the budgets
        wanted = tuple(n for n in (args.contexts if args.stage == "context" else args.retrievals).split(",") if n)
        setups = RETRIEVALS if args.stage == "fusion" else CONTEXT_SETUPS
        setups = json.loads(args.setups) if args.setups else setups  # a named comparison of its own (--name)
        frame = context_stage(base, args.split, names, wanted, record, setups)
        write(record, frame)
        frame["set-up"] = frame["set-up"] + " | budget " + frame.budget.astype(str)
        for metric in ("answer in context", "tables and calendars", "prompt tokens"):
            print(f"\n{metric}\n{side_by_side(frame.to_dict('records'), metric).round(3).to_string()}")
        return 0
    setups = json.loads(args.setups) if args.setups else {"old defaults": OLD_DEFAULTS, "settings": {}}
    setups = BUDGETS if args.stage == "budget" and not args.setups else setups
    split = "test" if args.stage == "final" else "dev"
    extra = {"split": split, "limit": args.limit, "setups": setups}
    frame = answer_stage(base, setups, split, args.limit, names, record, extra)
    for metric in ("F1", "EM", "answer in context", "s / answer"):
        print(f"\n{metric} ({split})\n{side_by_side(frame.to_dict('records'), metric).to_string()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = ["CHUNK_KEYS", "OLD_DEFAULTS", "main"]
