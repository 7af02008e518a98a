"""The rendered course in a real browser: one notebook executed and rendered as `scripts/render.sh` does it, then
opened from the course map in headless Chromium.

What it does: executes notebook 04 (quick, and its outputs are tables) with bench.notebooks' `run_notebook` in the
current profile and data folder (the ci profile under the test command, as nbval runs it), keeps the executed copy
in a temporary folder, builds the site from it with `helpers.classroom.site.build_site` (the other notebooks get
pages without outputs), opens `index.html` in Debian's Chromium through Playwright, follows the link to notebook
04 and checks the page: its title, its code cells, at least one output table, the line on how it ran, and the way
back to the map. A screenshot goes to test-output/course_site.png.
What it leaves out: the student profile's full run (`bash scripts/render.sh`, minutes per notebook), and the other
pages' outputs. It skips, saying why, when Chromium or Playwright is missing, or when another process holds the
embedded Qdrant folder the notebook opens.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.notebooks import CELL_TIMEOUT_S, run_notebook
from helpers.classroom.site import NOTEBOOKS_DIR, build_site
from helpers.config import REPO_ROOT, get_settings
from tests.browser.test_app_browser import CHROMIUM, FLAGS, qdrant_is_free

NOTEBOOK = NOTEBOOKS_DIR / "04_vector_store.ipynb"
OUTPUT = REPO_ROOT / "test-output"


def test_a_rendered_notebook_opens_from_the_course_map_in_chromium(tmp_path: Path) -> None:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing (bash scripts/setup.sh installs it as root)")
    pytest.importorskip("playwright.sync_api", reason="playwright is not installed (bash scripts/setup.sh)")
    from playwright.sync_api import sync_playwright

    settings = get_settings()
    if settings.store.qdrant_url == "" and not qdrant_is_free(settings.paths.data_dir / "qdrant"):
        pytest.skip(f"another process holds the embedded Qdrant folder {settings.paths.data_dir / 'qdrant'}")
    profile = settings.profile if settings.profile in CELL_TIMEOUT_S else "ci"
    run = run_notebook(NOTEBOOK, profile, keep=tmp_path / "executed")
    assert run["status"] == "ok", f"{NOTEBOOK.name} did not run through: {run['status']}"
    pages = build_site(tmp_path / "executed", tmp_path / "site")
    states = {page.lesson.source.name: page.state for page in pages}
    assert states[NOTEBOOK.name] == "ran through", states

    OUTPUT.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS, timeout=60_000)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1600})
            page.set_default_timeout(30_000)
            page.goto((tmp_path / "site" / "index.html").as_uri(), wait_until="domcontentloaded")
            links = page.locator("#class-path a").all_inner_texts()
            page.click(f'#class-path a[href="{NOTEBOOK.stem}.html"]')
            page.wait_for_selector(".jp-Notebook")  # offline, the CDN scripts (MathJax) fail; the page does not wait
            seen = {
                "title": page.locator("h1").first.inner_text(),
                "code_cells": page.locator(".jp-CodeCell .jp-InputArea pre").count(),
                "tables": page.locator(".jp-OutputArea-output table").count(),
                "images": page.locator(".jp-OutputArea-output img").count(),
                "run": page.locator(".kit-run").inner_text(),
                "back": page.locator('.kit-site a[href="index.html"]').count(),
            }
            page.screenshot(path=str(OUTPUT / "course_site.png"))
        finally:
            browser.close()
    assert len(links) == sum(not page.lesson.appendix for page in pages) and links[4].startswith("04 · "), links
    assert seen["title"].startswith("04 · The vector store"), seen
    assert seen["code_cells"] >= 10, seen
    assert seen["tables"] + seen["images"] >= 1, f"no output table or image on the page: {seen}"
    assert f"executed in the {profile} profile" in seen["run"] and seen["back"] == 1, seen
