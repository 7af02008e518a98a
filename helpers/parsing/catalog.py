"""Course catalogs: one document per course entry, its code and name known to every chunk of it.

Cut by characters, an entry's last lines (its prerequisites) land in a chunk that opens with the next course.
`split_entries` cuts the pages at the entry lines ("ADSP 31006. Time Series Analysis and Forecasting. 100
Units."), so each entry's heading goes with every chunk of it into the embedder and BM25.
What it leaves out: catalogs written another way (read page by page), and the catalog's end (text after the
last entry stays with it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

# "ADSP 31006. Time Series Analysis and Forecasting. 100 Units." (also "CS 101A. Name. 3 Credits.").
ENTRY_LINE = re.compile(
    r"(?<!\S)(?P<code>[A-Z]{2,5} \d{3,5}[A-Z]?)\. (?P<name>[^.\n]{3,120}?)\. "
    r"\d+(?:\.\d+)? (?:Units?|Credits?|Credit Hours?|Hours?)\."
)
MIN_ENTRIES = 3  # a file with fewer entry lines is no catalog: a page that mentions a course or two


@dataclass(frozen=True)
class Entry:
    """A piece of a catalog: the page it starts on, its heading ("" before the first entry) and its text."""

    page: int
    heading: str
    text: str


def split_entries(pages: Sequence[tuple[int, str]]) -> list[Entry]:
    """The entries of a catalog's (page number, text) pages; [] when it has fewer than MIN_ENTRIES entry lines.

    Text before the first entry line is an entry without a heading; an entry runs on across pages.
    """
    found = [(number, text, list(ENTRY_LINE.finditer(text))) for number, text in pages]
    if sum(len(matches) for _, _, matches in found) < MIN_ENTRIES:
        return []
    entries: list[Entry] = []
    for number, text, matches in found:
        lead = (text[: matches[0].start()] if matches else text).strip()
        if lead and entries and entries[-1].heading:  # the open entry runs on from the page before
            last = entries[-1]
            entries[-1] = Entry(last.page, last.heading, f"{last.text}\n{lead}")
        elif lead:
            entries.append(Entry(number, "", lead))
        for match, following in zip(matches, [*matches[1:], None], strict=False):  # no entry line: no loop
            body = text[match.start() : following.start() if following else len(text)].strip()
            entries.append(Entry(number, f"{match['code']}. {match['name']}", body))
    return entries
