"""Text files that hold many scraped pages: one page each, the site's menus taken out.

`split_pages` cuts the text at address markers ("SOURCE: https://…"); `drop_template_lines` removes the lines
(nearly) every page repeats, as a browser's reader view drops a site's menus.
What it leaves out: dumps without address markers (read whole) and menus that change from page to page.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

# "SOURCE: url" alone on a line (in capitals), or "Source:"/"URL:" boxed: under a rule of "=" or "-", or inside one
# ("=== URL: url ==="); a rule just below belongs to the marker. A bare "URL:" or "Source:" line, as notes put after
# the text they credit, is no marker.
_RULE = r"[ \t]*(?:={10,}|-{10,})[ \t]*\r?\n"
_MARKER = re.compile(
    rf"^(?P<rule>{_RULE})?[ \t]*(?P<open>=+[ \t]*)?(?P<key>SOURCE|URL):[ \t]*(?P<url>\S+)[ \t]*(?:=+[ \t]*)?\r?\n"
    rf"(?:{_RULE})?",
    re.MULTILINE | re.IGNORECASE,
)
TEMPLATE_SHARE = 0.8  # a line on at least this share of a file's pages is the site's template ...
TEMPLATE_MIN_PAGES = 10  # ... when the file has at least this many pages (with fewer, repeats may be content)


@dataclass(frozen=True)
class Page:
    """One scraped page of a text file: its address and its text."""

    url: str
    text: str


def split_pages(text: str) -> list[Page]:
    """The pages of a text with two or more address markers; [] for any other text (read it whole).

    Text before the first marker is kept as a page without an address when it holds letters or digits.

    >>> [page.url for page in split_pages("SOURCE: https://a.edu/x\\nFees\\nSOURCE: https://a.edu/y\\nDates\\n")]
    ['https://a.edu/x', 'https://a.edu/y']
    >>> split_pages("One page, no markers.")
    []
    """
    markers = [m for m in _MARKER.finditer(text) if m["rule"] or m["open"] or m["key"] == "SOURCE"]
    if len(markers) < 2:
        return []
    pages = []
    lead = text[: markers[0].start()]
    if any(character.isalnum() for character in lead):
        pages.append(Page("", lead.strip()))
    for marker, following in zip(markers, [*markers[1:], None], strict=True):
        body = text[marker.end() : following.start() if following else len(text)]
        pages.append(Page(marker["url"], body.strip()))
    return pages


def template_lines(pages: Sequence[Page]) -> set[str]:
    """The lines (stripped) on at least `TEMPLATE_SHARE` of the pages, when there are `TEMPLATE_MIN_PAGES` or more."""
    if len(pages) < TEMPLATE_MIN_PAGES:
        return set()
    on_pages = Counter(line for page in pages for line in {line.strip() for line in page.text.splitlines()})
    on_pages.pop("", None)
    return {line for line, count in on_pages.items() if count >= TEMPLATE_SHARE * len(pages)}


def drop_template_lines(pages: Sequence[Page]) -> list[Page]:
    """Each page without the lines nearly every page repeats (menus, footers); its first line, the title, stays."""
    template = template_lines(pages)
    kept = []
    for page in pages:
        title, *rest = page.text.splitlines() or [""]
        body = [line for line in rest if line.strip() not in template]
        kept.append(Page(page.url, "\n".join([title, *body]).strip()))
    return kept
