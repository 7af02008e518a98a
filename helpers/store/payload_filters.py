"""Metadata filters from a plain dict: `filters_from({"doc_type": "email", "sender": "whitcombe"})`.

Every key must hold (AND); a list means "any of", `Not([...])` "none of" (a point without the field passes);
keyword fields match exactly, text fields (`sender`, `subject`) when every word of the value appears. A list
payload (`term`, `track`) matches when any of its values does. The result is LlamaIndex's `MetadataFilters`.
What it leaves out: ranges (dates, pages) and OR across keys — build `MetadataFilters` by hand for those.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from llama_index.core.vector_stores.types import FilterCondition, FilterOperator, MetadataFilter, MetadataFilters
from qdrant_client import QdrantClient, models

# The payload fields a student can filter on, and how each is matched (and indexed on a server); academic_year and
# academic_term are the academic year and term a chunk's document covers (helpers.chunking.periods).
FILTER_FIELDS = {"source": "keyword", "doc_type": "keyword", "track": "keyword", "term": "keyword",
                 "academic_year": "keyword", "academic_term": "keyword",
                 "sender": "text", "subject": "text"}  # fmt: skip
SCHEMAS = {"keyword": models.PayloadSchemaType.KEYWORD, "text": models.PayloadSchemaType.TEXT}


@dataclass(frozen=True)
class Not:
    """A filter value meaning "none of these values" (a chunk without the field passes)."""

    values: tuple[str, ...]

    def __init__(self, values: Iterable[object]) -> None:
        object.__setattr__(self, "values", tuple(str(value) for value in values))


def filterable(metadata: Mapping[str, object]) -> dict[str, object]:
    """The fields of `metadata` a filter can name, as the payload stores them (tuples as lists)."""
    return {key: list(v) if isinstance(v, tuple) else v for key, v in metadata.items() if key in FILTER_FIELDS}


def _condition(key: str, value: object) -> MetadataFilter | MetadataFilters:
    """One key's condition: exact, any-of (list), none-of (`Not`), or all-words (text fields)."""
    if isinstance(value, Not):  # becomes a qdrant `must_not` of "any of these"
        return MetadataFilters(filters=[_condition(key, list(value.values))], condition=FilterCondition.NOT)
    values = [str(v) for v in value] if isinstance(value, list | tuple | set) else None
    if FILTER_FIELDS[key] == "text":
        if values is None:
            return MetadataFilter(key=key, value=str(value), operator=FilterOperator.TEXT_MATCH)
        conditions = [MetadataFilter(key=key, value=v, operator=FilterOperator.TEXT_MATCH) for v in values]
        return MetadataFilters(filters=conditions, condition=FilterCondition.OR)
    if values is not None:
        return MetadataFilter(key=key, value=values, operator=FilterOperator.IN)
    return MetadataFilter(key=key, value=value if isinstance(value, int | float) else str(value))


def filters_from(spec: Mapping[str, object] | None) -> MetadataFilters | None:
    """A dict of field → value (or list of values) as `MetadataFilters`; None for no filter."""
    if not spec:
        return None
    unknown = sorted(set(spec) - set(FILTER_FIELDS))
    if unknown:
        raise ValueError(f"cannot filter on {', '.join(unknown)}; filterable fields: {', '.join(FILTER_FIELDS)}")
    return MetadataFilters(filters=[_condition(key, value) for key, value in spec.items()])


def create_payload_indexes(client: QdrantClient, collection: str) -> None:
    """Index every filterable field (server mode; embedded mode has no payload indexes)."""
    for key, kind in FILTER_FIELDS.items():
        client.create_payload_index(collection, key, SCHEMAS[kind])
