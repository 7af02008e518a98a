"""OCR for image-only PDF pages: PyMuPDF's built-in Tesseract, with Debian's language data.

`ocr_blocks(page)` reads a scanned page at 300 dpi; without `eng.traineddata` (`tessdata_dir()`),
`ocr_available()` is False and scanned pages are skipped with a warning naming the install command.
What it leaves out: layout beyond Tesseract's blocks, languages other than English, and pages with a text
layer beside a scanned picture of more text.
"""

from __future__ import annotations

import glob
import logging
import os
from functools import cache
from pathlib import Path

import pymupdf

log = logging.getLogger(__name__)

OCR_DPI = 300  # Tesseract's sweet spot; lower loses small print, higher only costs time
LANGUAGE = "eng"
INSTALL_HINT = "Debian/Ubuntu: apt-get install tesseract-ocr; macOS: brew install tesseract"
SEARCHED = ("/usr/share/tesseract-ocr/*/tessdata", "/usr/share/tessdata", "/usr/local/share/tessdata",
            "/opt/homebrew/share/tessdata")  # fmt: skip


@cache
def tessdata_dir() -> Path | None:
    """The folder holding `eng.traineddata`: TESSDATA_PREFIX if set, else the usual install places; or None."""
    candidates = [os.environ["TESSDATA_PREFIX"]] if os.environ.get("TESSDATA_PREFIX") else []
    candidates += sorted((match for pattern in SEARCHED for match in glob.glob(pattern)), reverse=True)
    return next((Path(c) for c in candidates if (Path(c) / f"{LANGUAGE}.traineddata").is_file()), None)


def ocr_available() -> bool:
    """Whether scanned pages can be read on this machine."""
    return tessdata_dir() is not None


def is_image_only(page: pymupdf.Page) -> bool:
    """A page with no text layer but at least one image: a scan (a blank page has no image)."""
    return not page.get_text().strip() and bool(page.get_images())


def ocr_blocks(page: pymupdf.Page, dpi: int = OCR_DPI) -> list[str]:
    """The page's text blocks as Tesseract reads them, top to bottom; [] if OCR is not available."""
    folder = tessdata_dir()
    if folder is None:
        return []
    textpage = page.get_textpage_ocr(language=LANGUAGE, dpi=dpi, full=True, tessdata=str(folder))
    blocks = page.get_text("blocks", textpage=textpage, sort=True)
    return [block[4] for block in blocks if block[6] == 0 and block[4].strip()]  # type 0: text


def report_skipped(name: str, number: int) -> None:
    """Say which scanned page is left out, and how to read it."""
    log.warning("%s: page %d is a scanned image and OCR is not available; skipped (%s)", name, number, INSTALL_HINT)


def character_accuracy(ocr_text: str, source_text: str) -> float:
    """1 − normalised edit distance between the two texts, whitespace collapsed (1.0 = identical)."""
    from rapidfuzz.distance import Levenshtein

    ocr, source = " ".join(ocr_text.split()), " ".join(source_text.split())
    return Levenshtein.normalized_similarity(ocr, source)


def scanned_pages(path: str | Path) -> list[int]:
    """1-based numbers of a PDF's image-only pages."""
    with pymupdf.open(str(path)) as doc:
        return [page.number + 1 for page in doc if is_image_only(page)]


def ocr_page_text(path: str | Path, number: int, dpi: int = OCR_DPI) -> str:
    """One page of a PDF read by OCR (1-based page number), blocks joined by blank lines; "" without OCR."""
    with pymupdf.open(str(path)) as doc:
        return "\n\n".join(" ".join(block.split()) for block in ocr_blocks(doc[number - 1], dpi=dpi))
