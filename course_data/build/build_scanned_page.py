"""Append one scanned, image-only page to the handbook PDF (deterministic).

    .venv/bin/python course_data/build/build_scanned_page.py      # build_handbook.py also calls it

The page's words live in scanned_notice.txt (the "source text" OCR is measured against). They are typeset
on a blank letter page with PyMuPDF, rendered to a grey 150-dpi image, tilted by half a degree with a
little seeded toner dust (as a photocopy would be), and the image alone becomes the handbook's last page:
no text layer, so a parser sees nothing there without OCR.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pymupdf
from PIL import Image

BUILD = Path(__file__).resolve().parent
HANDBOOK = BUILD.parent / "docs" / "handbook" / "program_handbook_2026-27.pdf"
SOURCE = BUILD / "scanned_notice.txt"
MARKER = "scanned_notice"  # stored in the PDF's metadata keywords, so a second run does not add a second page
DPI, TILT_DEGREES, SEED = 150, 0.5, 7


def typeset(text: str) -> pymupdf.Document:
    """The notice on one letter page: a bold title, then the paragraphs in Times."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    title, *paragraphs = [p.strip() for p in text.split("\n\n") if p.strip()]
    page.insert_textbox(pymupdf.Rect(72, 80, 540, 140), title, fontname="hebo", fontsize=13)
    body = "\n\n".join(paragraphs)
    spare = page.insert_textbox(pymupdf.Rect(72, 140, 540, 720), body, fontname="tiro", fontsize=11.5, lineheight=1.3)
    if spare < 0:
        raise SystemExit(f"{SOURCE.name} does not fit on one page ({-spare:.0f} pt too long)")
    return doc


def scan(doc: pymupdf.Document) -> bytes:
    """A PNG of the page as a slightly tilted, speckled grey scan."""
    pix = doc[0].get_pixmap(dpi=DPI, colorspace=pymupdf.csGRAY)
    image = Image.frombytes("L", (pix.width, pix.height), pix.samples)
    image = image.rotate(TILT_DEGREES, resample=Image.Resampling.BICUBIC, fillcolor=255)
    pixels = (np.asarray(image, dtype=np.float32) * 0.85 + 25).astype(np.uint8)  # grey paper, not pure white
    specks = np.random.default_rng(SEED).random(pixels.shape) < 0.0003  # toner dust (sparse: the PNG stays small)
    pixels[specks] = 140
    out = io.BytesIO()
    Image.fromarray(pixels, "L").save(out, format="PNG", optimize=True)
    return out.getvalue()


def add_scanned_page(pdf_path: Path = HANDBOOK) -> int:
    """Append the scanned page to the PDF (once); returns its 1-based page number."""
    pdf = pymupdf.open(pdf_path)
    meta = pdf.metadata or {}
    if MARKER in (meta.get("keywords") or ""):
        count = pdf.page_count
        pdf.close()
        return count
    with typeset(SOURCE.read_text(encoding="utf-8")) as notice:
        png = scan(notice)
    page = pdf.new_page(width=612, height=792)
    page.insert_image(page.rect, stream=png)
    pdf.set_metadata({**meta, "keywords": MARKER})
    data = pdf.tobytes(garbage=3, deflate=True, no_new_id=True)
    count = pdf.page_count
    pdf.close()
    pdf_path.write_bytes(data)
    return count


if __name__ == "__main__":
    number = add_scanned_page()
    print(f"{HANDBOOK.name}: scanned notice is page {number} (image only)")
