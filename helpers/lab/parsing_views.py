"""Small views of the parsers for notebook 01: HTML noise per page, one PDF page three ways, metadata tables.
What it leaves out: any measurement against the gold set (that is `helpers.lab.parsing`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd
from llama_index.core import Document

from helpers.corpus import DOCS_DIR, course_files
from helpers.lab.parsing import html_trafilatura, pdf_plain, pdf_sorted
from helpers.parsing import html_to_text, pdf_pages
from helpers.parsing.base import collapse, source_name

SEED_NOISE_SHARE = 0.713  # the UChicago assistant's noise share of its HTML pages, beside the course's measured one


def noise_table(paths: Sequence[Path] | None = None) -> pd.DataFrame:
    """Per HTML page, the share of its bytes the kit's parser and trafilatura drop; the last row is the corpus."""
    paths = paths or [p for p in course_files() if p.suffix == ".html"]
    rows = []
    for path in paths:
        raw = path.read_text(encoding="utf-8")
        size = len(raw.encode("utf-8"))
        kit_share = html_to_text(raw)[1]["noise_share"]  # what the parser stores in each page's metadata
        kept_by_trafilatura = len(collapse(html_trafilatura(path)[0]).encode("utf-8"))
        rows.append(
            {
                "page": source_name(path, DOCS_DIR),
                "bytes": size,
                "kit kept": round(size * (1 - kit_share)),
                "trafilatura kept": kept_by_trafilatura,
            }
        )
    table = pd.DataFrame(rows)
    # The corpus row weighs every page by its size: total bytes dropped over total bytes.
    table.loc[len(table)] = {"page": "corpus (all pages)", **table[["bytes", "kit kept", "trafilatura kept"]].sum()}
    table["kit noise share"] = (1 - table["kit kept"] / table["bytes"]).round(3)
    table["trafilatura noise share"] = (1 - table["trafilatura kept"] / table["bytes"]).round(3)
    return table.set_index("page")


def pdf_page_orders(path: Path, page: int) -> dict[str, str]:
    """One PDF page (1-based) as each PDF parser reads it: {parser name: text}."""
    return {
        "PyMuPDF get_text()": pdf_plain(path)[page - 1],
        "PyMuPDF get_text(sort=True)": pdf_sorted(path)[page - 1],
        "kit (reading order)": dict(pdf_pages(path))[page],
    }


def print_page_orders(path: Path, page: int, chars: int = 600) -> None:
    """Print the start of one PDF page as each PDF parser reads it, one after the other."""
    for name, text in pdf_page_orders(path, page).items():
        print(f"=== {name} ===\n{text.strip()[:chars]}\n")


def metadata_frame(documents: Sequence[Document], keys: Sequence[str]) -> pd.DataFrame:
    """One row per document (by source): the given metadata keys, "" where a document lacks one."""
    rows = [{"source": d.metadata["source"], **{k: d.metadata.get(k, "") for k in keys}} for d in documents]
    return pd.DataFrame(rows).set_index("source")
