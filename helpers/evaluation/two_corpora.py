"""Choosing defaults on two corpora, the course gold set and real university documents: a default tuned on one can
lose on the other, so set-ups are indexed per corpus (`indexed`), tabled side by side and picked only when they
lose on neither (`pick_default`, `pick_by_questions`); the rest reads `bench/realworld.py`'s results.
What it leaves out: LLM judges (notebook 08) and the test splits' use for tuning — tune on `dev`, report `test`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from helpers.config import Settings, get_settings, value_of
from helpers.corpus import Question, load_gold
from helpers.corpus.pinned import REALWORLD, PinnedSet
from helpers.evaluation.bootstrap import paired_bootstrap

if TYPE_CHECKING:
    from helpers.pipeline import RAGPipeline

# What a set-up may change: chunking (needs its own index) and everything after it (does not).
CHUNK_KEYS = ("chunk_strategy", "chunk_size", "chunk_overlap")


@dataclass(frozen=True)
class Corpus:
    """A folder of documents and one split of its questions."""

    name: str
    folder: Path
    questions: tuple[Question, ...]
    expansion: bool = False  # the course synonym table only knows the course's words

    @property
    def answerable(self) -> list[Question]:
        """The questions that have a reference answer and evidence."""
        return [q for q in self.questions if q.answerable and q.category not in ("injection", "unanswerable")]


def course_corpus(split: str = "dev", settings: Settings | None = None) -> Corpus:
    """The course documents and their gold questions (injections left out: the guard is measured elsewhere)."""
    questions = tuple(q for q in load_gold(split) if q.category != "injection")
    return Corpus("course", Path((settings or get_settings()).paths.corpus_dir), questions, expansion=True)


def pinned_corpus(pinned: PinnedSet, name: str, split: str = "dev", settings: Settings | None = None) -> Corpus | None:
    """A pinned document set and one split of its questions, or None when it has not been rebuilt (its README)."""
    settings = settings or get_settings()
    return Corpus(name, pinned.docs_dir(settings), tuple(pinned.load(split))) if pinned.available(settings) else None


def realworld_corpus(split: str = "dev", settings: Settings | None = None) -> Corpus | None:
    """The real-document set (course_data/realworld/README.md)."""
    return pinned_corpus(REALWORLD, "real", split, settings)


def tuning_settings(corpus: Corpus, base: Settings | None = None, **changes: Any) -> Settings:
    """The settings of one set-up on one corpus: its own collection per chunking, apart from the course index."""
    settings = (base or get_settings()).replace(**changes)
    chunking = "_".join(str(value_of(settings, key)) for key in CHUNK_KEYS).replace("-", "m")
    chunking += "_ctx" if settings.chunking.chunk_context else ""  # other embedded text: an index of its own
    chunking += "" if settings.chunking.chunk_records else "_norec"  # long records not keyed: other chunks
    if settings.embedding.embed_backend not in ("onnx", "local"):  # other vectors of the same size: not MiniLM's
        chunking += f"_{settings.embedding.embed_backend}"
    from helpers.store import class_collection

    collection = class_collection(f"tune_{corpus.name}_{chunking}", settings.store)
    return settings.replace(
        corpus_dir=corpus.folder,
        collection=collection,
        data_dir=settings.paths.data_dir / "tuning" / collection,  # one embedded folder each: several open at once
        query_expansion=settings.retrieval.query_expansion and corpus.expansion,
    )


_OPEN: dict[tuple[str, str], RAGPipeline] = {}


def indexed(corpus: Corpus, settings: Settings, progress: bool = False) -> RAGPipeline:
    """A pipeline over the corpus chunked as the settings say; built once per process, then reused."""
    from helpers.pipeline import RAGPipeline

    key = (str(settings.qdrant_location), settings.store.collection)
    if key not in _OPEN:
        pipeline = RAGPipeline(settings)
        pipeline.ingest(corpus.folder, progress=progress)
        _OPEN[key] = pipeline
    pipeline = _OPEN[key]
    reader = ("llm_backend", "llm_model", "llm_gguf", "openai_model", "llm_context_tokens")
    if "llm" in pipeline.__dict__ and any(value_of(pipeline.settings, k) != value_of(settings, k) for k in reader):
        pipeline.__dict__.pop("llm").close()  # another reader: load it, never answer with the old one
    pipeline.settings = settings  # same index, other retrieval or generation settings
    pipeline.__dict__.pop("retriever", None)
    return pipeline


def close_all() -> None:
    """Close every pipeline `indexed` opened (the embedded store admits one process at a time)."""
    while _OPEN:
        _OPEN.popitem()[1].close()


def reader_passages(pipeline: RAGPipeline, question: str, hits: Sequence[Any] | None = None) -> list[Any]:
    """The hits the reader would get: the top-k (given, or retrieved), cut to the context budget as the prompt is."""
    from helpers.generation import TokenBudget, fit_context, fixed_prompt_tokens

    settings = pipeline.settings
    cleaned = pipeline.check(question).question
    if hits is None:
        hits = pipeline.retrieve(cleaned, settings.retrieval.top_k)
    fixed = fixed_prompt_tokens(cleaned, settings.generation.worked_examples)
    return fit_context(list(hits)[: settings.retrieval.top_k], TokenBudget.from_settings(settings).context_room(fixed))


def side_by_side(rows: Sequence[dict[str, Any]], metric: str, index: str = "set-up") -> pd.DataFrame:
    """One row per set-up, one column per corpus for `metric` (rows need `corpus`, `index` and `metric`)."""
    return pd.DataFrame(rows).pivot_table(index=index, columns="corpus", values=metric, sort=False).round(3)


def side_by_side_metrics(rows: Sequence[dict[str, Any]], metrics: Sequence[str], index: str = "set-up") -> pd.DataFrame:
    """`side_by_side` for several metrics at once: one group of corpus columns per metric."""
    return pd.concat({metric: side_by_side(rows, metric, index) for metric in metrics}, axis=1)


def pick_default(table: pd.DataFrame, current: str, tolerance: float = 0.0) -> str:
    """The set-up with the best mean over corpora among those that lose on no corpus to `current`."""
    floor = table.loc[current] - tolerance
    safe = table[(table >= floor).all(axis=1)]
    return str(safe.mean(axis=1).idxmax())


def questions_lost(table: pd.DataFrame, current: str, questions: Mapping[str, int]) -> pd.DataFrame:
    """Per set-up and corpus: how many questions fewer than `current` it answers (0 when as many or more);
    `table` holds shares (as `side_by_side` makes), `questions` how many questions each corpus's share is of."""
    counts = pd.Series({corpus: questions[corpus] for corpus in table.columns})
    return ((table.loc[current] - table) * counts).round().clip(lower=0).astype(int)


