"""Filter payload read from a chunk's own words: the academic terms ("Autumn 2026") and the tracks it names.

`finish` stores them as the payload lists `term` and `track`, only where something is named (a chunk across a term's
end has both terms); neither is embedded nor shown to the LLM, so ids and vectors stay as they were.
What it leaves out: terms implied but not named ("this quarter", "next autumn") and the degree program.
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
