"""The ablation ladder: closed book → dense → hybrid → + rerank → + multi-query → + follow-up rewriting, each row
answering the same gold questions, scored per question so `significance` can compare rows by paired bootstrap.
What it leaves out: the reader model (one per run; notebook 07 shows how to switch) and chunking (notebook 02).
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from helpers.corpus import Question
from helpers.corpus.questions import question_subset
from helpers.evaluation.bootstrap import paired_bootstrap
from helpers.evaluation.ragas_eval import Judge, non_llm_scores
from helpers.generation.answer import Answer, strip_citations
from helpers.generation.scores import run_answers, summarize
from helpers.llm.cache import CachedCompleter
from helpers.metrics.answers import squad_scores
from helpers.metrics.retrieval import evaluate_retrieval
from helpers.query import FollowUpRewriter, MultiQueryRetriever
from helpers.rerank import Reranked
from helpers.retrieval import Retriever
from helpers.types import Hit

if TYPE_CHECKING:
    from helpers.pipeline import RAGPipeline

# How much each profile measures. ci: 1 question per category (seeded) and one faithfulness judgement.
# full: every test question; faithfulness on 8 seeded answers per row (each judgement is a slow LLM call,
# and notebook 08 shows how little the small judge's verdicts can be trusted).
BUDGETS = {
    "full": {"per_category": None, "faithfulness_per_row": 8, "faithfulness_rows": "all", "rubric": 30},
    "ci": {"per_category": 1, "faithfulness_per_row": 1, "faithfulness_rows": "last", "rubric": 2},
}
RECALL_K = 5


def profile_questions(questions: Sequence[Question], profile: str, seed: int = 0) -> list[Question]:
    """Every question in `full`; a seeded subset stratified by category in `ci`."""
    return question_subset(questions, BUDGETS[profile]["per_category"], seed)


class FollowUpQuery:
    """A retriever that searches a conversational question with its rewritten, standalone form."""

    def __init__(self, retriever: Retriever, rewriter: FollowUpRewriter, question: Question) -> None:
        self.retriever, self.rewriter, self.question = retriever, rewriter, question

    def retrieve(self, query: str, k: int, filters: dict | None = None) -> list[Hit]:
        """Search with the rewrite when the question has a history, else with `query` (the guarded text)."""
        return self.retriever.retrieve(
            self.rewriter.query(self.question) if self.question.history else query, k, filters
        )


class AtLeastK:
    """Memo for one rung: fetch max(k, RECALL_K) once per query and slice, so the answer (k = top_k) and the
    recall@5 pass share one retrieval (a cross-encoder reranking 20–80 candidates is the slow part)."""

    def __init__(self, retriever: Retriever) -> None:
        self.retriever, self.cache = retriever, {}

    def retrieve(self, query: str, k: int, filters: dict | None = None) -> list[Hit]:
        """The top k of one retrieval of max(k, RECALL_K) for this query."""
        key, n = (query, repr(sorted((filters or {}).items()))), max(k, RECALL_K)
        if key not in self.cache or self.cache[key][0] < n:
            self.cache[key] = (n, self.retriever.retrieve(query, n, filters))
        return self.cache[key][1][:k]


@dataclass
class Rung:
    """One row of the ladder: no retriever = closed book; `rewriter` makes follow-ups standalone first."""

    name: str
    retriever: Retriever | None = None
    rewriter: FollowUpRewriter | None = None
    paraphraser: CachedCompleter | None = None  # whose recorded model seconds count as this row's latency
    builds_on: str = ""  # the row this one extends, when it is not the row above (p-values compare with it)

    def retriever_for(self, question: Question) -> Retriever | None:
        """The retriever that answers this question (wrapped for follow-up rewriting when asked)."""
        if self.retriever is None or self.rewriter is None:
            return self.retriever
        return FollowUpQuery(self.retriever, self.rewriter, question)


def build_ladder(pipeline: RAGPipeline) -> tuple[list[Rung], list[str]]:
    """The rungs over the pipeline's index, and notes on what was decided (e.g. which reranker a row uses)."""
    settings = pipeline.settings
    hybrid_name = settings.retrieval.retriever if settings.retrieval.retriever.startswith("hybrid") else "hybrid_rrf"
    dense, hybrid = pipeline.make_retriever("dense"), pipeline.make_retriever(hybrid_name)
    rungs = [Rung("closed book"), Rung("dense", dense), Rung(f"hybrid ({hybrid_name})", hybrid)]
    # MaxSim needs no training and raised recall@5 on both dev sets (notebook 06); the fine-tuned cross-encoder
    # learnt nothing from the synthetic pairs, and the LLM reranker costs one reader pass per pair.
    name = settings.rerank.reranker if settings.rerank.reranker not in ("none", "finetuned", "llm") else "maxsim"
    reranker = pipeline.make_reranker(name)
    notes = [f"reranker: {name} (reranker = {settings.rerank.reranker!r} in the settings); the rows below keep it"]
    rungs.append(Rung(f"+ rerank ({name})", Reranked(hybrid, reranker, depth=settings.rerank.rerank_depth)))
    paraphraser = CachedCompleter.from_pipeline(pipeline)
    # the first stage for every version, then one rerank of the merged candidates (the CMU/LTI system's best)
    multi = MultiQueryRetriever(hybrid, paraphraser, reranker=reranker, depth=settings.rerank.rerank_depth)
    rungs.append(Rung("+ multi-query", multi, paraphraser=paraphraser))
    method = settings.query.followup_rewrite if settings.query.followup_rewrite != "none" else "keywords"
    rewriter = FollowUpRewriter(method, paraphraser if method == "llm" else None)
    rungs.append(Rung(f"+ follow-up rewriting ({method})", multi, rewriter, paraphraser))
    return rungs, notes


