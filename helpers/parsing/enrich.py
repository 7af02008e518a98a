"""E-mail metadata written by the LLM: a summary, topics, action items, urgency and the people mentioned.

One JSON object per e-mail, validated against `EmailMetadata` (a grammar with llama.cpp, JSON mode on an
OpenAI-compatible endpoint); an invalid reply gets one retry, then an error result, never an exception.
Results are cached (namespace "enrichments"); `add_metadata` stores the fields as flat strings that the
embedder sees and the answering LLM does not.
What it leaves out: attachments, whole threads, and grading the extraction itself.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Protocol, TypeVar

from llama_index.core import Document
from pydantic import BaseModel, Field, ValidationError
from tqdm.auto import tqdm

from helpers.config import Settings
from helpers.llm import Completion, LLMError
from helpers.llm.cache import llm_cache

Short = Annotated[str, Field(max_length=60)]
Item = Annotated[str, Field(max_length=160)]
Model = TypeVar("Model", bound=BaseModel)


class EmailMetadata(BaseModel):
    """What the LLM writes about one e-mail (the fields of the e-mail mini RAG)."""

    summary: str = Field(max_length=200, description="one sentence: what the e-mail is about")
    topics: list[Short] = Field(max_length=3, description="up to 3 short noun phrases")
    action_items: list[Item] = Field(max_length=3, description="what a reader must do, with the deadline")
    urgency: Literal["low", "medium", "high"]
    people_mentioned: list[Short] = Field(max_length=5, description="full names of people")


SCHEMA = EmailMetadata.model_json_schema()
FIELDS = tuple(EmailMetadata.model_fields)  # the metadata keys add_metadata writes
SYSTEM_PROMPT = (
    "You read one e-mail sent to students of a graduate program and describe it as a JSON object with the keys: "
    "summary (one short sentence in your own words), topics (up to 3 short noun phrases), action_items (up to 3 "
    'things a reader must do, each with its deadline; [] if none), urgency ("low", "medium" or "high"; high when '
    "something must be done within days), people_mentioned (up to 5 full names of people; no groups, offices or "
    "rooms). Reply with the JSON object only."
)
RETRY_PROMPT = "That reply is not valid ({error}). Reply again with the JSON object only."
MAX_EMAIL_CHARS = 4000  # longer e-mails are cut, so the prompt fits the local model's context
MAX_TOKENS = 320  # the schema's length limits keep a reply under about 300 tokens


class JSONChat(Protocol):
    """An LLM with JSON output (`LocalLLM` and `OpenAICompatibleLLM` from `make_llm(settings, cache=False)`)."""

    name: str

    def chat_json(self, messages: list[dict[str, str]], schema: dict[str, Any], max_tokens: int) -> Completion: ...


@dataclass
class Enrichment:
    """What the LLM made of one e-mail: validated metadata, or the reason there is none."""

    metadata: EmailMetadata | None
    error: str = ""
    seconds: float = 0.0
    cached: bool = False

    @property
    def ok(self) -> bool:
        """Whether the metadata is there."""
        return self.metadata is not None


def validate_json(text: str, schema: type[Model]) -> tuple[Model | None, str]:
    """The reply as an instance of the pydantic `schema`, or None and a one-line reason (also used by the judge)."""
    try:
        # strict=False lets a raw line break stand inside a string: llama.cpp's JSON grammar allows one.
        data = json.loads(text, strict=False)
    except json.JSONDecodeError as error:
        return None, f"invalid JSON ({error.msg} at line {error.lineno}, column {error.colno})"
    try:
        return schema.model_validate(data), ""
    except ValidationError as error:
        problems = error.errors()
        where = ".".join(str(part) for part in problems[0]["loc"]) or "reply"
        more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
        return None, f"{where}: {problems[0]['msg']}{more}"


def ask_for_metadata(llm: JSONChat, text: str, max_tokens: int = MAX_TOKENS) -> Enrichment:
    """Ask once, and once more with the error when the reply does not validate; then give up with a reason."""
    start = time.perf_counter()
    messages = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": text[:MAX_EMAIL_CHARS]}]
    for _ in range(2):
        reply = llm.chat_json(messages, SCHEMA, max_tokens).text
        metadata, error = validate_json(reply, EmailMetadata)
        if metadata is not None:
            return Enrichment(metadata, seconds=time.perf_counter() - start)
        # Show the model its reply and what is wrong with it, then ask again.
        messages = [*messages, {"role": "assistant", "content": reply}]
        messages.append({"role": "user", "content": RETRY_PROMPT.format(error=error)})
    return Enrichment(None, f"no valid JSON after one retry: {error}", seconds=time.perf_counter() - start)


def stored_value(result: Enrichment) -> str:
    """An enrichment as the cache stores it: JSON of the metadata, the error and the real call's seconds."""
    metadata = result.metadata.model_dump() if result.metadata else None
    return json.dumps({"metadata": metadata, "error": result.error, "seconds": result.seconds})