def pick_by_questions(table: pd.DataFrame, current: str, questions: Mapping[str, int], max_lost: int = 1) -> str:
    """The best mean over corpora among set-ups answering at most `max_lost` fewer questions than `current`."""
    lost = questions_lost(table, current, questions)
    return str(table[(lost <= max_lost).all(axis=1)].mean(axis=1).idxmax())


def retrieval_label(settings: Settings) -> str:
    """The row name `bench.realworld` gives these retrieval settings in its sweep ("weighted 0.5 pool 50")."""
    r = settings.retrieval
    if r.retriever in ("dense", "bm25"):
        return r.retriever
    name = f"weighted {r.hybrid_alpha} pool {r.hybrid_pool}" if r.retriever == "hybrid" else f"rrf pool {r.hybrid_pool}"
    return name if r.bm25_tokenizer == "kit" else f"{name} {r.bm25_tokenizer}"


def sweep_questions(rows: pd.DataFrame, **where: Any) -> dict[str, int]:
    """How many questions each corpus's rows of a sweep (`sweep_results`) were scored on, keeping `where`."""
    for key, value in where.items():
        rows = rows[rows[key] == value]
    return {str(corpus): int(count) for corpus, count in rows.groupby("corpus")["questions"].max().items()}


def sweep_results(stage: str, folder: Path, exact: bool = False) -> pd.DataFrame:
    """The rows of every `realworld_<stage>*.json` in `folder` (`exact`: that name only), with when measured."""
    frames = []
    for path in sorted(Path(folder).glob(f"realworld_{stage}{'' if exact else '*'}.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        frame = pd.DataFrame(record["rows"])
        frame["measured"] = f"{record['date'][:10]}, load {record['machine']['load_average_start'][0]:.1f}"
        frames.append(frame)
    if not frames:
        raise FileNotFoundError(f"no results of `python -m bench.realworld {stage}` under {folder}")
    return pd.concat(frames, ignore_index=True)


def period_table(folder: Path, split: str = "test") -> pd.DataFrame:
    """Answer in context without and with time-aware retrieval, per corpus and kind of question, on one split."""
    record = json.loads((Path(folder) / "versioned_retrieval.json").read_text(encoding="utf-8"))
    rows = pd.DataFrame(record["rows"])
    rows = rows[(rows.split == split) & ~rows["set-up"].str.startswith("rescored")]  # the lesson: years and keys
    table = rows.pivot_table(index=["corpus", "kind"], columns="set-up", values="answer in context", sort=False)
    return table.assign(questions=rows.groupby(["corpus", "kind"], sort=False).questions.first()).round(3)


def sweep_table(rows: pd.DataFrame, metric: str, index: str | list[str], **where: Any) -> pd.DataFrame:
    """A sweep's rows (`sweep_results`) as one row per `index` value and one column per corpus, keeping `where`."""
    for key, value in where.items():
        rows = rows[rows[key] == value]
    if rows.empty:
        raise ValueError(f"no rows of the sweep match {where}")
    return rows.pivot_table(index=index, columns="corpus", values=metric, sort=False).round(3)


def plot_tradeoff(rows: pd.DataFrame, x: str, y: str, line: str, title: str = "") -> Any:
    """One panel per corpus: `y` against `x`, one line per value of `line` (e.g. chunking over k)."""
    import matplotlib.pyplot as plt

    names = list(dict.fromkeys(rows["corpus"]))
    fig, axes = plt.subplots(1, len(names), figsize=(5.5 * len(names), 3.8), sharey=True, squeeze=False)
    for ax, name in zip(axes[0], names, strict=True):
        for label, group in rows[rows["corpus"] == name].groupby(line, sort=False):
            group = group.sort_values(x)
            ax.plot(group[x], group[y], marker="o", label=str(label))
        ax.set_title(f"{name} (dev)")
        ax.set_xlabel(x)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel(y)
    axes[0][-1].legend(fontsize=8, loc="lower right")
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def plot_answer_tradeoff(rows: pd.DataFrame, x: str = "s / answer", y: str = "F1") -> Any:
    """One panel per corpus: each answer set-up as a point, `y` against `x` (the reader's quality and its wait)."""
    import matplotlib.pyplot as plt

    names = list(dict.fromkeys(rows["corpus"]))
    fig, axes = plt.subplots(1, len(names), figsize=(5.5 * len(names), 3.8), sharey=True, squeeze=False)
    for ax, name in zip(axes[0], names, strict=True):
        part = rows[rows["corpus"] == name]
        ax.scatter(part[x], part[y])
        for _, row in part.iterrows():
            ax.annotate(str(row["set-up"]), (row[x], row[y]), fontsize=8, xytext=(4, 4), textcoords="offset points")
        ax.set_title(f"{name} (dev sample)")
        ax.set_xlabel(x)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel(y)
    fig.tight_layout()
    return fig


def context_at(rows: pd.DataFrame, max_prompt_tokens: float) -> pd.DataFrame:
    """Per set-up and corpus (`bench.realworld context` rows): answer in context, table questions' share and prompt
    tokens at the largest budget whose mean prompt stays within `max_prompt_tokens`."""
    within = rows[rows["prompt tokens"] <= max_prompt_tokens]
    best = within.sort_values("budget").groupby(["set-up", "corpus"], sort=False).tail(1)
    table = best.pivot(index="set-up", columns="corpus", values=["answer in context", "tables and calendars",
                                                               "prompt tokens", "budget"])  # fmt: skip
    table.columns = [f"{metric} ({corpus})" for metric, corpus in table.columns]
    found = [column for column in table.columns if column.startswith("answer in context")]
    return table.assign(mean=table[found].mean(axis=1)).sort_values("mean", ascending=False)


def context_leads(rows: pd.DataFrame, reference: str) -> pd.Series:
    """Per set-up: at how many budgets its answer in context is above `reference`'s on every corpus at once."""
    found = rows.pivot_table(index="set-up", columns=["corpus", "budget"], values="answer in context")
    ahead = (found.sub(found.loc[reference], axis=1) > 0).T.groupby(level="budget").all().T
    return ahead.sum(axis=1).drop(reference).sort_values(ascending=False).rename("budgets ahead on every corpus")


def budget_against_setups(rows: pd.DataFrame, reference: str) -> pd.DataFrame:
    """Per corpus: the rise of `reference` from the smallest budget to the largest, against the widest set-up gap."""
    found = rows.pivot_table(index="set-up", columns=["corpus", "budget"], values="answer in context")
    table = {}
    for corpus in found.columns.levels[0]:
        by_budget = found[corpus]
        line = by_budget.loc[reference]
        table[corpus] = {"rise of the reference": line.iloc[-1] - line.iloc[0],
                         "widest gap at one budget": (by_budget.max() - by_budget.min()).max(),
                         "budgets": f"{by_budget.columns[0]}–{by_budget.columns[-1]}"}  # fmt: skip
    return pd.DataFrame.from_dict(table, orient="index")


def budget_verdict(rows: pd.DataFrame, tolerance: float = 0.02) -> pd.DataFrame:
    """Per set-up: F1 and prompt tokens on each corpus, and whether its F1 is within `tolerance` of the best on
    every corpus; `attrs["chosen"]` is the one with the fewest prompt tokens among those (the context budget)."""
    table = rows.pivot_table(index="set-up", columns="corpus", values=["F1", "prompt tokens"], sort=False)
    verdict = pd.DataFrame(index=table.index)
    for corpus in table["F1"].columns:
        verdict[f"F1 {corpus}"] = table["F1"][corpus]
        verdict[f"prompt tokens {corpus}"] = table["prompt tokens"][corpus]
    best = table["F1"].max()
    verdict[f"within {tolerance} of the best F1"] = (table["F1"] >= best - tolerance).all(axis=1)
    verdict["mean prompt tokens"] = table["prompt tokens"].mean(axis=1)
    keep = verdict[verdict[f"within {tolerance} of the best F1"]]
    verdict.attrs["chosen"] = str(keep["mean prompt tokens"].idxmin()) if len(keep) else ""
    return verdict.round(3)


def reader_verdict(rows: pd.DataFrame, small: str, large: str, max_slowdown: float = 2.5) -> pd.DataFrame:
    """Per corpus: both readers' F1 and seconds per answer, the slowdown, and whether the larger one wins: a higher
    F1 at most `max_slowdown` times slower (docs/decisions.md); `small` and `large` are two set-ups of `rows`."""
    table = rows.pivot_table(index="corpus", columns="set-up", values=["F1", "s / answer"], sort=False)
    f1, seconds = table["F1"], table["s / answer"]
    verdict = pd.DataFrame({f"F1 {small}": f1[small], f"F1 {large}": f1[large],
                            f"s {small}": seconds[small], f"s {large}": seconds[large]})  # fmt: skip
    verdict["slowdown"] = verdict[f"s {large}"] / verdict[f"s {small}"]
    verdict["larger reader wins"] = (verdict[f"F1 {large}"] > verdict[f"F1 {small}"]) & (
        verdict["slowdown"] <= max_slowdown
    )
    return verdict.round(3)


def answer_rows(stage: str, folder: Path, exact: bool = False) -> pd.DataFrame:
    """Every scored answer of `realworld_<stage>*_answers.csv` in `folder` (with `exact`: that one name only)."""
    paths = sorted(Path(folder).glob(f"realworld_{stage}{'' if exact else '*'}_answers.csv"))
    if not paths:
        raise FileNotFoundError(f"no answers of `python -m bench.realworld {stage}` under {folder}")
    frame = pd.concat([pd.read_csv(path) for path in paths], ignore_index=True)
    return frame.drop_duplicates(["corpus", "set-up", "id"])


def paired_f1(answers: pd.DataFrame, baseline: str, system: str) -> pd.DataFrame:
    """Per corpus: F1 of `system` minus `baseline` on the questions both answered, its 95 % interval and p-values."""
    rows = {}
    for corpus, part in answers[answers.kind == "answerable"].groupby("corpus", sort=False):
        wide = part.pivot_table(index="id", columns="set-up", values="f1").dropna(subset=[baseline, system])
        result = paired_bootstrap(wide[baseline].to_numpy(), wide[system].to_numpy())
        rows[corpus] = {"questions": result.n, "F1 difference": result.mean_diff, "95% CI low": result.ci_low,
                        "95% CI high": result.ci_high, "p (system not better)": result.p_one_sided,
                        "p (two-sided)": result.p_two_sided}  # fmt: skip
    return pd.DataFrame.from_dict(rows, orient="index").round(3)


def changed_answers(answers: pd.DataFrame, baseline: str, system: str) -> pd.DataFrame:
    """The answerable questions whose answer differs between two set-ups: both answers and their F1, by id."""
    answerable = answers[answers.kind == "answerable"].set_index("id")
    old, new = (answerable[answerable["set-up"] == side][["answer", "f1"]] for side in (baseline, system))
    both = old.merge(new, left_index=True, right_index=True, suffixes=(f" ({baseline})", f" ({system})"))
    return both[both[f"answer ({baseline})"] != both[f"answer ({system})"]]


def paired_runs(runs: Mapping[str, str], folder: Path) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    """Runs of `python -m bench.realworld paired` ({split: results name}, the baseline's answers first): the paired
    F1 of each with the answer in context on either side, and each split's answerable questions whose answer changed."""
    answers = {split: answer_rows(name, folder, exact=True) for split, name in runs.items()}
    tables, changed = {}, {}
    for split, frame in answers.items():
        baseline, system = frame["set-up"].unique()
        table = paired_f1(frame, baseline, system)
        in_context = frame[frame.kind == "answerable"].groupby(["corpus", "set-up"]).in_context.mean().unstack()
        table["in context before"], table["in context after"] = in_context[baseline], in_context[system]
        tables[f"{split}: {system}"] = table.round(3)
        changed[split] = changed_answers(frame, baseline, system)
    return pd.concat(tables), changed


REFUSED = ("refused", "no_context")
SUPPORT_FLOORS = (0.25, 0.5, 0.75, 1.0)  # the grounding check's floors `refusal_rules` compares


def with_support_floor(answers: pd.DataFrame, floor: float) -> pd.DataFrame:
    """The answers as if every answer with less than `floor` of its words in the context (`support`) were refused."""
    frame = answers.copy()
    unsupported = ~frame.status.isin(REFUSED) & (frame.support < floor)
    frame.loc[unsupported, "status"] = "refused"
    frame.loc[unsupported & (frame.kind == "answerable"), ["em", "f1"]] = 0.0
    return frame


def question_f1(answers: pd.DataFrame) -> pd.Series:
    """F1 per question the SQuAD 2.0 way: an answerable one scores its answer's F1 (0 when refused), an
    unanswerable one 1 when refused and 0 when answered. Other kinds (injections) are left out."""
    kept = answers[answers.kind.isin(["answerable", "unanswerable"])]
    refused = kept.status.isin(REFUSED)
    return kept.f1.where(kept.kind == "answerable", refused.astype(float)).fillna(0.0)


def refusal_rules(answers: pd.DataFrame, prompted: str, forced: str, floors: Sequence[float]) -> pd.DataFrame:
    """Per corpus and rule (prompted, forced, forced with each support floor): F1s and both refusal rates."""
    rules = {prompted: answers[answers["set-up"] == prompted], forced: answers[answers["set-up"] == forced]}
    for floor in floors:
        rules[f"{forced}, refused below support {floor:g}"] = with_support_floor(rules[forced], floor)
    rows = []
    for rule, frame in rules.items():
        for corpus, part in frame.groupby("corpus", sort=False):
            answerable, unanswerable = part[part.kind == "answerable"], part[part.kind == "unanswerable"]
            rows.append({
                "corpus": corpus, "rule": rule, "questions": len(question_f1(part)),
                "F1 (all questions)": question_f1(part).mean(), "F1 (answerable)": answerable.f1.fillna(0).mean(),
                "refused (answerable)": answerable.status.isin(REFUSED).mean(),
                "refused (unanswerable)": unanswerable.status.isin(REFUSED).mean(),
            })  # fmt: skip
    return pd.DataFrame(rows)