@dataclass
class AblationResult:
    """Per-question rows of every rung, plus the summary the notebook and the report show."""

    per_question: pd.DataFrame  # one row per (configuration, question)
    summary: pd.DataFrame  # helpers.generation.scores.summarize of each configuration
    judge: str = ""
    notes: list[str] = field(default_factory=list)
    builds_on: dict[str, str] = field(default_factory=dict)  # row -> the row it extends, if not the row above

    @property
    def configurations(self) -> list[str]:
        """Row names in ladder order."""
        return list(dict.fromkeys(self.per_question.configuration))

    def base_of(self, name: str) -> str:
        """The row `name` extends: the row above unless the ladder says otherwise."""
        names = self.configurations
        return self.builds_on.get(name) or names[max(names.index(name) - 1, 0)]

    def scores(self, name: str, metric: str) -> pd.Series:
        """One configuration's per-question `metric`, indexed by question id."""
        rows = self.per_question[self.per_question.configuration == name]
        return rows.set_index("id")[metric]

    def significance(self, metric: str = "f1", seed: int = 0) -> pd.DataFrame:
        """Paired bootstrap of each configuration against the row it builds on and against closed book."""
        names, rows = self.configurations, []
        for i, name in enumerate(names[1:], start=1):
            for label, other in (("previous row", self.base_of(name)), ("closed book", names[0])):
                if label == "closed book" and i == 1:
                    continue  # the row above is closed book already
                a, b = self.scores(other, metric).align(self.scores(name, metric))
                result = paired_bootstrap(a.to_numpy(), b.to_numpy(), seed=seed)
                rows.append({"configuration": name, "against": other, "metric": metric, **vars(result)})
        return pd.DataFrame(rows)

    def table(self, metric: str = "f1") -> pd.DataFrame:
        """The ablation table: EM, F1, recall@5, faithfulness, latency, and p-values of the F1 improvement."""
        grouped = self.per_question.groupby("configuration", sort=False)
        table = pd.DataFrame({
            "questions": grouped.size(),
            "EM": grouped.em.mean(),
            "F1": grouped.f1.mean(),
            f"recall@{RECALL_K}": grouped[f"recall@{RECALL_K}"].mean(),
            "faithfulness": grouped.faithfulness.mean(),
            "judged": grouped.faithfulness.count(),
            "faithfulness judge": self.judge,
            "refusal accuracy": self.summary["refusal accuracy"],
            "s / question": grouped.latency.mean(),
        })  # fmt: skip
        sig = self.significance(metric)
        previous = sig.groupby("configuration", sort=False).head(1)  # the first comparison is the row above
        baseline = sig[sig.against == self.configurations[0]]
        table["builds on"] = pd.Series({name: self.base_of(name) for name in self.configurations[1:]})
        table[f"p vs previous ({metric.upper()})"] = previous.set_index("configuration").p_one_sided
        table[f"p vs closed book ({metric.upper()})"] = baseline.set_index("configuration").p_one_sided
        return table.loc[self.configurations]


def run_rung(pipeline: RAGPipeline, rung: Rung, questions: Sequence[Question], progress: bool = True) -> pd.DataFrame:
    """Answer and score every question in one configuration; one row per question."""
    kept: dict[str, tuple[Answer, float]] = {}
    if rung.retriever is not None:
        rung = replace(rung, retriever=AtLeastK(rung.retriever))

    def answer(question: Question) -> Answer:
        before = len(rung.paraphraser.call_seconds) if rung.paraphraser else 0
        retriever = rung.retriever_for(question)
        if retriever is None:
            result = pipeline.ask(question.question, closed_book=True)
        else:
            result = pipeline.ask(question.question, retriever=retriever, mode="short")
        extra = sum(rung.paraphraser.call_seconds[before:]) if rung.paraphraser else 0.0
        # the latency: retrieval as measured + the real model time of the answer and of any paraphrasing
        kept[question.id] = (result, result.timings.get("retrieve", 0.0) + result.timings.get("generate", 0.0) + extra)
        return result

    rows = run_answers(questions, answer, desc=rung.name, progress=progress)
    extras = []
    for question in questions:
        result, latency = kept[question.id]
        text = strip_citations(result.text) if result.status == "answered" else ""
        squad = squad_scores(text, question.answers) if question.answer else {}
        contexts = [hit.text for hit in result.hits]
        ragas = non_llm_scores(text, question.answers, contexts, [e.quote for e in question.evidence]) if squad else {}
        extras.append({"precision": squad.get("precision", np.nan), "recall": squad.get("recall", np.nan),
                       "latency": latency, "contexts": contexts, **ragas})  # fmt: skip
    rows = pd.concat([rows, pd.DataFrame(extras)], axis=1)
    if rung.retriever is not None:
        start = time.perf_counter()
        retrieval = evaluate_retrieval(
            questions,
            lambda q: (rung.retriever_for(q) or rung.retriever).retrieve(q.question, RECALL_K),
            ks=(RECALL_K,),
        ).per_question
        rows = rows.merge(retrieval[["id", f"recall@{RECALL_K}"]], on="id", how="left")
        rows.attrs["retrieval seconds"] = time.perf_counter() - start
    else:
        rows[f"recall@{RECALL_K}"] = np.nan
    rows.insert(0, "configuration", rung.name)
    return rows


