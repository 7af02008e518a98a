"""Record-aware chunking: every piece of a record longer than a chunk names the record it belongs to.

A record is a table row turned into a sentence or an object of a pretty-printed JSON file. A piece that starts inside
one and lacks its key gets it at its head: a row's caption and short leading values ("2025 wi: 2025 Winter ESE 118"),
or a JSON object's `KEY_FIELDS` ("name: Mathematics, code: MATH > title: Linear Algebra, id: MATH-340"). Records that
fit in a chunk chunk exactly as without this step (setting `chunking.chunk_records`).
What it leaves out: records of other shapes (YAML, XML, a PDF table kept as a grid) and keys chosen by meaning.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

from llama_index.core import Document
from llama_index.core.schema import TextNode

from helpers.chunking.base import chunk_starts

TABLE_TYPES = ("table", "xlsx")  # documents whose every line is one row (`helpers.parsing.tables`)
KEY_FIELDS = ("name", "code", "title", "id")  # a JSON object's fields that say what it is, in the key's order
KEY_FIELD_CHARS = 60  # a row's leading field longer than this is content (a description), not part of its key
KEY_CHARS = 160  # a row's key stops before it would grow past this
JSON_SCALAR = re.compile(r'^\s*"([^"]+)":\s*("(?:[^"\\]|\\.)*"|-?\d[\d.eE+-]*|true|false|null),?\s*$')
KEY_SEPARATOR = " > "  # between the keys of nested objects


class Key(NamedTuple):
    """One record's key: `head`, written at the head of a piece that lacks it, and `marks`, the strings whose
    presence in a piece means it already names its record."""

    head: str
    marks: tuple[str, ...]


Keyer = Callable[[int], list[Key]]  # offset in the text -> the keys of the records open there, outermost first


def row_key(line: str) -> str:
    """A table row's key: its caption and leading fields, each short, up to `KEY_CHARS` characters. Fields are
    "Header value" parts joined by ", "; a part followed by one that starts in lower case is part of a longer value."""
    parts = line.split(", ")
    caption = len(parts[0].split(": ", 1)[0]) + 2 if ": " in parts[0] else 0  # the first part starts with it
    kept: list[str] = []
    for part, after in zip(parts, [*parts[1:], "End"], strict=True):
        short = len(part) - (0 if kept else caption) <= KEY_FIELD_CHARS
        if not short or len(", ".join([*kept, part])) > KEY_CHARS or not after[:1].isupper():
            break  # a long field, a full key, or a field whose value goes on past a comma ("…, with readings")
        kept.append(part)
    return ", ".join(kept)


def row_head(key: str) -> str:
    """A row's key as a heading: the caption and the key's values without their column names, so that a code kept
    in two columns ("Subject BADM, Number 310") reads as it is written ("BADM 310")."""
    caption, _, fields = key.rpartition(": ") if ": " in key.split(", ")[0] else ("", "", key)
    values = " ".join(field.split(" ", 1)[-1] for field in fields.split(", "))
    return f"{caption}: {values}" if caption else values


def line_starts(text: str) -> list[int]:
    """The offset of every line's first character."""
    return [0, *(match.end() for match in re.finditer("\n", text))]


def table_keyer(text: str) -> Keyer:
    """The key of the row at an offset (one row a line)."""
    starts = line_starts(text)

    def key(offset: int) -> list[Key]:
        index = bisect.bisect_right(starts, offset) - 1
        end = starts[index + 1] - 1 if index + 1 < len(starts) else len(text)
        found = row_key(text[starts[index] : end])
        return [Key(row_head(found), (found,))] if found else []

    return key


def json_object_keys(lines: Sequence[str]) -> list[tuple[dict[str, str], ...]]:
    """For each line of pretty-printed JSON, the objects open at its start (outermost first), each as its
    identifying fields; an object's fields are read to its end, so a field written after a line still counts."""
    stack: list[dict[str, str] | None] = []  # None: an array
    open_at: list[tuple[dict[str, str], ...]] = []
    for line in lines:
        open_at.append(tuple(frame for frame in stack if frame is not None))
        stripped = line.strip().rstrip(",")
        if stripped.startswith(("}", "]")) and stack:
            stack.pop()
        if stripped.endswith("{"):
            stack.append({})
        elif stripped.endswith("["):
            stack.append(None)
        elif (match := JSON_SCALAR.match(line)) and stack and stack[-1] is not None and match[1] in KEY_FIELDS:
            value = match[2]
            stack[-1][match[1]] = json.loads(value) if value.startswith('"') else value
    return open_at


def json_keyer(text: str) -> Keyer:
    """The identifying fields of the JSON objects open at an offset, outermost first; a value an outer object
    already gave (a section's title, the same as its course's) is not repeated."""
    starts = line_starts(text)
    open_at = json_object_keys(text.split("\n"))

    def key(offset: int) -> list[Key]:
        keys, seen = [], set()
        for fields in open_at[bisect.bisect_right(starts, offset) - 1]:
            names = [name for name in KEY_FIELDS if name in fields and fields[name] not in seen]
            seen.update(fields.values())
            if names:
                head = ", ".join(f"{name}: {fields[name]}" for name in names)
                keys.append(Key(head, tuple(fields[name] for name in names)))
        return keys

    return key


def is_json(text: str) -> bool:
    """Whether a text is one pretty-printed JSON value (an object or an array over several lines)."""
    stripped = text.strip()
    if stripped[:1] not in "[{" or "\n" not in stripped:
        return False
    try:
        json.loads(stripped)
    except ValueError:
        return False
    return True


def keyer_for(document: Document) -> Keyer | None:
    """How to find the record at an offset of this document, or None when it is not made of records."""
    if document.metadata.get("doc_type") in TABLE_TYPES:
        return table_keyer(document.text)
    if is_json(document.text):
        return json_keyer(document.text)
    return None


def keyed(text: str, keys: Sequence[Key]) -> str:
    """The piece with the keys it lacks at its head (a key is there when each of its marks is in the piece)."""
    missing = [key.head for key in keys if not all(mark in text for mark in key.marks)]
    return KEY_SEPARATOR.join(missing) + "\n" + text if missing else text


def with_record_keys(document: Document, nodes: Sequence[TextNode]) -> list[TextNode]:
    """The document's chunks, each that starts inside a record and lacks its key given the key at its head (a chunk
    not found in the text as written is left as it is)."""
    keyer = keyer_for(document)
    if keyer is None:
        return list(nodes)
    for node, start in zip(nodes, chunk_starts(document.text, [node.text for node in nodes]), strict=True):
        if start >= 0:
            node.set_content(keyed(node.text, keyer(start)))
    return list(nodes)
