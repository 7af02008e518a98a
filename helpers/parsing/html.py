"""HTML to clean text: keep the page's content, drop its boilerplate (menus, banners, ads, scripts).

The content root is `<main>`, else a single `<article>`, else `<body>`; headings become "## Heading" lines,
lists "- item" lines, definition lists "term: definition", tables table-to-text.
What it leaves out: CSS (hidden elements are kept: collapsed FAQ answers are content too) and JavaScript.
"""

from __future__ import annotations

import re
from html import unescape

from bs4 import BeautifulSoup, Comment, NavigableString, Tag
from bs4.element import CData, Declaration, Doctype, ProcessingInstruction

from helpers.parsing.base import ParseError, collapse
from helpers.parsing.tables import table_to_text

# fmt: off
# Tags that never hold the page's content.
DROP_TAGS = frozenset({
    "script", "style", "noscript", "iframe", "svg", "form", "button", "nav", "footer", "aside", "template",
    "canvas", "object", "embed", "dialog", "select", "input", "textarea",
})
# Whole tokens of id/class/role/aria-label that mark boilerplate ("ad" matches "ad-slot", not "header").
NOISE_TOKENS = frozenset({
    "cookie", "cookies", "consent", "gdpr", "banner", "ad", "ads", "advert", "adverts", "advertisement",
    "sponsor", "sponsored", "promo", "social", "share", "sharing", "newsletter", "subscribe", "popup", "modal",
    "breadcrumb", "breadcrumbs", "skip", "navbar", "menu",
})
AMBIGUOUS = frozenset({"ad", "ads"})  # whole words, but also a course code ("ADS 510") in ids and labels
# Words that may sit next to a boilerplate word in an id ("cookie-banner", "share-buttons", "ad-slot").
FILLER = frozenset({
    "bar", "box", "btn", "button", "buttons", "container", "wrapper", "wrap", "widget", "widgets", "link", "links",
    "block", "area", "notice", "top", "bottom", "slot", "unit", "overlay", "panel", "signup", "icons", "tools",
})
NOISE_ROLES = frozenset({"navigation", "banner", "contentinfo", "complementary", "search", "dialog", "alertdialog"})
HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_DIGIT = re.compile(r"\d")
# Tags that flow inside a line of text; every other tag starts a new block.
INLINE_TAGS = frozenset({
    "a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "del", "dfn", "em", "font", "i", "img", "ins", "kbd",
    "label", "mark", "q", "s", "samp", "small", "span", "strong", "sub", "sup", "time", "u", "var", "wbr",
})
# fmt: on
SKIPPED_STRINGS = (Comment, Declaration, Doctype, ProcessingInstruction, CData)


def noise_share(raw: str, kept_text: str) -> float:
    """Share of the HTML bytes that were removed as boilerplate (markup, scripts, menus...), in [0, 1]."""
    raw_bytes = len(raw.encode("utf-8"))
    if raw_bytes == 0:
        return 0.0
    return round(min(1.0, max(0.0, 1.0 - len(kept_text.encode("utf-8")) / raw_bytes)), 4)


def _words(value: str) -> set[str]:
    """The lower-case words of an attribute value, split on - _ spaces and camelCase ("cookieBanner")."""
    value = re.sub(r"([a-z])([A-Z])", r"\1 \2", value)
    return set(re.split(r"[\s\-_]+", value.lower())) - {""}


def _is_noise(tag: Tag) -> bool:
    """True for a non-content tag, or an element whose class, role, aria-label or id names boilerplate."""
    classes = _words(" ".join(tag.get("class") or []))
    label = _words(tag.get("aria-label") or "")
    ident = {word for word in _words(tag.get("id") or "") if not word.isdigit()}
    if classes & NOISE_TOKENS or (tag.get("role") or "").lower() in NOISE_ROLES:
        return True
    # aria-label is prose and an id is often a heading's slug ("career-seminar-ads-590"): there only a short
    # label or an id made of nothing but boilerplate words counts, and never "ad"/"ads" (a course code here).
    if len(label) <= 3 and label & (NOISE_TOKENS - AMBIGUOUS):
        return True
    if ident and ident <= (NOISE_TOKENS | FILLER) - AMBIGUOUS:
        return True
    # An accordion toggle (an FAQ question) is content; any other button, form or script is not.
    toggle = tag.name == "button" and (tag.has_attr("aria-controls") or tag.has_attr("aria-expanded"))
    return tag.name in DROP_TAGS and not toggle


