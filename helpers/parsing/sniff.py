"""What a file really is, from its first bytes: the suffix is a hint, the content decides.

`sniff(path)` names the kind: pdf, zip (docx, pptx, xlsx by their members), image, binary, html, email, text,
or `encrypted` (an OLE file holding a password-protected Office package). `Sniffed.parser_kind(suffix)` picks
the parser, the suffix deciding only among text formats; `Sniffed.note(suffix)` says when the two disagree.
What it leaves out: decrypting (a password is never asked for) and images (no OCR).
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

from helpers.parsing.base import MAX_BYTES, decode_bytes, utf16_codec

HEAD_BYTES = 8192
SUFFIX_KINDS = {
    ".pdf": "pdf", ".html": "html", ".htm": "html", ".md": "markdown", ".markdown": "markdown", ".eml": "email",
    ".csv": "csv", ".txt": "text", ".docx": "docx", ".docm": "docx", ".pptx": "pptx", ".pptm": "pptx",
    ".xlsx": "xlsx", ".xlsm": "xlsx",
}  # fmt: skip
TEXT_KINDS = ("markdown", "csv", "text")
OFFICE_KINDS = ("docx", "pptx", "xlsx")
LABELS = {
    "pdf": "a PDF", "html": "an HTML page", "email": "an e-mail", "markdown": "Markdown", "csv": "a CSV table",
    "text": "plain text", "zip": "a ZIP archive", "image": "an image", "binary": "a binary file",
    "docx": "a Word document", "pptx": "a PowerPoint presentation", "xlsx": "an Excel workbook",
    "encrypted": "a password-protected Office file",
}  # fmt: skip
# The part every package of a kind has, and the folder its other parts sit in (the macro-enabled and template
# variants have the same parts: only their content types differ).
OFFICE_PARTS = {"docx": "word/document.xml", "pptx": "ppt/presentation.xml", "xlsx": "xl/workbook.xml"}
OFFICE_FOLDERS = {b"word/": "docx", b"ppt/": "pptx", b"xl/": "xlsx"}
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
ENCRYPTED_STREAM = "EncryptedPackage".encode("utf-16-le")  # a directory entry's name in an OLE file is UTF-16
IMAGE_MAGIC = {b"\x89PNG": "PNG", b"\xff\xd8\xff": "JPEG", b"GIF8": "GIF", b"II*\x00": "TIFF", b"MM\x00*": "TIFF"}
BINARY_MAGIC = {
    b"\xd0\xcf\x11\xe0": "an old Office file (.doc, .xls or .ppt)", b"\x1f\x8b": "a gzip archive",
    b"7z\xbc\xaf": "a 7-Zip archive", b"Rar!": "a RAR archive", b"\x7fELF": "a program",
}  # fmt: skip
_HTML_START = re.compile(r"^\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body|meta|title)\b", re.I | re.S)
_SVG_START = re.compile(
    r"^\ufeff?\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*(?:<!doctype\s+svg[^>]*>\s*)?<svg\b", re.I | re.S
)
_HEADER = re.compile(r"^[A-Za-z][A-Za-z0-9-]*:[ \t]")
_MAIL_KEYS = ("subject", "date", "to", "message-id", "mime-version", "received", "reply-to", "cc")
_SOME_TAG = re.compile(r"</?(?:p|div|span|a|h[1-6]|table|tr|td|ul|ol|li|br|section|article|main|body)\b[^>]*>", re.I)
_MARKDOWN = re.compile(r"\A\ufeff?---\r?\n|^#{1,6} \S", re.M)  # YAML front matter, or an ATX heading
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f]")


@dataclass(frozen=True)
class Sniffed:
    """The kind a file's content shows, and a detail for the report (the image format, the archive type)."""

    kind: str
    detail: str = ""
    has_tags: bool = False  # text with HTML tags in it: an .html file that does not open with <html>
    damaged: bool = False  # a ZIP whose directory cannot be read (cut short, or not a ZIP after its first bytes)

    @property
    def label(self) -> str:
        """How the report names the content ("a PDF", "an image (PNG)")."""
        return self.detail or LABELS[self.kind]

    def parser_kind(self, suffix: str) -> str | None:
        """The parser to use: the content's, or among text formats the suffix's; None when nothing can read it."""
        by_suffix = SUFFIX_KINDS.get(suffix.lower())
        if self.kind == "zip" and self.damaged and by_suffix in OFFICE_KINDS:
            return by_suffix  # its parser names the format and says the file is damaged
        if self.kind in ("zip", "image", "binary", "encrypted"):
            return None
        if self.kind in TEXT_KINDS:
            if by_suffix == "html" and self.has_tags:
                return "html"
            if by_suffix in TEXT_KINDS or by_suffix == "email":
                return by_suffix  # the suffix picks among text formats; a header-less .eml is read as an e-mail
            return self.kind  # no suffix, an unknown one, or a PDF/HTML name on plain text
        return self.kind

    def note(self, suffix: str) -> str | None:
        """A line for the report when the suffix and the content disagree (None when they agree)."""
        by_suffix, used = SUFFIX_KINDS.get(suffix.lower()), self.parser_kind(suffix)
        if used is None or used == by_suffix:
            return None
        if not suffix:
            return f"has no suffix; read as {LABELS[used]} by its content"
        shown = self.label if self.kind not in TEXT_KINDS else LABELS[used]
        return f"saved as {suffix!r} but is {shown}; read as {LABELS[used]}"


