"""Filter payload read from a chunk's own words: the academic terms and the tracks it names.

`named_facets(node)` reads the chunk's text, its section path and its document's title (an e-mail's subject)
for terms written as a season and a year ("Autumn 2026", "winter quarter 2027", "fall of 2026"; fall is
written Autumn, as the course does) and for the course's two tracks ("MLE" / "Machine Learning Engineering",
"ADSc" / "Analytics and Decision Science"). `finish` stores what it finds as the payload lists `term` and
`track`, only where something is named: a chunk that names no term has no `term`, and a chunk that names two
(a calendar chunk across a term's end) has both, so a filter `{"term": "Winter 2027"}` matches it. Neither
list is embedded nor shown to the LLM, so chunk ids and vectors stay as they were. A value the document
already carries (a front matter `term:`) is kept as it is.
What it leaves out: terms implied but not named ("this quarter", a date inside a term, "next autumn") and
the degree program, which the course names too rarely to filter on (most chunks are about the MS without
saying so).
"""

from __future__ import annotations

import re

from llama_index.core.schema import TextNode

FACET_KEYS = ("term", "track")
SEASONS = {"autumn": "Autumn", "fall": "Autumn", "winter": "Winter", "spring": "Spring", "summer": "Summer"}
CALENDAR_ORDER = ("Winter", "Spring", "Summer", "Autumn")  # the seasons of one calendar year, in order
TERM = re.compile(r"\b(autumn|fall|winter|spring|summer)(?:\s+(?:quarter|term))?\s+(?:of\s+)?(20\d\d)\b", re.I)
TRACKS = {"ADSc": re.compile(r"\b(adsc|analytics (and|&) decision science)\b", re.I),
          "MLE": re.compile(r"\b(mle|machine learning engineering)\b", re.I)}  # fmt: skip


def named_terms(text: str) -> list[str]:
    """The terms a text names, as "Season YYYY", once each and in time order."""
    found = {(int(year), CALENDAR_ORDER.index(SEASONS[season.lower()])) for season, year in TERM.findall(text)}
    return [f"{CALENDAR_ORDER[season]} {year}" for year, season in sorted(found)]


def named_tracks(text: str) -> list[str]:
    """The course tracks a text names ("ADSc", "MLE")."""
    return [track for track, pattern in TRACKS.items() if pattern.search(text)]


def named_facets(node: TextNode) -> dict[str, list[str]]:
    """The terms and tracks the chunk's text, section path and title name (keys with nothing found left out)."""
    named = [str(node.metadata.get(key, "")) for key in ("title", "subject", "section_path")]
    words = "\n".join([*named, node.get_content()])
    found = {"term": named_terms(words), "track": named_tracks(words)}
    return {key: values for key, values in found.items() if values}


def add_facets(node: TextNode) -> None:
    """Store the named terms and tracks in the node's metadata, out of the embedder's and the LLM's sight."""
    for key, values in named_facets(node).items():
        node.metadata.setdefault(key, values)
    for excluded in (node.excluded_embed_metadata_keys, node.excluded_llm_metadata_keys):
        excluded.extend(key for key in FACET_KEYS if key in node.metadata and key not in excluded)
