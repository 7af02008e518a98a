"""Write manifest.json: which files of which public repositories make the versioned real-document set.

Run once by the set's maintainer, from fetched copies of the repositories (see README.md):
`.venv/bin/python course_data/versioned/make_manifest.py [--mirror-root DIR]`. It pins each repository to the
commit it finds and records, per file, its sha256, size, and the academic year and term it is about (the
tags a version-aware retriever filters on). Students never run it; they run `rebuild.py`, which reads the
manifest this writes. The pinning is `course_data/pinning.py`, shared with the other pinned sets.
What it leaves out: choosing the files (the SOURCES table below is the hand-made choice) and fetching.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the kit, when this runs as a script
from course_data.pinning import doc_path, git_head, make_manifest_main, manifest_document, pin_repo
from helpers.corpus.pinned import VERSIONED, find_git_dir

UIUC_WINTERS = range(2019, 2027)  # the winter sessions the repository holds at its pinned commit
OXY_FALLS = range(2021, 2025)  # the fall semesters the repository holds at its pinned commit
UCSD_QUARTERS = {
    "2022-23": ["Fall-2022", "Winter-2023", "Spring-2023", "Summer-Session-I-2023", "Summer-Session-II-2023"],
    "2023-24": ["Fall-2023", "Winter-2024", "Spring-2024"],
    "2024-25": ["Fall-2024", "Winter-2025", "Spring-2025"],
}


def _academic_year(first: int) -> str:
    """The academic year that starts in `first`, written "2023-24"."""
    return f"{first}-{str(first + 1)[2:]}"


# (owner/name, university, licence note, {path in the repository: (academic year, term)})
SOURCES = [
    (
        "wadefagen/datasets",
        "University of Illinois Urbana-Champaign (winter session class schedules)",
        "no licence file in the repository; the files are the university's Course Explorer data for each winter "
        "session as downloaded by the repository's author (a UIUC instructor); used here only for local "
        "evaluation, never redistributed",
        {f"course-catalog/data/{year}-wi.csv": (_academic_year(year - 1), f"Winter {year}") for year in UIUC_WINTERS},
    ),
    (
        "NickyBoy89/quacs-oxy-data",
        "Occidental College (fall semester class schedules)",
        "no licence file in the repository; the files are Occidental College's public course counts "
        "(counts.oxy.edu: sections, instructors, meeting times, seats) for each semester as scraped into JSON by "
        "the repository's author; used here only for local evaluation, never redistributed",
        {f"semester_data/{year}09/courses.json": (_academic_year(year), f"Fall {year}") for year in OXY_FALLS},
    ),
    (
        "eldridgejm/ucsd_academic_calendars",
        "University of California San Diego (quarter calendars)",
        "no licence file in the repository; the files are the dates of UC San Diego's official academic "
        "calendars (blink.ucsd.edu) as scraped into JSON by the repository's author (a UCSD instructor); used "
        "here only for local evaluation, never redistributed",
        {
            f"json/{year[:4]}-20{year[5:]}/{quarter}.json": (year, quarter.replace("-", " "))
            for year, quarters in UCSD_QUARTERS.items()
            for quarter in quarters
        },
    ),
]


def rebuilt_path(repo: str, path: str) -> str:
    """`<repository name>/<path>`, with .json renamed .txt so the kit's text parser reads it."""
    if path.endswith(".json"):
        path = path[: -len(".json")] + ".txt"
    return doc_path(repo, path)


def repositories(mirror_root: Path) -> list[dict]:
    """The manifest entries for SOURCES, each repository pinned at its current HEAD, each file tagged."""
    entries = []
    for repo, university, licence, files in SOURCES:
        git_dir = find_git_dir(repo, mirror_root)
        about = {"university": university, "licence": licence}
        entry = pin_repo(repo, git_dir, git_head(git_dir), list(files), rebuilt_path, about)
        for item in entry["files"]:
            item["academic_year"], item["term"] = files[item["path"]]
        entries.append(entry)
    return entries


def manifest(mirror_root: Path) -> dict:
    """The manifest for SOURCES at each repository's current HEAD."""
    return manifest_document(VERSIONED, repositories(mirror_root))


if __name__ == "__main__":
    sys.exit(make_manifest_main(VERSIONED, repositories, description=__doc__.splitlines()[0]))
