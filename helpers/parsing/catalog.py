"""Course catalogs: one document per course entry, its code and name known to every chunk of it.

A university catalog lists its courses as entries: "ADSP 31006. Time Series Analysis and Forecasting. 100 Units."
opens one, then come the description, the terms offered and the prerequisites, running on from page to page.
Cut by characters, the last lines of an entry (its prerequisites) land in a chunk that opens with the next
course, and nothing in that chunk says which course they belong to. `split_entries` cuts a file's pages at
the entry lines: each entry, with its continuation on the next page, becomes one text, and its heading
("ADSP 31006. Time Series Analysis and Forecasting") goes with every chunk of it into the embedder and BM25.
Text before the first entry stays with its page.
What it leaves out: catalogs written another way (a code without the "N Units." trailer, a table of courses),
read page by page as before, and the end of a catalog: text after the last entry stays with it.
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

    >>> pages = [(1, "Courses\\nAB 101. One. 3 Credits. Basics."), (2, "More basics.\\nAB 102. Two. 3 Credits. Next.\\n"
    ...          "AB 103. Three. 3 Credits. Last.")]
    >>> [(e.page, e.heading, e.text) for e in split_entries(pages)]  # doctest: +NORMALIZE_WHITESPACE
    [(1, '', 'Courses'), (1, 'AB 101. One', 'AB 101. One. 3 Credits. Basics.\\nMore basics.'),
     (2, 'AB 102. Two', 'AB 102. Two. 3 Credits. Next.'), (2, 'AB 103. Three', 'AB 103. Three. 3 Credits. Last.')]
    >>> split_entries([(1, "AB 101. One. 3 Credits. A page that names one course.")])
    []
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
