"""Write manifest.json: which files of which public repositories make the real-document set.

Run once by the set's maintainer, from fetched copies of the repositories (see README.md):
`.venv/bin/python course_data/realworld/make_manifest.py [--mirror-root DIR]`. It pins each repository
to the commit it finds, and records each file's sha256 and size there. Students never run it; they run
`rebuild.py`, which reads the manifest this writes.
What it leaves out: choosing the files (the SOURCES table below is the hand-made choice) and fetching.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the kit, when this runs as a script
from course_data.pinning import doc_path, git_head, make_manifest_main, manifest_document, pin_repo
from helpers.corpus.pinned import REALWORLD, find_git_dir

# (owner/name, university, licence note, [paths in the repository]); the rebuilt path is `rebuilt_path()`.
SOURCES = [
    (
        "easonwangzk/Uchicago-RAG-System",
        "University of Chicago (MS in Applied Data Science)",
        "no licence file in the repository; the files are the University of Chicago's public web pages and "
        "program PDF as scraped by the repository's author; used here only for local evaluation, never redistributed",
        ["data/mastersprograminanalytics.pdf"]
        + [f"data/page_{n:05d}.html" for n in range(14) if n not in (3, 12)],  # 3 = 0 and 12 = 1, byte for byte
    ),
    (
        "ahmed9969/webster-ai",
        "Webster University (St. Louis catalog; Tashkent campus calendar and pages)",
        "no licence file in the repository; the files are Webster University's public catalog, calendar and "
        "web pages as scraped by the repository's author; used here only for local evaluation, never redistributed",
        ["data/academic_calendar.txt", "data/webster_website.txt", "data/webster_catalog.txt"],
    ),
    (
        "liyangguang/soic-datascience",
        "Indiana University Bloomington (Data Science program, School of Informatics and Computing, 2016)",
        "no licence file in the repository; the files are the page sources of IU's Data Science program site "
        "(2016); used here only for local evaluation, never redistributed",
        [
            f"{page}.php"
            for page in (
                "certificate",
                "contact",
                "courses",
                "current",
                "degrees",
                "ds",
                "faq",
                "hybrid",
                "index",
                "online",
                "requirement",
                "residential",
                "tuition",
            )
        ],
    ),
    (
        "umbc-dps/sites",
        "University of Maryland, Baltimore County (Winter 2017 and Summer 2017 sessions: calendars, "
        "financial dates, class schedules)",
        "no licence file in the repository; it is the page sources of UMBC's Division of Professional Studies "
        "web sites, committed by the division's own account; used here only for local evaluation, never redistributed",
        # the session calendars, bill/refund dates and the class-schedule tables that all-courses.php includes
        [
            f"{session}/{page}.php"
            for session in ("Winter", "Summer")
            for page in ("importantdates", "financialdates", "includes/courses")
        ],
    ),
]


def rebuilt_path(repo: str, path: str) -> str:
    """`<repository name>/<path>`, with .php renamed .html so the kit's HTML parser reads it."""
    if path.endswith(".php"):
        path = path[: -len(".php")] + ".html"
    return doc_path(repo, path)


def repositories(mirror_root: Path) -> list[dict]:
    """The manifest entries for SOURCES, each repository pinned at its current HEAD."""
    entries = []
    for repo, university, licence, paths in SOURCES:
        git_dir = find_git_dir(repo, mirror_root)
        about = {"university": university, "licence": licence}
        entries.append(pin_repo(repo, git_dir, git_head(git_dir), paths, rebuilt_path, about))
    return entries


def manifest(mirror_root: Path) -> dict:
    """The manifest for SOURCES at each repository's current HEAD."""
    return manifest_document(REALWORLD, repositories(mirror_root))


if __name__ == "__main__":
    sys.exit(make_manifest_main(REALWORLD, repositories, description=__doc__.splitlines()[0]))