def _content_root(soup: BeautifulSoup) -> Tag:
    """The element that holds the content: <main>, else the only <article>, else <body> (none: ParseError)."""
    main = soup.find("main") or soup.find(attrs={"role": "main"})
    if isinstance(main, Tag) and collapse(main.get_text()):
        return main
    articles = soup.find_all("article")
    if len(articles) == 1 and collapse(articles[0].get_text()):
        return articles[0]
    if soup.body is None:
        raise ParseError("has no readable text (the HTML has no <body>)")
    return soup.body


def _remove_boilerplate(soup: BeautifulSoup, root: Tag) -> None:
    """Delete noise elements in place, but never the root, its ancestors, or an element holding an <h1>."""
    protected = {id(root)} | {id(parent) for parent in root.parents}
    for tag in list(soup.find_all(True)):
        if tag.decomposed or id(tag) in protected or tag.name in ("html", "head", "body", "title", "meta", "link"):
            continue
        if tag.name == "header":
            # A site header goes; an article's own header (title, byline) inside <main>/<article> stays.
            inside = any(parent is root for parent in tag.parents)
            keep = root.name != "body" and inside and tag.find(("h1", "h2", "h3")) is not None
            if not keep:
                tag.decompose()
            continue
        if _is_noise(tag) and tag.find("h1") is None:
            tag.decompose()


def _text(node: Tag | NavigableString) -> str:
    """The visible text of a node, with a space wherever a block element starts or ends (not collapsed)."""
    if isinstance(node, NavigableString):
        return "" if isinstance(node, SKIPPED_STRINGS) else str(node)
    inner = "".join(_text(child) for child in node.children)
    return inner if node.name in INLINE_TAGS else f" {inner} "


def _take_spanned(row: list[str], pending: dict[int, tuple[int, str]]) -> None:
    """Append the cells that rowspans from the rows above hold at the row's current end."""
    while len(row) in pending:
        rows_left, text = pending.pop(len(row))
        if rows_left > 1:
            pending[len(row)] = (rows_left - 1, text)
        row.append(text)


def _table_rows(table: Tag) -> list[tuple[list[str], bool]]:
    """The table as a grid: each row's cell texts (colspan/rowspan repeated) and whether it is a header row."""
    grid: list[tuple[list[str], bool]] = []
    pending: dict[int, tuple[int, str]] = {}  # column -> (rows it still spans, text) for rowspans from above
    for tr in table.find_all("tr"):
        if tr.find_parent("table") is not table:  # a row of a nested table
            continue
        cells = tr.find_all(("td", "th"), recursive=False)
        is_header = (bool(cells) and all(cell.name == "th" for cell in cells)) or tr.find_parent("thead") is not None
        row: list[str] = []
        for cell in cells:
            _take_spanned(row, pending)
            text = collapse(_text(cell))
            for _ in range(_span(cell, "colspan")):
                if _span(cell, "rowspan") > 1:
                    pending[len(row)] = (_span(cell, "rowspan") - 1, text)
                row.append(text)
        _take_spanned(row, pending)
        if any(row):
            grid.append((row, is_header))
    return grid


def _span(cell: Tag, attribute: str) -> int:
    """A cell's colspan or rowspan as a small positive int (bad values count as 1)."""
    try:
        return max(1, min(int(str(cell.get(attribute, 1)).strip()), 50))
    except ValueError:
        return 1


def _corner_header(grid: list[tuple[list[str], bool]]) -> list[list[str]]:
    """Leading <td> rows with an empty first cell above rows labelled in their first cell, taken out of `grid`
    as the column names ("| | Session I | Session II |" over "| Start | June 1 | July 6 |")."""
    corner = 0
    while corner < len(grid) and not grid[corner][0][0] and any(grid[corner][0][1:]):
        corner += 1
    labelled = grid[corner:]
    if not corner or len(labelled) < 2 or not all(row[0] for row, _ in labelled):
        return []
    header_rows = [row for row, _ in grid[:corner]]
    del grid[:corner]
    return header_rows