def _is_email(text: str) -> bool:
    """Whether the text opens with an RFC 822 header block: From: (or Received:) and another mail header."""
    keys = []
    for line in text.replace("\r\n", "\n").split("\n")[:40]:
        if not line.strip():
            break
        if line[:1] in " \t" and keys:
            continue  # a folded header line
        if not _HEADER.match(line):
            return False
        keys.append(line.split(":", 1)[0].lower())
    has_sender = "from" in keys or "received" in keys or "return-path" in keys
    return has_sender and any(key in keys for key in _MAIL_KEYS)


def sniff_bytes(head: bytes) -> Sniffed:
    """The kind of content these first bytes show."""
    if b"%PDF-" in head[:1024]:
        return Sniffed("pdf")
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        kind = _office_kind_from_head(head)
        return Sniffed(kind) if kind else Sniffed("zip")
    if head.startswith(OLE_MAGIC) and ENCRYPTED_STREAM in head:
        return Sniffed("encrypted")
    for magic, name in IMAGE_MAGIC.items():
        if head.startswith(magic):
            return Sniffed("image", f"an image ({name})")
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return Sniffed("image", "an image (WebP)")
    for magic, name in BINARY_MAGIC.items():
        if head.startswith(magic):
            return Sniffed("binary", name)
    text = head.decode(utf16_codec(head)) if utf16_codec(head) else decode_bytes(head)
    if _SVG_START.match(text):  # XML markup for a drawing, not a page to read
        return Sniffed("image", "an image (SVG)")
    if _HTML_START.match(text):
        return Sniffed("html")
    if _is_email(text.lstrip("\ufeff")):  # before the binary test: a UTF-16 body under ASCII headers has NULs
        return Sniffed("email")
    if not text.strip("\x00") or len(_CONTROL.findall(text)) > 0.1 * len(text):
        return Sniffed("binary")
    return Sniffed("markdown" if _MARKDOWN.search(text) else "text", has_tags=bool(_SOME_TAG.search(text)))


def _office_kind_from_head(head: bytes) -> str | None:
    """The Office kind the member names in a ZIP's first local headers show (each holds its name in clear)."""
    for match in re.finditer(rb"PK\x03\x04", head):
        start = match.start()
        size = int.from_bytes(head[start + 26 : start + 28], "little")
        name = head[start + 30 : start + 30 + size]
        for folder, kind in OFFICE_FOLDERS.items():
            if name.startswith(folder):
                return kind
    return None


def _zip_kind(path: Path, guess: Sniffed) -> Sniffed:
    """A ZIP's kind from its directory: an Office package by its main part, else a ZIP archive (or a damaged one)."""
    try:
        with zipfile.ZipFile(path) as package:
            names = set(package.namelist())
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):  # no readable directory: cut short or not a ZIP
        return guess if guess.kind in OFFICE_KINDS else Sniffed("zip", "a damaged ZIP archive", damaged=True)
    kind = next((kind for kind, part in OFFICE_PARTS.items() if part in names), None)
    return Sniffed(kind) if kind else Sniffed("zip")


def _holds_encrypted_package(path: Path) -> bool:
    """Whether an OLE compound file names an EncryptedPackage stream anywhere (its directory can sit at the end)."""
    overlap = len(ENCRYPTED_STREAM)
    with Path(path).open("rb") as handle:
        tail, read = b"", 0
        while read < MAX_BYTES and (block := handle.read(1 << 20)):
            if ENCRYPTED_STREAM in tail + block:
                return True
            tail, read = block[-overlap:], read + len(block)
    return False


def sniff(path: Path) -> Sniffed:
    """The kind of a file's content, from its first HEAD_BYTES (and a ZIP's directory, an OLE file's names)."""
    with Path(path).open("rb") as handle:
        head = handle.read(HEAD_BYTES)
    found = sniff_bytes(head)
    if found.kind in ("zip", *OFFICE_KINDS):
        return _zip_kind(Path(path), found)
    if head.startswith(OLE_MAGIC) and _holds_encrypted_package(Path(path)):
        return Sniffed("encrypted")
    return found
