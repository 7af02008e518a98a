"""Shared pieces of the parsers: the errors, text decoding, and building a LlamaIndex `Document`.

Every parser returns `Document`s made by `make_document`, so ids, metadata types and the
embed/LLM metadata exclusions are decided in one place.
What it leaves out: any one format (html.py, pdf.py, markdown.py, email.py, office.py, …).
"""

from __future__ import annotations

import codecs
import os
import re
import uuid
from pathlib import Path

from llama_index.core import Document

MAX_BYTES = 50 * 1024 * 1024  # files above this are refused without being read
TABLE_MODES = ("sentences", "raw")
CP1252_UNDEFINED = frozenset(b"\x81\x8d\x8f\x90\x9d")  # read as Latin-1, whose byte b is chr(b)
CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")  # never text: NUL bytes, escapes (\t \n \f \r stay)

# uuid5(namespace, name) is the same on every machine and every run: re-parsing gives the same ids.
DOC_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "rag-teaching-kit/parsing")

# Metadata the embedder should not see (paths, bookkeeping, numbers that carry no meaning; a Word section's heading
# trail, a slide's title and a sheet's name, which open their text already as a "#" heading line) ...
EMBED_EXCLUDED = ("source", "doc_type", "page", "url", "noise_share", "message_id", "to", "thread",
                  "front_matter_error", "heading", "slide_title", "sheet")  # fmt: skip
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


def utf16_codec(data: bytes) -> str | None:
    """The codec of UTF-16 text (a BOM, or NULs in every other byte), else None."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return "utf-16"
    sample = data[:4096]
    if len(sample) < 4:
        return None
    even, odd = sample[0::2].count(0), sample[1::2].count(0)
    if odd > 0.4 * len(sample) / 2 and even < 0.05 * len(sample) / 2:
        return "utf-16-le"  # ASCII letters followed by NUL: "#\x00 \x00N\x00"
    if even > 0.4 * len(sample) / 2 and odd < 0.05 * len(sample) / 2:
        return "utf-16-be"
    return None


def _cp1252_fallback(error: UnicodeError) -> tuple[str, int]:
    """Decode the bytes UTF-8 refused as Windows-1252 (Latin-1 where it has no character): mixed files survive."""
    assert isinstance(error, UnicodeDecodeError)
    bad = error.object[error.start : error.end]
    return "".join(chr(b) if b in CP1252_UNDEFINED else bytes([b]).decode("cp1252") for b in bad), error.end


codecs.register_error("kit-cp1252", _cp1252_fallback)


def decode_bytes(data: bytes, declared: str | None = None) -> str:
    """Bytes to str: the declared charset, then UTF-16 (BOM or NUL pattern), then UTF-8 with each byte it refuses
    read as Windows-1252/Latin-1 (so a file mixing UTF-8 and Latin-1 lines keeps both), which never fails."""
    for charset in filter(None, (utf16_codec(data), declared, "utf-8-sig")):
        try:
            return data.decode(charset)
        except (LookupError, UnicodeDecodeError):  # unknown charset name, or bytes that do not fit it
            continue
    return data.decode("utf-8", errors="kit-cp1252")


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
    """A LlamaIndex Document with a deterministic id and the metadata exclusions set (NUL and control bytes out)."""
    metadata = clean_metadata(metadata)
    return Document(
        id_=doc_id(str(metadata["source"]), page),
        text=CONTROL_CHARACTERS.sub("", text),
        metadata=metadata,
        excluded_embed_metadata_keys=[key for key in EMBED_EXCLUDED if key in metadata],
        excluded_llm_metadata_keys=[key for key in LLM_EXCLUDED if key in metadata],
    )
