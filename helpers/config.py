"""One `Settings` object for the whole kit: defaults, then `kit.toml`, then environment variables.

Every notebook starts with `show()`, so a student always sees which embedder, which LLM, which
Qdrant and which run profile answer. Secrets (API keys) are never printed.
What it leaves out: building anything from the settings (each stage reads the fields it uses); it imports
no other helpers module, as the bottom of the package.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent

PROFILES = ("full", "ci")
LLM_BACKENDS = ("local", "openai")
EMBED_BACKENDS = ("local", "onnx", "openai")  # local: torch; onnx: the same model in ONNX Runtime (onnx_model.py)
EMBED_PRECISIONS = ("fp32", "int8")  # int8: dynamic quantisation of the local model (bench/embedders.py)
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
BM25_TOKENIZERS = ("kit", "stemmed")  # helpers.retrieval.bm25.TOKENIZERS
SHORT_STYLES = ("phrase", "yes_no")  # helpers.generation.prompts.SHORT_STYLES
FOLLOWUP_REWRITES = ("none", "keywords", "llm")  # helpers.query.followup.METHODS
STORE_BACKENDS = ("local", "edge")  # the embedded engine when QDRANT_URL is unset (helpers.store.client.connect)
BOOL_WORDS = {"1": True, "true": True, "yes": True, "on": True, "0": False, "false": False, "no": False, "off": False}
SECRET_FIELDS = ("openai_api_key", "qdrant_api_key")

# Environment variables that are not named KIT_<FIELD> because the ecosystem already has a name.
ENV_ALIASES = {
    "openai_base_url": "OPENAI_BASE_URL",
    "openai_api_key": "OPENAI_API_KEY",
    "openai_model": "OPENAI_MODEL",
    "qdrant_url": "QDRANT_URL",
    "qdrant_api_key": "QDRANT_API_KEY",
    "llm_gguf": "KIT_LLM_GGUF",
}


class ConfigError(ValueError):
    """A configuration value is missing or not allowed; the message names the key."""


@dataclass(frozen=True)
class Settings:
    """The kit's configuration; build it with `load_settings()`."""

    profile: str = "full"
    data_dir: Path = REPO_ROOT / ".kit_data"
    cache_dir: Path = Path.home() / ".cache" / "rag-teaching-kit"
    corpus_dir: Path = REPO_ROOT / "course_data" / "docs"
    output_dir: Path = REPO_ROOT / ".kit_data" / "reports"  # notebook reports; `python -m helpers report`: reports/
    # embedding
    embed_backend: str = "onnx"  # MiniLM in ONNX Runtime: 3.2x torch's chunks/s, recall@5 as high (embedders.md)
    embed_model: str = "all-MiniLM-L6-v2"
    embed_batch_size: int = 32
    embed_precision: str = "int8"  # int8 MatMul weights; "fp32": torch's vectors (embed_backend "local": torch)
    query_prefix: str = ""  # an instruction some embedders want before a query (e5: "query: "); MiniLM: none
    # generation
    llm_backend: str = "local"
    llm_model: str = "qwen2.5-coder-1.5b"  # higher F1 on both dev sets at <= 2.5x the seconds of the 0.5B (notebook 07)
    llm_gguf: str = ""
    llm_context_tokens: int = 4096
    llm_max_answer_tokens: int = 256
    llm_threads: int = 2
    temperature: float = 0.0
    seed: int = 0
    openai_base_url: str = ""
    openai_api_key: str = field(default="", repr=False)
    openai_model: str = "gpt-4o-mini"
    request_timeout_s: float = 60.0
    llm_max_retries: int = 2  # an endpoint's connection errors, timeouts, 429 and 5xx: retried with backoff
    # vector store
    qdrant_url: str = ""
    qdrant_api_key: str = field(default="", repr=False)
    collection: str = "course"
    store_backend: str = "local"  # "edge": qdrant-edge, Qdrant's Rust engine in-process (bench/store_scale.py)
    # chunking and retrieval
    chunk_strategy: str = "recursive_chars"  # measured best in notebooks/02_chunking.ipynb
    chunk_size: int = 0  # the strategy's unit (characters, tokens, words, paragraphs); 0 = the strategy's own
    chunk_overlap: int = -1  # in the same unit; -1 = the strategy's own
    top_k: int = 4
    context_tokens: int = 1500  # the most the retrieved passages may take in the prompt (cl100k tokens)
    # retrieval: chosen on the dev splits of both the course and the real-document set (notebooks 02, 05, 07;
    # bench/realworld.py): answer in the reader's context 0.674 -> 0.667 (course), 0.738 -> 0.836 (real) at k = 4
    retriever: str = "hybrid"  # min-max weighted fusion; "hybrid_rrf" was the default chosen on the course alone
    hybrid_alpha: float = 0.5  # dense weight of the weighted "hybrid" (seed 001: 0.6)
    rrf_k: int = 60  # reciprocal rank fusion constant
    bm25_tokenizer: str = "kit"  # "kit" (codes joined, numbers kept) or "stemmed" (also "fees" -> "fee")
    hybrid_pool: int = 50  # candidates each side of a hybrid retriever returns before fusion (was 30)
    query_expansion: bool = True  # append official terms from course_data/synonyms.csv (notebook 05)
    dedupe_by_source: bool = False  # over-fetch top_k × fetch_multiplier, keep the best chunk per source
    fetch_multiplier: int = 3
    similarity_threshold: float = 0.0  # drop hits whose final score is below this (0 keeps every hit)
    short_style: str = "phrase"  # the short-answer prompt: "phrase", or "yes_no" (copy a phrase; yes/no first)
    refusal_threshold: float = 0.3  # best dense score below this: fixed refusal, no LLM call (tuned in notebook 07)
    # reranking and query rewriting (notebook 06)
    reranker: str = "none"  # "finetuned" (python -m helpers train-reranker), "llm", or "cross-encoder" + rerank_model
    rerank_model: str = ""  # a cross-encoder folder or cached hub name, for reranker = "cross-encoder"
    rerank_depth: int = 20  # candidates the reranker sees (the top N of the first stage)
    multi_query: bool = False  # the LLM writes 3 paraphrases; search with all 4 (seed 004)
    followup_rewrite: str = "keywords"  # make a follow-up standalone before search: none, keywords, llm

    def __post_init__(self) -> None:
        _check_choice("profile", self.profile, PROFILES)
        _check_choice("llm_backend", self.llm_backend, LLM_BACKENDS)
        _check_choice("embed_backend", self.embed_backend, EMBED_BACKENDS)
        _check_choice("embed_precision", self.embed_precision, EMBED_PRECISIONS)
        _check_choice("chunk_strategy", self.chunk_strategy, CHUNK_STRATEGIES)
        if self.llm_backend == "local" and not self.llm_gguf:
            _check_choice("llm_model", self.llm_model, LOCAL_LLMS)
        for name in ("top_k", "llm_context_tokens", "llm_max_answer_tokens", "embed_batch_size", "context_tokens",
                     "hybrid_pool"):  # fmt: skip
            if getattr(self, name) <= 0:
                raise ConfigError(f"{name} must be a positive integer, got {getattr(self, name)!r}")
        _check_choice("retriever", self.retriever, RETRIEVERS)
        _check_choice("reranker", self.reranker, RERANKERS)
        _check_choice("followup_rewrite", self.followup_rewrite, FOLLOWUP_REWRITES)
        _check_choice("short_style", self.short_style, SHORT_STYLES)
        _check_choice("bm25_tokenizer", self.bm25_tokenizer, BM25_TOKENIZERS)
        _check_choice("store_backend", self.store_backend, STORE_BACKENDS)
        if self.llm_max_retries < 0:
            raise ConfigError(f"llm_max_retries must be 0 or more, got {self.llm_max_retries}")
        if self.chunk_size < 0 or self.chunk_overlap < -1:
            raise ConfigError("chunk_size must be 0 (the strategy's own) or positive; chunk_overlap -1 or more")
        if self.chunk_size > 0 and self.chunk_overlap >= self.chunk_size:
            raise ConfigError(f"chunk_overlap {self.chunk_overlap} must be smaller than chunk_size {self.chunk_size}")
        if self.rerank_depth <= 0:
            raise ConfigError(f"rerank_depth must be a positive integer, got {self.rerank_depth}")
        if not 0.0 <= self.hybrid_alpha <= 1.0:
            raise ConfigError(f"hybrid_alpha must be between 0 and 1, got {self.hybrid_alpha}")
        if self.rrf_k <= 0 or self.fetch_multiplier <= 0:
            raise ConfigError("rrf_k and fetch_multiplier must be positive integers")
        if not 0.0 <= self.temperature <= 2.0:
            raise ConfigError(f"temperature must be between 0 and 2, got {self.temperature}")

    @property
    def qdrant_location(self) -> str:
        """Where Qdrant lives: the server URL, or the embedded folder."""
        return self.qdrant_url or str(self.data_dir / "qdrant")

    @property
    def llm_name(self) -> str:
        """A human-readable name of the answering model."""
        if self.llm_backend == "openai":
            return f"{self.openai_model} @ {self.openai_base_url or 'api.openai.com'}"
        return self.llm_gguf or self.llm_model

    def replace(self, **changes: object) -> Settings:
        """A copy with some fields changed (validated again)."""
        return dataclasses.replace(self, **changes)

    def as_rows(self) -> list[tuple[str, str]]:
        """(key, value) rows for display, secrets masked."""
        rows = []
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in SECRET_FIELDS:
                value = "set (hidden)" if value else "not set"
            rows.append((f.name, str(value)))
        return rows