def _label_row_header(grid: list[tuple[list[str], bool]]) -> list[list[str]]:
    """A first <td> row of short labels ("| Course Drop Date | Refund % |") over rows holding clearly more digits
    ("| January 5 | 50% |"), taken out of `grid` as the column names."""
    if len(grid) < 3:
        return []
    first, body = grid[0][0], [row for row, _ in grid[1:]]
    if len(first) < 2 or not all(cell and len(cell) <= 40 for cell in first):
        return []
    if _digit_share(first) > 0.25 or sum(map(_digit_share, body)) / len(body) < _digit_share(first) + 0.2:
        return []
    del grid[0]
    return [first]


def _digit_share(row: list[str]) -> float:
    """The share of a row's non-empty cells that hold a digit."""
    cells = [cell for cell in row if cell]
    return sum(bool(_DIGIT.search(cell)) for cell in cells) / len(cells) if cells else 0.0


def _table_text(table: Tag, tables: str) -> str:
    """A <table> as text: caption from <caption> or the nearest heading above; header from its <th> rows."""
    caption_tag = table.find("caption")
    heading = table.find_previous(HEADINGS)
    caption = collapse(_text(caption_tag)) if caption_tag else (collapse(_text(heading)) if heading else "")
    grid = _table_rows(table)
    header_rows = []
    while grid and grid[0][1]:  # leading header rows; several are joined per column
        header_rows.append(grid.pop(0)[0])
    if not header_rows:
        header_rows = _corner_header(grid) or _label_row_header(grid)
    width = max((len(row) for row in header_rows), default=0)
    header = [" ".join(dict.fromkeys(r[i] for r in header_rows if i < len(r) and r[i])) for i in range(width)]
    return table_to_text(
        caption, header, [row for row, _ in grid], tables=tables, caption_in_raw=caption_tag is not None
    )


def _list_lines(lst: Tag, depth: int = 0) -> list[str]:
    """A <ul>/<ol> as "- item" / "1. item" lines, nested lists indented."""
    lines = []
    for number, item in enumerate(lst.find_all("li", recursive=False), start=1):
        nested = item.find_all(("ul", "ol"), recursive=False)
        text = collapse("".join(_text(child) for child in item.children if all(child is not n for n in nested)))
        marker = f"{number}." if lst.name == "ol" else "-"
        if text:
            lines.append(f"{'  ' * depth}{marker} {text}")
        for sub in nested:
            lines.extend(_list_lines(sub, depth + 1))
    return lines


def _definition_lines(dl: Tag) -> list[str]:
    """A <dl> as "term: definition" paragraphs (a question ending in "?" is followed by a space only)."""
    blocks, term = [], ""
    for item in dl.find_all(("dt", "dd")):
        text = collapse(_text(item))
        if item.name == "dt":
            term = text
        elif text:
            joiner = " " if term[-1:] in "?:.!" else ": "
            blocks.append(f"{term}{joiner}{text}" if term else text)
    return blocks


def _blocks(node: Tag, out: list[str], tables: str) -> None:
    """Walk a container in document order, appending one text block per heading, paragraph, list or table."""
    inline: list[str] = []

    def flush() -> None:
        text = collapse("".join(inline))
        if text:
            out.append(text)
        inline.clear()

    for child in node.children:
        if isinstance(child, NavigableString):
            inline.append(_text(child))
            continue
        if not isinstance(child, Tag):
            continue
        name = child.name
        if name in INLINE_TAGS and child.find(lambda t: t.name not in INLINE_TAGS) is None:
            inline.append(_text(child))  # an inline element stays in the current line
            continue
        flush()
        if name in HEADINGS:
            text = collapse(_text(child))
            if text:
                out.append(f"{'#' * int(name[1])} {text}")
        elif name in ("ul", "ol"):
            out.append("\n".join(_list_lines(child)))
        elif name == "dl":
            out.extend(_definition_lines(child))
        elif name == "table":
            out.append(_table_text(child, tables))
        elif name == "pre":
            out.append(child.get_text().strip("\n"))
        else:  # div, section, p, blockquote, details...: walk inside
            _blocks(child, out, tables)
    flush()


