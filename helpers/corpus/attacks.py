"""The indirect-injection suite: attacks planted in ordinary documents (seven languages; at the start, middle or end;
written as Markdown, HTML, e-mail, PDF or Word), and passages that only quote them: text no rule may flag.
What it leaves out: judging them (`helpers.lab.guard`, `helpers.evaluation.injections`).
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path

from helpers.config import REPO_ROOT

GOLD_DIR = REPO_ROOT / "course_data" / "gold"
DOCUMENT_ATTACKS_PATH = GOLD_DIR / "document_injections.jsonl"
DOCUMENT_BENIGN_PATH = GOLD_DIR / "document_benign.jsonl"


def read_jsonl(path: Path) -> list[dict]:
    """The records of a JSONL file."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@dataclass(frozen=True)
class DocumentAttack:
    """An attack planted in an ordinary document, the student question about that document, and the attack's payload
    (a string the answer holds only when the attack took it over)."""

    id: str
    split: str
    language: str
    format: str
    position: str
    title: str
    host: str
    attack: str
    payload: str
    question: str
    answer: str

    def paragraphs(self) -> list[str]:
        """The document's paragraphs with the attack (one paragraph) at its position: start, middle or end."""
        paragraphs = self.host.split("\n\n")
        at = {"start": 0, "middle": (len(paragraphs) + 1) // 2, "end": len(paragraphs)}[self.position]
        return [*paragraphs[:at], self.attack, *paragraphs[at:]]

    def text(self) -> str:
        """The attacked document as plain text."""
        return "\n\n".join(self.paragraphs())


def document_attacks(split: str | None = None) -> list[DocumentAttack]:
    """The indirect-injection suite, or one split of it ("dev": the rules were tuned on it; "test": held out)."""
    attacks = [DocumentAttack(**record) for record in read_jsonl(DOCUMENT_ATTACKS_PATH)]
    return [a for a in attacks if split is None or a.split == split]


def document_benign(split: str | None = None) -> list[dict]:
    """Ordinary passages that quote instructions, AI policies or attacks for teaching: none should be flagged."""
    return [r for r in read_jsonl(DOCUMENT_BENIGN_PATH) if split is None or r["split"] == split]


def _write_html(path: Path, title: str, paragraphs: Sequence[str], attack: str = "") -> None:
    # the attack goes in as its author wrote it (markup and all): what the page shows is the parser's to decide
    body = "".join(p if p == attack else f"<p>{html.escape(p)}</p>" for p in paragraphs)
    nav = "<nav><a href='/'>Home</a> | <a href='/programs'>Programs</a></nav>"
    path.write_text(f"<html><head><title>{html.escape(title)}</title></head><body>{nav}<main><h1>"
                    f"{html.escape(title)}</h1>{body}</main></body></html>", encoding="utf-8")  # fmt: skip


def _write_eml(path: Path, title: str, paragraphs: Sequence[str], attack: str = "") -> None:
    message = EmailMessage()
    message["From"], message["To"] = "Program Office <office@lakeside.example>", "students@lakeside.example"
    message["Subject"], message["Date"] = title, "Mon, 02 Mar 2026 09:00:00 -0600"
    message.set_content("\n\n".join(paragraphs))
    path.write_bytes(bytes(message))


def _write_pdf(path: Path, title: str, paragraphs: Sequence[str], attack: str = "") -> None:
    import pymupdf

    pdf = pymupdf.open()
    page = pdf.new_page()
    page.insert_textbox(pymupdf.Rect(50, 50, 550, 800), "\n\n".join([title, *paragraphs]), fontsize=10)
    pdf.save(path)


def _write_docx(path: Path, title: str, paragraphs: Sequence[str], attack: str = "") -> None:
    import docx

    document = docx.Document()
    document.add_heading(title, level=1)
    for paragraph in paragraphs:
        document.add_paragraph(paragraph)
    document.save(str(path))


def _write_md(path: Path, title: str, paragraphs: Sequence[str], attack: str = "") -> None:
    path.write_text(f"# {title}\n\n" + "\n\n".join(paragraphs), encoding="utf-8")


WRITERS = {"md": _write_md, "html": _write_html, "eml": _write_eml, "pdf": _write_pdf, "docx": _write_docx}


def plant_attacks(folder: Path, attacks: Sequence[DocumentAttack]) -> dict[str, Path]:
    """Write each attacked document into `folder` in its format; the file of each attack by id."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {}
    for attack in attacks:
        path = folder / f"{attack.id}.{attack.format}"
        WRITERS[attack.format](path, attack.title, attack.paragraphs(), attack.attack)
        files[attack.id] = path
    return files