def _check_choice(key: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ConfigError(f"{key} = {value!r} is not allowed; choose one of: {', '.join(allowed)}")


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


def load_settings(toml_path: Path | None = None, environ: dict[str, str] | None = None) -> Settings:
    """Defaults, overridden by `kit.toml` (if present), overridden by environment variables."""
    environ = dict(os.environ if environ is None else environ)
    defaults = Settings()
    known = {f.name: getattr(defaults, f.name) for f in fields(Settings)}
    values: dict[str, object] = {}

    toml_path = toml_path or Path(environ.get("KIT_CONFIG", REPO_ROOT / "kit.toml"))
    if toml_path.exists():
        try:
            table = tomllib.loads(toml_path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as err:
            raise ConfigError(f"{toml_path} is not valid TOML: {err}") from None
        for key, raw in table.items():
            if key not in known:
                raise ConfigError(f"unknown key {key!r} in {toml_path}; known keys: {', '.join(known)}")
            values[key] = _coerce(key, raw, known[key])

    for key, default in known.items():
        env_name = ENV_ALIASES.get(key, f"KIT_{key.upper()}")
        if environ.get(env_name, "") != "":
            values[key] = _coerce(env_name, environ[env_name], default)
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
    """Print the configuration as a small table (secrets hidden)."""
    settings = settings or get_settings()
    rows = settings.as_rows()
    width = max(len(k) for k, _ in rows)
    print(f"RAG Teaching Kit configuration (profile: {settings.profile})")
    for key, value in rows:
        print(f"  {key.ljust(width)}  {value}")