class Enricher:
    """Asks an LLM for each e-mail's metadata, remembering every answer in the kit's LLM cache."""

    def __init__(self, llm: JSONChat, settings: Settings) -> None:
        if not hasattr(llm, "chat_json"):
            raise TypeError("this LLM has no chat_json; pass helpers.llm.make_llm(settings, cache=False)")
        self.llm = llm
        self.cache = llm_cache(settings, "enrichments")
        self.stats = {"asked": 0, "cached": 0}

    def key(self, text: str) -> str:
        """sha256 of the model name, the prompt (with the schema) and the e-mail text."""
        prompt = SYSTEM_PROMPT + json.dumps(SCHEMA, sort_keys=True)
        return hashlib.sha256(f"{self.llm.name}\x00{prompt}\x00{text}".encode()).hexdigest()

    def enrich(self, text: str) -> Enrichment:
        """The metadata of one e-mail, from the cache or from the LLM; an endpoint failure is an error result."""
        key = self.key(text)
        row = self.cache.get(key, lambda: stored_value(ask_for_metadata(self.llm, text)))
        if row is not None:
            self.stats["cached"] += 1
            stored = json.loads(row)
            metadata = EmailMetadata.model_validate(stored["metadata"]) if stored["metadata"] else None
            return Enrichment(metadata, stored["error"], stored["seconds"], cached=True)
        try:
            result = ask_for_metadata(self.llm, text)
        except LLMError as error:  # the endpoint is down: report it, do not cache it
            return Enrichment(None, str(error))
        self.stats["asked"] += 1
        self.cache.put(key, stored_value(result))
        return result

    def enrich_documents(self, documents: Sequence[Document], progress: bool = True) -> list[Enrichment]:
        """The metadata of every e-mail document, in order, with a progress bar."""
        return [self.enrich(doc.text) for doc in tqdm(documents, desc="e-mail metadata", disable=not progress)]

    def close(self) -> None:
        """Close the cache file."""
        self.cache.close()


def flat_fields(metadata: EmailMetadata) -> dict[str, str]:
    """The fields as payload-friendly one-line strings: white space squeezed, lists joined with "; "."""
    flat = {}
    for key, value in metadata.model_dump().items():
        items = value if isinstance(value, list) else [value]
        flat[key] = "; ".join(" ".join(str(item).split()) for item in items)
    return flat


def add_metadata(document: Document, enrichment: Enrichment) -> Document:
    """A copy of the document with the fields as flat strings (embedded, hidden from the answering LLM)."""
    copy = document.model_copy(deep=True)
    if enrichment.metadata is None:  # keep the reason, out of sight of the embedder and the LLM
        copy.metadata["enrichment_error"] = enrichment.error
        copy.excluded_embed_metadata_keys = [*copy.excluded_embed_metadata_keys, "enrichment_error"]
        copy.excluded_llm_metadata_keys = [*copy.excluded_llm_metadata_keys, "enrichment_error"]
        return copy
    copy.metadata.update(flat_fields(enrichment.metadata))
    copy.excluded_llm_metadata_keys = [*copy.excluded_llm_metadata_keys, *FIELDS]
    return copy
