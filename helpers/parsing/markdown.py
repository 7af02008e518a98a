"""Markdown files: YAML front matter into metadata, the body kept as Markdown (headings and all).

Broken YAML does not stop the body from being indexed; the reason is recorded as `front_matter_error`.
What it leaves out: rendering Markdown (links, emphasis and code stay as written).
"""

from __future__ import annotations

import datetime as dt
import re

import yaml

from helpers.parsing.base import ParseError, collapse

FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.DOTALL)
RESERVED = {"source", "doc_type", "page", "noise_share", "front_matter_error"}  # keys the parser owns


def _iso(value: object) -> str:
    """A YAML date, datetime or date-like string as an ISO string."""
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    text = collapse(str(value or ""))
    try:
        return dt.date.fromisoformat(text).isoformat()
    except ValueError:
        return text


def _simple(value: object) -> str | int | float | None:
    """A front-matter value as a payload value: scalars kept, lists joined with ", ", mappings dropped."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (str, int, float)):
        return value
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, (list, tuple)):
        return ", ".join(str(item) for item in value if not isinstance(item, (dict, list)))
    return None


def split_front_matter(text: str) -> tuple[dict, str, str]:
    """(front matter dict, body, error message or "") for a Markdown text."""
    match = FRONT_MATTER.match(text)
    if not match:
        return {}, text, ""
    body = text[match.end() :]
    try:
        data = yaml.safe_load(match.group(1))
    except yaml.YAMLError as error:
        first_line = str(error).splitlines()[0] if str(error) else type(error).__name__
        return {}, body, f"front matter is not valid YAML ({first_line})"
    if data is None:
        return {}, body, ""
    if not isinstance(data, dict):
        return {}, body, "front matter is not a mapping of key: value lines"
    return data, body, ""


def read_markdown(text: str, stem: str) -> tuple[str, dict]:
    """The Markdown body and its metadata: url, title, date from the front matter (+ other simple fields)."""
    front, body, error = split_front_matter(text.lstrip("\ufeff"))
    body = body.strip()
    if not body:
        raise ParseError("has no readable text (only front matter, or nothing at all)")
    # Title: front matter, else the first "# " heading, else the file name.
    heading = re.search(r"^#\s+(.+)$", body, re.MULTILINE)
    title = collapse(str(front.get("title") or "")) or (collapse(heading.group(1)) if heading else stem)
    metadata: dict = {str(key): _simple(value) for key, value in front.items() if str(key) not in RESERVED}
    metadata.update({"title": title, "url": collapse(str(front.get("url") or "")), "date": _iso(front.get("date"))})
    if error:
        metadata["front_matter_error"] = error
    return body, metadata
