"""Aggregation questions ("which courses meet on Tuesdays?") answered from payload values, not from top-k.

Each row of the class schedule is one point with structured payload, and `distinct_values` asks Qdrant for every
value of a field over the points a filter matches: complete by construction, where k chunks rarely hold every row.
What it leaves out: turning a free-form question into the filter (the planner only says *that* it is a list).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from llama_index.core.schema import TextNode
from qdrant_client import models

from helpers.config import REPO_ROOT
from helpers.parsing import parse
from helpers.store import KitStore, class_collection
from helpers.types import Hit

SCHEDULE = REPO_ROOT / "course_data" / "docs" / "tables" / "class_schedule.html"
COLLECTION = "nb11_schedule"
FIELDS = ("Course", "Title", "Units", "Section", "Days", "Time", "Room", "Instructor", "Modality", "Capacity", "Term")
FIELD = re.compile(rf"\b({'|'.join(FIELDS)}) (.+?)(?=, (?:{'|'.join(FIELDS)}) |\.?$)")


def schedule_rows() -> list[dict[str, object]]:
    """Every section of the class schedule as a dict (days as a list: "Tue/Thu" → ["Tue", "Thu"])."""
    lines = "\n".join(d.text for d in parse(SCHEDULE, root=SCHEDULE.parents[1])).splitlines()
    rows = []
    for line in lines:
        if not line.startswith("Class schedule — "):
            continue
        sentence = line.split(": ", 1)[1]
        row: dict[str, object] = {key.lower(): value.strip() for key, value in FIELD.findall(sentence)}
        row["days"] = str(row.get("days", "")).split("/")
        rows.append(row)
    return rows


def store_rows(pipeline, rows: Sequence[dict[str, object]], collection: str = COLLECTION) -> KitStore:
    """One point per row (embedded sentence + payload fields), idempotent."""
    name = class_collection(collection, pipeline.settings.store)  # a student's own on a class's shared server
    store = KitStore(pipeline.store.client, name, pipeline.embedder.dimension, None, pipeline.embedder.model_id)
    texts = [", ".join(f"{k} {'/'.join(v) if isinstance(v, list) else v}" for k, v in row.items()) for row in rows]
    nodes = [
        TextNode(id_=str(uuid.uuid5(uuid.NAMESPACE_URL, text)), text=text,
                 metadata={**row, "source": "tables/class_schedule.html"})  # the same row: the same id
        for text, row in zip(texts, rows, strict=True)
    ]  # fmt: skip
    for node, vector in zip(nodes, pipeline.embedder.embed_texts(texts), strict=True):
        node.embedding = vector.tolist()
    store.upsert_nodes(nodes)
    return store


def payload_filter(where: Mapping[str, str]) -> models.Filter:
    """A Qdrant filter: every field equals its value (for a list field: contains it)."""
    conditions = [models.FieldCondition(key=k, match=models.MatchValue(value=v)) for k, v in where.items()]
    return models.Filter(must=conditions)


def count_rows(store: KitStore, where: Mapping[str, str]) -> int:
    """How many rows (points) match every condition."""
    return store.client.count(store.collection, count_filter=payload_filter(where), exact=True).count


def distinct_values(store: KitStore, field: str, where: Mapping[str, str]) -> list[str]:
    """Every distinct value of `field` over the rows that match `where` (`KitStore.distinct_values`, filtered)."""
    return store.distinct_values(field, payload_filter(where))


def expected_values(rows: Sequence[Mapping[str, object]], field: str, where: Mapping[str, str]) -> list[str]:
    """The same answer computed directly from the parsed table (the reference)."""

    def match(row: Mapping[str, object], key: str, value: str) -> bool:
        actual = row.get(key)
        return value in actual if isinstance(actual, list) else actual == value

    return sorted({str(r[field]) for r in rows if all(match(r, k, v) for k, v in where.items())})


def topk_recall(hits: Sequence[Hit], expected: Sequence[str]) -> float:
    """Share of the expected values that appear in the text of the top-k chunks."""
    text = " ".join(h.text for h in hits)
    return sum(value in text for value in expected) / len(expected) if expected else 0.0


@dataclass(frozen=True)
class AggregationQuestion:
    """A list question with the field it asks for and its conditions."""

    question: str
    field: str
    where: dict[str, str]


Q = AggregationQuestion
QUESTIONS = (
    Q("Which courses meet on Tuesdays in Autumn 2026?", "course", {"days": "Tue", "term": "Autumn 2026"}),
    Q("Which courses are taught online in Winter 2027?", "course", {"modality": "online", "term": "Winter 2027"}),
    Q("Which instructors teach in Spring 2027?", "instructor", {"term": "Spring 2027"}),
    Q("Which courses meet on Fridays?", "course", {"days": "Fri"}),
    Q("Which courses have hybrid sections in Autumn 2026?", "course", {"modality": "hybrid", "term": "Autumn 2026"}),
)


def compare(store: KitStore, rows, retrieve: Callable[[str], Sequence[Hit]]) -> list[dict[str, object]]:
    """Per question: how many values it has, recall of the payload answer and of the top-k chunks."""
    out = []
    for q in QUESTIONS:
        expected = expected_values(rows, q.field, q.where)
        got = distinct_values(store, q.field, q.where)
        out.append({"question": q.question, "values": len(expected),
                    "payload recall": sum(v in got for v in expected) / len(expected) if expected else 0.0,
                    "top-k recall": topk_recall(retrieve(q.question), expected)})  # fmt: skip
    return out