def faithfulness_sample(questions: Sequence[Question], n: int, seed: int = 0) -> list[str]:
    """A seeded sample of answerable question ids to judge (the same ids in every configuration)."""
    answerable = [q.id for q in questions if q.answerable and q.evidence]
    return sorted(random.Random(seed).sample(answerable, min(n, len(answerable))))


def judge_faithfulness(
    rows: pd.DataFrame, questions: Sequence[Question], judge: Judge, ids: Sequence[str]
) -> pd.Series:
    """ragas faithfulness of the sampled, answered rows (NaN elsewhere); cached judgements are free."""
    texts = {q.id: q.question for q in questions}
    values = pd.Series(np.nan, index=rows.index)
    for index, row in rows[rows.id.isin(ids) & (rows.status == "answered")].iterrows():
        values[index] = judge.faithfulness(texts[row.id], strip_citations(str(row.answer)), row.contexts)
    return values


def run_ablation(
    pipeline: RAGPipeline, questions: Sequence[Question], judge: Judge | None = None, progress: bool = True,
    rungs: Sequence[Rung] | None = None, notes: Sequence[str] = (),
) -> AblationResult:  # fmt: skip
    """Every rung over the same questions; faithfulness judged on the profile's seeded sample."""
    settings = pipeline.settings
    budget = BUDGETS[settings.profile]
    if rungs is None:
        rungs, built_notes = build_ladder(pipeline)
        notes = [*notes, *built_notes]
    judge = judge or Judge(settings)
    ids = faithfulness_sample(questions, budget["faithfulness_per_row"], settings.seed)
    judged_rows = [r.name for r in rungs if r.retriever is not None]
    judged_rows = judged_rows[-1:] if budget["faithfulness_rows"] == "last" else judged_rows
    runs = {}
    for rung in rungs:
        rows = run_rung(pipeline, rung, questions, progress)
        judged = rung.name in judged_rows
        rows["faithfulness"] = judge_faithfulness(rows, questions, judge, ids) if judged else np.nan
        runs[rung.name] = rows
    judged_note = f"faithfulness judged by {judge.name} on {len(ids)} seeded question(s) in: {', '.join(judged_rows)}"
    notes = [*notes, judged_note]
    builds_on = {r.name: r.builds_on for r in rungs if r.builds_on}
    return AblationResult(pd.concat(runs.values(), ignore_index=True), summarize(runs), judge.name, notes, builds_on)


def rubric_rows(result: AblationResult, questions: Sequence[Question], n: int, seed: int = 0) -> list[dict[str, str]]:
    """A seeded sample of n answered, answerable questions of the last configuration, ready for `RubricJudge`."""
    by_id = {q.id: q for q in questions}
    last = result.per_question[result.per_question.configuration == result.configurations[-1]]
    answered = [row for row in last.itertuples() if row.status == "answered" and by_id[row.id].answerable]
    picked = random.Random(seed).sample(answered, min(n, len(answered)))
    return [
        {"id": row.id, "question": by_id[row.id].question, "reference": by_id[row.id].answer, "answer": row.answer}
        for row in sorted(picked, key=lambda r: r.id)
    ]


def answer_relevancy_table(
    result: AblationResult, questions: Sequence[Question], judge: Judge, n: int, seed: int = 0
) -> pd.DataFrame:
    """ragas answer relevancy of the last configuration on the faithfulness sample (n answers), judge named."""
    by_id = {q.id: q for q in questions}
    ids = faithfulness_sample(questions, n, seed)
    last = result.per_question[result.per_question.configuration == result.configurations[-1]]
    rows = []
    for row in last[last.id.isin(ids) & (last.status == "answered")].itertuples():
        text, question = strip_citations(str(row.answer)), by_id[row.id]
        relevancy = judge.answer_relevancy(question.question, text)
        rows.append({"id": row.id, "question": question.question, "answer": text, "reference": question.answer,
                     "faithfulness": row.faithfulness, "answer relevancy": relevancy, "judge": judge.name})  # fmt: skip
    return pd.DataFrame(rows)
