"""Command line: `python -m helpers ask "question"`, `prepare`, `config`, `serve`, `train-reranker`, `report`, …

Each command is a thin wrapper over the package (the top of the dependency rule: it may import anything).
What it leaves out: the logic itself, and interactive use (the notebooks and the app)."""

from __future__ import annotations

import argparse
import sys
import time
from contextlib import closing

from helpers.classroom.site import SiteError
from helpers.classroom.student import ClassroomError
from helpers.config import (
    CONFIG_ENV,
    ENVIRONMENT,
    LOCAL_LLMS,
    ConfigError,
    Settings,
    get_settings,
    show,
    value_of,
)


def _prepare(args: argparse.Namespace) -> int:
    """Join and verify the local model, then build (or refresh) the course index."""
    from helpers.models import llm_gguf_path
    from helpers.pipeline import RAGPipeline

    settings = get_settings()
    start = time.perf_counter()
    if settings.llm.llm_backend == "local":
        path = llm_gguf_path(settings)
        print(f"model ready: {path} ({time.perf_counter() - start:.1f} s)")
    with closing(RAGPipeline(settings)) as pipeline:
        # export the packaged model once now, not at a student's first question
        if settings.embedding.embed_backend == "onnx":
            start = time.perf_counter()
            pipeline.embedder.load()
            print(f"embedder ready: {pipeline.embedder.model_id} ({time.perf_counter() - start:.1f} s)")
        print(f"course index: {pipeline.ingest(progress=not args.quiet)}")
    return 0


def _ask(args: argparse.Namespace) -> int:
    """Answer one question with citations and timings."""
    from helpers.pipeline import RAGPipeline

    with closing(RAGPipeline(get_settings())) as pipeline:
        if pipeline.store.count() == 0:
            print("The course index is empty; building it first (python -m helpers prepare) …", file=sys.stderr)
            pipeline.ingest(progress=False)
        answer = pipeline.ask(" ".join(args.question), k=args.k)
        print(answer)
        print(f"model: {pipeline.llm.name}; {answer.prompt_tokens} prompt + {answer.completion_tokens} answer tokens")
    return 0


def _train_reranker(args: argparse.Namespace) -> int:
    """Fine-tune the kit's MiniLM cross-encoder on LLM-written questions (a few minutes on CPU)."""
    from helpers.pipeline import RAGPipeline
    from helpers.rerank.finetune import train_from_chunks, training_info
    from helpers.retrieval.base import stored_chunks

    settings = get_settings()
    # the chunks, read once; the store is closed again at once (embedded Qdrant allows one process)
    with closing(RAGPipeline(settings)) as pipeline:
        if pipeline.store.count() == 0:
            pipeline.ingest(progress=True)
        chunks, _ = stored_chunks(pipeline.store)
    folder = train_from_chunks(
        chunks, settings, questions=args.questions, negatives=args.negatives, epochs=args.epochs, cloze=args.cloze
    )
    info = training_info(folder)
    print(f"reranker ready: {folder}")
    print(f"{info['pairs']} pairs, trained in {info['seconds']} s, {info['size_mb']} MB on disk")
    return 0


def _eval(args: argparse.Namespace) -> int:
    """Index a folder, answer its questions in the chosen configurations, print the table and the rows' file."""
    from helpers.byod import evaluate_questions, ingest_folder
    from helpers.byod.evaluate import CONFIGS
    from helpers.corpus.questions import load_questions

    questions = load_questions(args.questions)  # bad files fail here, before any model loads
    configs = [name.strip() for name in args.configs.split(",") if name.strip()]
    if not configs or set(configs) - set(CONFIGS):
        print(f"error: --configs takes a comma-separated list from: {', '.join(CONFIGS)}", file=sys.stderr)
        return 2
    with closing(ingest_folder(args.docs, progress=not args.quiet)) as docs:
        print(docs)
        _print_eval_settings(docs.pipeline.settings, configs)
        result = evaluate_questions(docs.pipeline, questions, args.limit, progress=not args.quiet, configs=configs)
    print(f"reranker: {result.reranker_note}")
    print(result.table.round(3).to_string())
    dated = f"eval_{docs.collection}_{time.strftime('%Y%m%d-%H%M%S')}.csv"
    out = args.out or docs.pipeline.settings.paths.data_dir / dated
    print(f"per-question results: {result.save_rows(out)}")
    return 0


