"""E-mails (RFC 822 `.eml`) to text: a short header block, then the plain-text body (the HTML part converted).

Sender, recipients, ISO date, subject, thread (subject without Re:/Fwd:) and Message-ID go into the metadata.
What it leaves out: attachments (never read), signatures, and threading by References headers.
"""

from __future__ import annotations

import re
from email import policy
from email.message import EmailMessage, Message
from email.parser import BytesParser
from email.utils import parsedate_to_datetime
from pathlib import Path

from helpers.parsing.base import ParseError, collapse, decode_bytes
from helpers.parsing.html import html_to_text

REPLY_PREFIX = re.compile(r"^\s*((re|fwd?|aw|sv|wg)\s*(\[\d+\])?\s*:\s*)+", re.IGNORECASE)
MIME_LINE = re.compile(r"^(--\S+|Content-[\w-]+:.*)$", re.IGNORECASE)  # boundaries and part headers left in a body
ATTRIBUTION = re.compile(r"^\s*On .{1,200} wrote:\s*$")


def thread_of(subject: str) -> str:
    """The thread key of a subject: "Re: Fwd: Exam dates" -> "Exam dates"."""
    return collapse(REPLY_PREFIX.sub("", subject or ""))


def _header(message: Message, name: str) -> str:
    """A header as one line of text ("" when missing); a malformed header is kept as its raw text."""
    try:
        return collapse(str(message.get(name) or ""))
    except Exception:  # the policy could not parse it: use the raw value
        raw = [value for key, value in message.raw_items() if key.lower() == name.lower()]
        return collapse(str(raw[0])) if raw else ""


def _addresses(message: Message, name: str) -> str:
    """An address header as "Name <addr>, ..." without the quotes RFC 5322 puts around "Dr. X"."""
    try:
        addresses = message[name].addresses if message.get(name) else ()
    except Exception:  # a malformed address list: fall back to the header's text
        return _header(message, name)
    return ", ".join(f"{a.display_name} <{a.addr_spec}>" if a.display_name else a.addr_spec for a in addresses)


def _iso_date(value: str) -> str:
    """An RFC 2822 date as ISO 8601, or "" when it cannot be read."""
    try:
        return parsedate_to_datetime(value).isoformat() if value else ""
    except (TypeError, ValueError, IndexError):
        return ""


def _body_part(message: EmailMessage) -> Message | None:
    """The text/plain part, else the text/html part, else any inline text part; None if there is none."""
    try:
        part = message.get_body(preferencelist=("plain", "html"))
    except Exception:  # a malformed MIME tree: fall back to walking it
        part = None
    if part is not None:
        return part
    for part in message.walk():
        if part.get_content_maintype() == "text" and part.get_content_disposition() != "attachment":
            return part
    return None


def _decode_part(part: Message) -> str:
    """A part's payload as str: transfer encoding undone, then the charset (wrong or unknown ones survive)."""
    payload = part.get_payload(decode=True)
    if payload is None:  # not a leaf part
        return ""
    if isinstance(payload, str):
        return payload
    return decode_bytes(payload, part.get_content_charset())


def _unparsed_body(message: Message) -> str:
    """The text of a multipart message whose boundaries are broken: what the parser left outside any part."""
    payload = message.get_payload()
    if isinstance(payload, str):  # the declared boundary never occurs: the whole body is one string
        text = decode_bytes(payload.encode("utf-8", "surrogateescape"))
        return "\n".join(line for line in text.splitlines() if not MIME_LINE.match(line))
    return "\n".join(text for text in (message.preamble, message.epilogue) if text and text.strip())


def read_email(path: Path) -> tuple[str, dict]:
    """The text of an e-mail (header block + body) and its metadata."""
    with path.open("rb") as handle:
        message = BytesParser(policy=policy.default).parse(handle)
    # 1. Headers: the fields a student filters on, and the ones shown in the text.
    sender, to, date = _addresses(message, "From"), _addresses(message, "To"), _header(message, "Date")
    subject = _header(message, "Subject")
    # 2. Body: plain text preferred; HTML converted; attachments never read.
    part = _body_part(message)
    body = _decode_part(part) if part is not None else _unparsed_body(message)
    if part is None and not body.strip():
        raise ParseError("no text body (attachment only); nothing in it can be indexed")
    if part is not None and part.get_content_subtype() == "html":
        try:
            body = html_to_text(body)[0]
        except ParseError:
            body = ""
    lines = [line.rstrip() for line in body.replace("\r\n", "\n").splitlines() if not ATTRIBUTION.match(line)]
    body = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    if not body:
        raise ParseError("no text body (the message is empty)")
    # 3. The text starts with a header block, so "who wrote about X" is searchable too.
    text = f"From: {sender}\nTo: {to}\nDate: {date}\nSubject: {subject}\n\n{body}"
    metadata = {
        "title": subject or "(no subject)",
        "sender": sender,
        "to": to,
        "date": _iso_date(date),
        "subject": subject,
        "thread": thread_of(subject),
        "message_id": _header(message, "Message-ID"),
    }
    return text, metadata