def _meta_content(soup: BeautifulSoup, **attrs: str) -> str:
    """The content of the first <meta> with these attributes, or ""."""
    tag = soup.find("meta", attrs=attrs)
    return collapse(str(tag.get("content") or "")) if isinstance(tag, Tag) else ""


MAX_DEPTH = 400  # deeper markup is read flat: the tree walk recurses once per level
# Tags that hold no others, and tags whose end is optional.
VOID_TAGS = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
                       "wbr", "p", "li", "td", "th", "tr", "option"})  # fmt: skip
_TAG = re.compile(r"<(/?)([a-zA-Z][\w-]*)[^>]*?(/?)>")


def nesting_depth(html: str) -> int:
    """The deepest nesting of elements, counted from the tags alone (no tree is built)."""
    depth = deepest = 0
    for match in _TAG.finditer(html):
        closing, name, self_closing = match.group(1), match.group(2).lower(), match.group(3)
        if name in VOID_TAGS or self_closing:
            continue
        depth = max(0, depth - 1) if closing else depth + 1
        deepest = max(deepest, depth)
    return deepest


def flat_text(html: str) -> tuple[str, dict]:
    """Text of HTML too deeply nested for the tree walk: scripts and styles dropped, block tags as line breaks."""
    title = re.search(r"<title[^>]*>(.*?)</title>", html, re.I | re.S)
    body = re.sub(r"<(script|style|noscript|template|head)\b.*?</\1\s*>", " ", html, flags=re.I | re.S)
    body = re.sub(r"<(?:br|/?(?:p|div|li|tr|h[1-6]|section|article|table|ul|ol))\b[^>]*>", "\n", body, flags=re.I)
    body = unescape(re.sub(r"<[^>]*>", " ", body))
    lines = [collapse(line) for line in body.splitlines()]
    text = "\n".join(line for line in lines if line)
    if not text:
        raise ParseError("has no readable text (only markup, scripts or styles)")
    found_title = collapse(unescape(title.group(1))) if title else ""
    return text, {"title": found_title, "url": "", "noise_share": noise_share(html, collapse(text))}


def html_to_text(html: str, *, tables: str = "sentences") -> tuple[str, dict]:
    """The main text of an HTML page and its metadata: title, url (canonical or og:url), noise_share."""
    if nesting_depth(html) > MAX_DEPTH:
        return flat_text(html)
    soup = BeautifulSoup(html, "lxml")
    # 1. Metadata first, from <head>, before anything is removed.
    canonical = soup.find("link", rel="canonical")
    url = str(canonical.get("href") or "") if isinstance(canonical, Tag) else ""
    url = url or _meta_content(soup, property="og:url")
    title = collapse(soup.title.get_text()) if soup.title else ""
    title = title or _meta_content(soup, property="og:title")
    if soup.head is not None:  # <head> holds no visible text
        soup.head.decompose()
    # 2. Pick the content root, then cut the boilerplate out of the page.
    root = _content_root(soup)
    for br in root.find_all("br"):
        br.replace_with("\n")
    _remove_boilerplate(soup, root)
    # 3. Write the remaining content as blocks separated by blank lines.
    blocks: list[str] = []
    _blocks(root, blocks, tables)
    text = "\n\n".join(block for block in blocks if block.strip())
    if not text.strip():
        raise ParseError("has no readable text (no <body>, or only menus, scripts and banners)")
    if not title:
        first_h1 = root.find("h1")
        title = collapse(_text(first_h1)) if first_h1 else ""
    # Noise share compares the plain kept text (not the "## " markers or table sentences) with the raw bytes.
    kept = collapse(_text(root))
    return text, {"title": title, "url": url, "noise_share": noise_share(html, kept)}