EVAL_KEYS = (
    "chunk_strategy", "chunk_size", "chunk_overlap", "embed_model", "retriever", "hybrid_alpha", "hybrid_pool",
    "top_k", "context_tokens", "query_expansion", "refusal_threshold", "reranker", "rerank_depth", "llm_model",
)  # fmt: skip


def _print_eval_settings(settings: Settings, configs: list[str]) -> None:
    """The settings an evaluation runs with, so a printed table can be reproduced."""
    values = ", ".join(f"{key}={value_of(settings, key)}" for key in EVAL_KEYS)
    print(f"configurations: {', '.join(configs)}\nsettings: {values}; llm: {settings.llm.name}")


def _report(args: argparse.Namespace) -> int:
    """Run the full evaluation (profile full, gold test split) and write the dated report under reports/."""
    from helpers.evaluation.report import run_full_evaluation

    for kind, path in run_full_evaluation(progress=not args.quiet).items():
        print(f"{kind}: {path}")
    return 0


def _make_questions(args: argparse.Namespace) -> int:
    """Write question–answer pairs about a folder with the local LLM, filter them, save the kept ones as JSONL."""
    from collections import Counter

    from helpers.testset import QAWriter, apply_filters, corpus_chunks, sample_chunks, save_jsonl

    chunks = corpus_chunks(args.docs, progress=not args.quiet)
    if not chunks:
        print(f"error: no readable documents in {args.docs}", file=sys.stderr)
        return 1
    with closing(QAWriter(style=args.style)) as writer:
        pairs = apply_filters(writer.write_all(sample_chunks(chunks, args.n, seed=args.seed), progress=not args.quiet))
    kept = [p for p in pairs if p.kept]
    rejected = Counter(reason for p in pairs for reason in p.reasons)
    print(f"{len(pairs)} pairs written from {len(chunks)} chunks; {len(kept)} kept by the filters")
    for reason, count in rejected.most_common():
        print(f"  rejected ({reason}): {count}")
    print(
        f"saved: {save_jsonl(kept, args.out)}  (review it, then: python -m helpers eval --docs {args.docs} "
        f"--questions {args.out})"
    )
    return 0


def _student_version(args: argparse.Namespace) -> int:
    """Write the student notebooks (solutions stubbed, outputs cleared) into a folder."""
    from helpers.classroom import write_student_version

    written = write_student_version(args.out)
    print(f"{len(written)} student notebooks written to {args.out} (solutions replaced by stubs, outputs cleared)")
    return 0


def _nbgrader_course(args: argparse.Namespace) -> int:
    """Write an nbgrader course folder (source/<assignment>/, nbgrader_config.py) from the instructor notebooks."""
    from helpers.classroom import write_course

    wanted = [name.strip() for name in args.notebooks.split(",") if name.strip()] if args.notebooks else None
    written = write_course(args.course, wanted, assignment=args.assignment)
    assignments = sorted({path.parent.name for path in written})
    print(f"{len(written)} notebooks written to {args.course}/source/ as the assignments: {', '.join(assignments)}")
    print(f"next: cd {args.course} && nbgrader generate_assignment {assignments[0]}  (then autograde, formgrade)")
    return 0


def _leaderboard(args: argparse.Namespace) -> int:
    """Print the class leaderboard: every student's capstone row under a folder, best test F1 first."""
    from helpers.classroom.leaderboard import collect_leaderboard

    try:
        table = collect_leaderboard(args.folder)
    except FileNotFoundError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(table.to_string(index=False) if len(table) else f"no leaderboard.csv under {args.folder}")
    if args.out:
        table.to_csv(args.out, index=False)
        print(f"saved: {args.out}")
    return 0


