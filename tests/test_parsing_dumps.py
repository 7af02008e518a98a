"""A text file of scraped pages is read one page at a time, without the site's menus (helpers.parsing.dumps)."""

from __future__ import annotations

from pathlib import Path

from helpers.parsing import parse
from helpers.parsing.dumps import Page, drop_template_lines, split_pages, template_lines

RULE = "=" * 60
MENU = ["Home", "Apply", "Contact us", "470 East Lockwood Avenue"]


def dump(pages: int, boxed: bool = True) -> str:
    """A scraper's file: each page opened by its address (between two rules, or inside one), then title, menu, text."""
    parts = []
    for number in range(pages):
        url = f"https://uni.example/page{number}.html"
        marker = f"{RULE}\nSOURCE: {url}\n{RULE}" if boxed else f"=== SOURCE: {url} ==="
        parts.append(f"\n\n{marker}\nPage {number} | Example University\n" + "\n".join(MENU) + f"\nFact {number}.\n")
    return "".join(parts)


def test_split_pages_reads_both_marker_forms_and_keeps_a_lead() -> None:
    for boxed in (True, False):
        pages = split_pages(dump(3, boxed))
        assert [page.url for page in pages] == [f"https://uni.example/page{n}.html" for n in range(3)]
        assert pages[1].text.startswith("Page 1 | Example University\nHome") and pages[1].text.endswith("Fact 1.")
        assert RULE not in "".join(page.text for page in pages)
    (lead, *rest) = split_pages("About these pages.\n" + dump(2))
    assert lead == Page("", "About these pages.") and len(rest) == 2


def test_a_text_with_fewer_than_two_markers_is_not_a_dump() -> None:
    assert split_pages("Opening hours\nSOURCE: https://uni.example/hours\nMon-Fri 8-6") == []
    assert split_pages("Source: see the handbook, chapter 3.\nThe source: our survey.") == []


def test_template_lines_need_most_pages_and_enough_of_them() -> None:
    pages = split_pages(dump(10))
    assert template_lines(pages) == set(MENU)
    assert template_lines(pages[:9]) == set()  # with few pages a repeated line may be content
    pages[0] = Page(pages[0].url, "Page 0\nFact 0.")  # a page without the menu: 9 of 10 still have it
    assert template_lines(pages) == set(MENU)


def test_drop_template_lines_keeps_titles_and_content() -> None:
    pages = drop_template_lines(split_pages(dump(12)))
    assert pages[5] == Page("https://uni.example/page5.html", "Page 5 | Example University\nFact 5.")
    same_title = [Page(f"u{n}", "Catalog | Example University\n" + "\n".join(MENU) + f"\nFact {n}.") for n in range(10)]
    assert drop_template_lines(same_title)[0].text == "Catalog | Example University\nFact 0."


def test_a_dump_parses_into_one_document_per_page_with_its_address_and_title(tmp_path: Path) -> None:
    path = tmp_path / "site.txt"
    path.write_text(dump(12), encoding="utf-8")
    docs = parse(path)
    assert len(docs) == 12 and len({doc.id_ for doc in docs}) == 12
    assert docs[3].metadata["title"] == "Page 3 | Example University"
    assert docs[3].metadata["url"] == "https://uni.example/page3.html"
    assert docs[3].text == "Page 3 | Example University\nFact 3."
    assert [doc.id_ for doc in parse(path)] == [doc.id_ for doc in docs]  # the same ids on every parse


def test_a_plain_text_title_skips_lines_without_letters(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text(f"{RULE}\nOffice hours\n{RULE}\nRoom 3, Tuesdays.", encoding="utf-8")
    (doc,) = parse(path)
    assert doc.metadata["title"] == "Office hours" and doc.text.startswith(RULE)


def test_a_reference_list_of_url_lines_is_read_whole() -> None:
    references = "Smith (2020). Data.\nURL: https://a.example/1\nLee (2021). Models.\nURL: https://a.example/2\n"
    assert split_pages(references) == []
    notes = "Fees rose.\nSource: https://a.example/fees\nDates moved.\nSource: https://a.example/dates\n"
    assert split_pages(notes) == []
    boxed = f"{RULE}\nURL: https://a.example/1\n{RULE}\nA\n{RULE}\nURL: https://a.example/2\n{RULE}\nB"
    assert [page.text for page in split_pages(boxed)] == ["A", "B"]
