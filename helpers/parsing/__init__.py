"""Parsing: every file of the course corpus into LlamaIndex `Document`s with clean text and metadata.

`parse(path)` picks a parser by the file's content (the suffix only as a hint); metadata always holds `source`,
`doc_type` and `title`, and ids are the same on every run. `parse_folder(folder)` never crashes: a file that
cannot be parsed is skipped with a one-line reason. `tables="sentences"` writes each table row as a sentence,
`tables="raw"` keeps plain cell lines.
What it leaves out: OCR of images, the old binary Office formats, password-protected files, network access.

    >>> print(parse_folder("course_data/docs").summary())
"""

from __future__ import annotations

import csv
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bs4 import UnicodeDammit
from llama_index.core import Document
from tqdm.auto import tqdm

from helpers.parsing.base import (
    MAX_BYTES,
    ParseError,
    UnsupportedFile,
    check_tables_mode,
    decode_bytes,
    humanise,
    make_document,
    source_name,
)
from helpers.parsing.cache import ParseCache
from helpers.parsing.catalog import split_entries
from helpers.parsing.dumps import drop_template_lines, split_pages
from helpers.parsing.email import read_email
from helpers.parsing.html import html_to_text, noise_share
from helpers.parsing.markdown import read_markdown
from helpers.parsing.office import NAMES, read_docx, read_pptx, read_xlsx
from helpers.parsing.pdf import pdf_pages, read_pdf
from helpers.parsing.sniff import SUFFIX_KINDS, Sniffed, sniff
from helpers.parsing.tables import calendar_lines, csv_to_text, row_to_sentence

__all__ = [
    "ParseError",
    "ParseReport",
    "UnsupportedFile",
    "calendar_lines",
    "html_to_text",
    "noise_share",
    "parse",
    "parse_folder",
    "pdf_pages",
    "row_to_sentence",
]


def _parse_pdf(path: Path, meta: dict, tables: str) -> list[Document]:
    """One Document per page that has text; a course catalog, one per course entry (heading as `entry`)."""
    title, pages = read_pdf(path, tables=tables)
    entries = split_entries(pages)
    if entries:  # several entries share a page, so their ids count the entries: `page` keeps the page they start on
        return [
            make_document(entry.text, {**meta, "doc_type": "pdf", "title": title, "page": entry.page,
                                       **({"entry": entry.heading} if entry.heading else {})}, page=number)
            for number, entry in enumerate(entries, start=1)
        ]  # fmt: skip
    return [
        make_document(text, {**meta, "doc_type": "pdf", "title": title, "page": number}, page=number)
        for number, text in pages
    ]


def _parse_html(path: Path, meta: dict, tables: str) -> list[Document]:
    """One Document for the page's main text, with url and noise_share."""
    data = path.read_bytes()
    # UnicodeDammit honours a BOM or <meta charset>, then guesses; decode_bytes is the fallback.
    html = UnicodeDammit(data, is_html=True).unicode_markup or decode_bytes(data)
    text, found = html_to_text(html, tables=tables)
    found["title"] = found["title"] or humanise(path.stem)
    return [make_document(text, {**meta, "doc_type": "html", **found})]


def _parse_markdown(path: Path, meta: dict, tables: str) -> list[Document]:
    """One Document: the Markdown body, front matter as metadata."""
    text, found = read_markdown(decode_bytes(path.read_bytes()), humanise(path.stem))
    return [make_document(text, {**found, **meta, "doc_type": "markdown"})]


def _parse_email(path: Path, meta: dict, tables: str) -> list[Document]:
    """One Document: header block + body."""
    text, found = read_email(path)
    return [make_document(text, {**meta, "doc_type": "email", **found})]


def _parse_csv(path: Path, meta: dict, tables: str) -> list[Document]:
    """One Document: every row as a sentence (or raw lines), captioned with the file's name."""
    caption = humanise(path.stem)
    try:
        text = csv_to_text(decode_bytes(path.read_bytes()), caption, tables=tables)
    except csv.Error as error:  # NUL bytes, a runaway quoted field...
        raise ParseError(f"unreadable CSV ({error})") from None
    if not text:
        raise ParseError("has no readable text (the CSV has no rows)")
    return [make_document(text, {**meta, "doc_type": "table", "title": caption, "caption": caption})]


def _parse_docx(path: Path, meta: dict, tables: str) -> list[Document]:
    """One Document per section: its heading trail as a "#" line and as `heading` (cited), then its text."""
    title, sections = read_docx(path, tables=tables)
    return [
        make_document(text, {**meta, "doc_type": "docx", "title": title, "heading": heading}, page=number)
        for number, (heading, text) in enumerate(sections, start=1)
    ]