def _course_site(args: argparse.Namespace) -> int:
    """Render the executed notebooks and the course map to static HTML (scripts/render.sh executes them first)."""
    from helpers.classroom.site import FAILED, build_site

    pages = build_site(args.executed, args.out)
    for page in pages:
        seconds = f" ({page.run['seconds']} s)" if page.run.get("seconds") is not None else ""
        notes = page.notes if page.state != "not executed" else []  # the same line on every page not run
        print(f"{page.lesson.page}: {page.state}{seconds}" + "".join(f"\n  {note}" for note in notes))
    failed = [page.lesson.source.name for page in pages if page.state in FAILED]
    print(f"the course map: {args.out}/index.html ({len(pages)} pages)")
    if failed:
        print(f"error: {len(failed)} notebooks did not run through: {', '.join(failed)} (their pages say where)",
              file=sys.stderr)  # fmt: skip
        return 1
    return 0


def _serve(args: argparse.Namespace) -> int:
    """Serve the kit's GGUF to a class behind llama.cpp's OpenAI-compatible server, until Ctrl-C."""
    from helpers.llm.server import LlamaServer, address_for_students

    settings = get_settings().replace(llm_backend="local", **({"llm_model": args.model} if args.model else {}))
    print(f"starting {settings.llm.name} behind llama_cpp.server on {args.host}:{args.port} …", flush=True)
    server = LlamaServer(settings, args.host, args.port, args.threads, args.api_key)
    try:
        print(f"serving: {server.threads} threads, one answer at a time (the others queue); log: {server.log}")
        print("students set, before starting the kit (bash scripts/start.sh) or in the hub's environment:")
        print(f"  export OPENAI_BASE_URL={address_for_students(args.host, server.port)}")
        print(f"  export OPENAI_MODEL={server.model}")
        if args.api_key:
            print(f"  export OPENAI_API_KEY={args.api_key}")
        print("stop it with Ctrl-C", flush=True)
        code = server.process.wait()
        print(f"error: the model server stopped (exit code {code}); its log: {server.log}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    finally:
        server.stop()


def _config(args: argparse.Namespace) -> int:
    """The settings, the environment variables a deployment may set, and the retrieval stack in query order."""
    show()
    print(f"\nenvironment variables read (everything else: kit.toml, or ${CONFIG_ENV} naming another file):")
    print("  " + ", ".join(sorted(ENVIRONMENT.values())))
    from helpers.pipeline import RAGPipeline

    settings = get_settings()
    if not settings.store.qdrant_url and not (settings.paths.data_dir / "qdrant").exists():
        print("\nretrieval: built at the first question; there is no index yet (`bash scripts/start.sh` builds it)")
        return 0
    with closing(RAGPipeline(settings)) as pipeline:
        try:
            print(f"\nretrieval, in the order a query meets it: {pipeline.retriever!r}")
        except (RuntimeError, ValueError, OSError) as error:  # no index yet, the store unreachable (StoreError …)
            print(f"\nretrieval: not built ({type(error).__name__}: {error}); `bash scripts/start.sh` builds the index")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of `python -m helpers`."""
    parser = argparse.ArgumentParser(prog="python -m helpers", description="The RAG Teaching Kit.")
    sub = parser.add_subparsers(dest="command", required=True)
    ask = sub.add_parser("ask", help="answer a question about the course documents, with citations")
    ask.add_argument("question", nargs="+")
    ask.add_argument("-k", type=int, default=None, help="number of chunks to retrieve")
    ask.set_defaults(run=_ask)
    prepare = sub.add_parser("prepare", help="verify the models and build the course index")
    prepare.set_defaults(run=_prepare)
    train = sub.add_parser("train-reranker", help="fine-tune the MiniLM cross-encoder reranker (minutes, CPU)")
    train.add_argument("--questions", type=int, default=200, help="chunks to write a training question for")
    train.add_argument("--negatives", type=int, default=3, help="hard negatives per question")
    train.add_argument("--epochs", type=int, default=2, help="passes over the training pairs")
    train.add_argument("--cloze", type=int, default=0, help="chunks to make inverse-cloze pairs from (no LLM)")
    train.set_defaults(run=_train_reranker)
    evaluate = sub.add_parser("eval", help="evaluate a folder of your documents with your questions (CSV/JSONL)")
    evaluate.add_argument("--docs", required=True, help="the folder of documents (indexed in its own collection)")
    evaluate.add_argument("--questions", required=True, help="a .csv or .jsonl with question and answer columns")
    evaluate.add_argument("--limit", type=int, default=None, help="evaluate only the first N questions")
    evaluate.add_argument("--out", default=None, help="where to write the per-question CSV")
    evaluate.add_argument(
        "--configs", default="closed_book,dense,default",
        help="rows to run, comma-separated, from: closed_book, dense, hybrid, default (the configured pipeline), "
        "rerank (hybrid + the best reranker: slow, it reads rerank_depth chunks per question)",
    )  # fmt: skip
    evaluate.set_defaults(run=_eval)
    report = sub.add_parser("report", help="run the full evaluation (gold test split) and write it to reports/")
    report.set_defaults(run=_report)
    make = sub.add_parser("make-questions", help="write a test set about a folder with the local LLM (JSONL)")
    make.add_argument("--docs", required=True, help="the folder of documents")
    make.add_argument("--n", type=int, default=50, help="chunks to write a question about (before filtering)")
    make.add_argument("--out", required=True, help="the .jsonl file to write (question, answer, source, chunk_id)")
    make.add_argument("--seed", type=int, default=0, help="which chunks are sampled")
    make.add_argument("--style", choices=("answer_first", "free"), default="answer_first",
                      help="answer_first (default): the kit picks the answer, the LLM writes the question")  # fmt: skip
    make.set_defaults(run=_make_questions)
    for command in (prepare, evaluate, report, make):
        command.add_argument("--quiet", action="store_true", help="no progress bars")
    student = sub.add_parser("student-version", help="write the student notebooks: solutions stubbed, outputs cleared")
    student.add_argument("out", help="the folder to write them into (not notebooks/ itself)")
    student.set_defaults(run=_student_version)
    course = sub.add_parser("nbgrader-course", help="write an nbgrader course folder from the instructor notebooks")
    course.add_argument("course", help="the course folder to write (source/<assignment>/ and nbgrader_config.py)")
    course.add_argument("--notebooks", default=None, help="comma-separated numbers or names (05,07); default: all")
    course.add_argument("--assignment", default=None, help="one assignment of these notebooks (default: one each)")
    course.set_defaults(run=_nbgrader_course)
    board = sub.add_parser("leaderboard", help="the class leaderboard: every capstone row under a folder")
    board.add_argument("folder", help="the course's submitted/ folder (nbgrader), or any folder of leaderboard.csv")
    board.add_argument("--out", default=None, help="also write the table to this CSV")
    board.set_defaults(run=_leaderboard)
    site = sub.add_parser("course-site", help="render the executed notebooks and the course map to static HTML")
    site.add_argument("--executed", default="build/executed", help="the executed notebooks (bench.notebooks "
                      "--keep-outputs); a notebook not there is shown without outputs")  # fmt: skip
    site.add_argument("--out", default="site", help="the folder to write index.html and the pages into")
    site.set_defaults(run=_course_site)
    serve = sub.add_parser("serve", help="serve the kit's reader to a class (an OpenAI-compatible endpoint)")
    serve.add_argument("--host", default="127.0.0.1", help="the address to listen on; 0.0.0.0: every interface")
    serve.add_argument("--port", type=int, default=8000, help="the port to listen on")
    serve.add_argument("--threads", type=int, default=0, help="CPU threads of the model (default: every usable core)")
    serve.add_argument("--api-key", default="", help="a key the students must send (OPENAI_API_KEY); default none")
    serve.add_argument("--model", choices=LOCAL_LLMS, default=None, help="the packaged reader (default: llm_model)")
    serve.set_defaults(run=_serve)
    sub.add_parser("config", help="print the configuration and the retrieval stack").set_defaults(run=_config)
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except ConfigError as err:
        print(f"configuration error: {err}", file=sys.stderr)
        return 2
    except (ClassroomError, SiteError) as err:  # a folder or notebook the classroom commands cannot use
        print(f"error: {err}", file=sys.stderr)
        return 2
    except RuntimeError as err:  # StoreError, LLMError, ModelNotAvailable: messages written for people
        print(f"error: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
