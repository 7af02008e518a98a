"""Shared pieces of the parsers: the errors, text decoding, and building a LlamaIndex `Document`.

Every parser returns `Document`s made by `make_document`, so ids, metadata types and the
embed/LLM metadata exclusions are decided in one place.
"""

from __future__ import annotations

import os
import re
import uuid
from pathlib import Path

from llama_index.core import Document

MAX_BYTES = 50 * 1024 * 1024  # files above this are refused without being read
TABLE_MODES = ("sentences", "raw")

# uuid5(namespace, name) is the same on every machine and every run: re-parsing gives the same ids.
DOC_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "rag-teaching-kit/parsing")

# Metadata the embedder should not see (paths, bookkeeping, numbers that carry no meaning) ...
EMBED_EXCLUDED = (
    "source",
    "doc_type",
    "page",
    "url",
    "noise_share",
    "message_id",
    "to",
    "thread",
    "front_matter_error",
)
# ... and metadata the LLM does not need in its prompt (it still sees source, title, page, url, date, sender).
LLM_EXCLUDED = ("doc_type", "noise_share", "message_id", "thread", "front_matter_error")


class ParseError(Exception):
    """A file could not be turned into text; `reason` says why, `path` names the file."""

    def __init__(self, reason: str, path: str | None = None) -> None:
        self.reason = reason
        self.path = path
        super().__init__(f"{path}: {reason}" if path else reason)


class UnsupportedFile(ParseError):
    """The file's suffix has no parser."""


def check_tables_mode(tables: str) -> None:
    """Refuse a `tables=` value other than "sentences" or "raw"."""
    if tables not in TABLE_MODES:
        raise ValueError(f"tables must be one of {TABLE_MODES}, not {tables!r}")


def collapse(text: str) -> str:
    """Squeeze every run of whitespace (newlines and non-breaking spaces too) into one space."""
    return re.sub(r"\s+", " ", text).strip()


def decode_bytes(data: bytes, declared: str | None = None) -> str:
    """Bytes to str: the declared charset, then UTF-8, then UTF-16 (BOM), then Latin-1, which never fails."""
    candidates = [declared] if declared else []
    candidates.append("utf-8-sig")
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        candidates.insert(0, "utf-16")
    for charset in candidates:
        try:
            return data.decode(charset)
        except (LookupError, UnicodeDecodeError):  # unknown charset name, or bytes that do not fit it
            continue
    return data.decode("latin-1")


def humanise(stem: str) -> str:
    """A file stem as a readable title: "academic_calendar" -> "Academic calendar"."""
    words = re.sub(r"[_\-]+", " ", stem).strip()
    return words[:1].upper() + words[1:]


def doc_id(source: str, page: int | None = None) -> str:
    """The deterministic id of a document: a UUID made from its source (and page)."""
    return str(uuid.uuid5(DOC_NAMESPACE, source if page is None else f"{source}#page={page}"))


def source_name(path: Path, root: Path | None) -> str:
    """The path relative to the corpus root with POSIX slashes, or just the file name without a root."""
    if root is not None:
        try:
            return path.resolve().relative_to(Path(root).resolve()).as_posix()
        except ValueError:  # the file is not under root
            pass
        except (OSError, RuntimeError):  # a symlink loop cannot be resolved: name the link itself
            return Path(os.path.relpath(path, root)).as_posix()
    return path.name


def clean_metadata(metadata: dict) -> dict[str, str | int | float]:
    """Keep metadata Qdrant-friendly: str, int and float values only (None dropped, the rest as str)."""
    cleaned: dict[str, str | int | float] = {}
    for key, value in metadata.items():
        if value is None:
            continue
        if isinstance(value, bool):  # bool is an int subclass: store it as text
            value = str(value).lower()
        cleaned[key] = value if isinstance(value, (str, int, float)) else str(value)
    return cleaned


def make_document(text: str, metadata: dict, page: int | None = None) -> Document:
    """A LlamaIndex Document with a deterministic id and the metadata exclusions set."""
    metadata = clean_metadata(metadata)
    return Document(
        id_=doc_id(str(metadata["source"]), page),
        text=text,
        metadata=metadata,
        excluded_embed_metadata_keys=[key for key in EMBED_EXCLUDED if key in metadata],
        excluded_llm_metadata_keys=[key for key in LLM_EXCLUDED if key in metadata],
    )