def _parse_pptx(path: Path, meta: dict, tables: str) -> list[Document]:
    """One Document per slide with text: cited by its number as the page, and by its title."""
    title, slides = read_pptx(path, tables=tables)
    return [
        make_document(text, {**meta, "doc_type": "pptx", "title": title, "page": number, "slide_title": name},
                      page=number)
        for number, name, text in slides
    ]  # fmt: skip


def _parse_xlsx(path: Path, meta: dict, tables: str) -> list[Document]:
    """One Document per sheet with cells: every row as a sentence (the CSV path), named by its sheet."""
    title, sheets = read_xlsx(path, tables=tables)
    return [
        make_document(text, {**meta, "doc_type": "xlsx", "title": title, "sheet": name}, page=number)
        for number, name, text in sheets
    ]


def _parse_text(path: Path, meta: dict, tables: str) -> list[Document]:
    """One Document, the text as it is (calendar lines event first); a dump of scraped pages, one per page."""
    text = decode_bytes(path.read_bytes()).strip()
    if tables == "sentences":
        text = calendar_lines(text)
    if not any(character.isalnum() for character in text):
        raise ParseError("has no readable text (no letters or digits)")
    pages = [page for page in drop_template_lines(split_pages(text)) if any(c.isalnum() for c in page.text)]
    if pages:
        return [
            make_document(page.text, {**meta, "doc_type": "text", "title": _text_title(page.text, path),
                                      "url": page.url}, page=number)
            for number, page in enumerate(pages, start=1)
        ]  # fmt: skip
    return [make_document(text, {**meta, "doc_type": "text", "title": _text_title(text, path)})]


def _text_title(text: str, path: Path) -> str:
    """The first line with a letter or digit ("#" marks stripped) when short, else the file's name."""
    first_line = next((line for line in text.splitlines() if any(c.isalnum() for c in line)), "")
    first_line = first_line.strip().lstrip("#").strip()
    return first_line if len(first_line) <= 100 else humanise(path.stem)


BY_KIND: dict[str, Callable[[Path, dict, str], list[Document]]] = {
    "pdf": _parse_pdf, "html": _parse_html, "markdown": _parse_markdown, "email": _parse_email, "csv": _parse_csv,
    "text": _parse_text, "docx": _parse_docx, "pptx": _parse_pptx, "xlsx": _parse_xlsx,
}  # fmt: skip
PARSERS = {suffix: BY_KIND[kind] for suffix, kind in SUFFIX_KINDS.items()}  # the suffixes the kit reads
UNEXPECTED = {  # what an unforeseen failure means to a student, by its type (the type's name is never shown)
    RecursionError: "is nested too deeply to parse (thousands of nested tags or lists)",
    MemoryError: "is too large to parse in memory",
    UnicodeError: "has text in an encoding that cannot be read",
}


def _unreadable(content: Sniffed, suffix: str) -> str:
    """The reason a file whose content no parser reads is skipped, and what to do about it."""
    start = f"unsupported file type {suffix!r}: it is" if suffix and suffix.lower() not in PARSERS else "it is"
    office = NAMES.get(SUFFIX_KINDS.get(suffix.lower(), ""), "")
    if content.kind == "encrypted":
        return (f"{start} a password-protected {office or 'Office file'}; remove the password (File > Info > "
                "Protect > Encrypt with Password, left empty) and save it again to index it")  # fmt: skip
    if content.kind == "binary" and office and content.detail.startswith("an old Office file"):
        # Office encrypts a .docx/.pptx/.xlsx into an OLE compound file, the container of the old formats too.
        return (f"{start} an OLE compound file, not the ZIP a {suffix!r} file is: password-protected, or an old "
                f"Office file renamed; remove the password, or save it again as {suffix!r}")  # fmt: skip
    if content.kind == "binary" and content.detail.startswith("an old Office file"):
        return f"{start} {content.label}; save it again as .docx, .pptx or .xlsx (or PDF) to index it"
    if content.kind == "zip" and content.damaged:
        return (f"{start} {content.label} (cut short?); re-download it, or if it is a Word, PowerPoint or Excel "
                "file, save it again")  # fmt: skip
    if content.kind == "zip":
        return f"{start} {content.label}, not a Word, PowerPoint or Excel file; unzip it to index the files inside"
    if content.kind == "image":
        return f"{start} {content.label}, not text; the kit reads no images: save its text as .txt or a PDF"
    return (f"{start} {content.label}, not text, PDF, HTML, e-mail or an Office file; nothing in it can be read "
            "(if it is a document, export it as PDF or text)")  # fmt: skip


