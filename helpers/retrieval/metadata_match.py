"""Metadata filters for every retriever: the plain dict the store takes (`{"doc_type": ["pdf", "html"]}`), checked
in Python for BM25 exactly as Qdrant does: every key must hold, a list means any value, `Not([...])` none of them;
keyword fields match exactly, text fields when every word of the value is a word of the field.
What it leaves out: ranges (dates, pages) and OR across keys.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from helpers.retrieval.base import Filters
from helpers.store import FILTER_FIELDS, Not


def _values(wanted: object) -> list[object]:
    """A filter value as a list of accepted values."""
    return list(wanted) if isinstance(wanted, list | tuple | set) else [wanted]


def _words(text: object) -> list[str]:
    """Lower-case runs of letters and digits (Qdrant's default word tokenizer)."""
    return re.findall(r"[^\W_]+", str(text).lower())


def field_matches(key: str, actual: object, wanted: object) -> bool:
    """Whether one metadata value satisfies one key of a filter."""
    if isinstance(wanted, Not):  # none of the values (a chunk without the field passes)
        return actual is None or not field_matches(key, actual, list(wanted.values))
    if FILTER_FIELDS[key] == "text":  # every word of one wanted value appears among the field's words
        return actual is not None and any(
            _words(value) and set(_words(value)) <= set(_words(actual)) for value in _values(wanted)
        )
    held = {str(value) for value in _values(actual)} if actual is not None else set()
    return bool(held & {str(value) for value in _values(wanted)})


def matches(metadata: Mapping[str, object], filters: Filters | None) -> bool:
    """Whether one chunk's metadata satisfies every key of `filters`."""
    unknown = sorted(set(filters or {}) - set(FILTER_FIELDS))
    if unknown:
        raise ValueError(f"cannot filter on {', '.join(unknown)}; filterable fields: {', '.join(FILTER_FIELDS)}")
    return all(field_matches(key, metadata.get(key), wanted) for key, wanted in (filters or {}).items())