def parse(path: str | Path, *, tables: str = "sentences", root: Path | None = None) -> list[Document]:
    """Parse one file into Documents, by what its content is (the suffix only as a hint); raises ParseError."""
    check_tables_mode(tables)
    path = Path(path)
    source = source_name(path, root)
    # Cheap checks first: a missing, empty or huge file is refused before anything reads it.
    if not path.is_file():
        if path.is_symlink():
            raise ParseError("broken symbolic link (it points to nothing, or round in a loop)", source)
        raise ParseError("file not found (or a broken link)", source)
    size = path.stat().st_size
    if size == 0:
        raise ParseError("empty file", source)
    if size > MAX_BYTES:
        raise ParseError(f"file is {size / 2**20:.1f} MB, over the {MAX_BYTES // 2**20} MB limit; split it", source)
    content = sniff(path)
    kind = content.parser_kind(path.suffix)
    if kind is None:
        error = UnsupportedFile if path.suffix.lower() not in PARSERS else ParseError
        raise error(_unreadable(content, path.suffix), source)
    try:
        return BY_KIND[kind](path, {"source": source}, tables)
    except UnsupportedFile:
        raise
    except ParseError as error:
        raise ParseError(error.reason, source) from None
    except tuple(UNEXPECTED) as error:
        reason = next(text for kind_, text in UNEXPECTED.items() if isinstance(error, kind_))
        raise ParseError(f"{reason}; open it to check it, or save it again as PDF or text", source) from None


@dataclass
class ParseReport:
    """What parse_folder made: the documents, and the files it skipped with the reason why."""

    documents: list[Document] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (relative path, reason)
    notes: list[tuple[str, str]] = field(default_factory=list)  # (relative path, how it was read) when suffix lies

    def counts(self) -> Counter[str]:
        """Number of documents per doc_type."""
        return Counter(str(doc.metadata["doc_type"]) for doc in self.documents)

    def summary(self) -> str:
        """One line: "parsed 58 files into 74 documents; skipped 2: a.pdf (corrupt PDF: ...), ..."."""
        files = len({doc.metadata["source"] for doc in self.documents})
        line = f"parsed {files} files into {len(self.documents)} documents; skipped {len(self.skipped)}"
        if self.skipped:
            line += ": " + ", ".join(f"{name} ({reason})" for name, reason in self.skipped)
        if self.notes:
            line += f"; read by content, not suffix: {len(self.notes)}: "
            line += ", ".join(f"{name} ({note})" for name, note in self.notes)
        return line


def _walk(folder: Path) -> list[Path]:
    """Every file under folder, sorted; hidden files and folders are ignored, symlinked folders not entered."""
    files = []
    for directory, subdirectories, names in os.walk(folder, followlinks=False):
        subdirectories[:] = sorted(d for d in subdirectories if not d.startswith("."))
        files += [Path(directory) / name for name in names if not name.startswith(".")]
    return sorted(files, key=lambda p: p.relative_to(folder).as_posix())


def parse_folder(
    path: str | Path, *, tables: str = "sentences", progress: bool = True, cache_dir: Path | None = None
) -> ParseReport:
    """Parse every file under a folder; files that fail are skipped with a one-line reason, never raised.
    With `cache_dir`, parsed documents are kept on disk (`cache.py`), so a second run only reads files."""
    check_tables_mode(tables)
    folder = Path(path)
    if not folder.is_dir():
        raise ParseError("not a folder (or it does not exist)", str(folder))
    report = ParseReport()
    store = ParseCache(cache_dir / "parsed.sqlite") if cache_dir is not None else None
    try:
        for file in tqdm(_walk(folder), desc="parsing", unit="file", disable=not progress):
            try:
                report.documents += _parse_cached(file, tables, folder, store)
            except ParseError as error:
                report.skipped.append((source_name(file, folder), error.reason))
            except Exception as error:  # a bug or a file no check foresaw: name the file and what to do, keep going
                reason = f"could not be parsed ({_first_line(error)}); open it to check it, or save it as PDF or text"
                report.skipped.append((source_name(file, folder), reason))
            else:
                if note := sniff(file).note(file.suffix):
                    report.notes.append((source_name(file, folder), note))
    finally:
        if store is not None:
            store.close()
    return report


def _first_line(error: BaseException) -> str:
    """An error's message, one line, at most 120 characters, without its type name."""
    text = " ".join(str(error).split()) or "no detail"
    return text if len(text) <= 120 else text[:119] + "…"


def _parse_cached(file: Path, tables: str, root: Path, store: ParseCache | None) -> list[Document]:
    """`parse`, served from the cache when the same bytes were parsed before by the same parser."""
    if store is None:
        return parse(file, tables=tables, root=root)
    key = ParseCache.key(file, source_name(file, root), tables)
    documents = store.get(key)
    if documents is None:
        documents = parse(file, tables=tables, root=root)
        store.put(key, documents)
    return documents
