"""A real browser drives the app: Voilà serves notebooks/09_app.ipynb, headless Chromium asks, then uses the bench.

What it does: starts `voila` on 127.0.0.1 (its own process group, the repo's data dir, the configured model;
KIT_BROWSER_LLM picks another — not the tiny SmolLM2 by default: measured, it rambles to the token limit and
never cites, so it is slower here than the 0.5B Qwen, which answers in one sentence with [1]), opens the page in
Debian's Chromium through Python Playwright (never `playwright install`). Voilà runs the whole notebook first, and
its cells turn the knobs, so the test first presses "defaults" on knobs A and B. Then it
1. types a question, presses Ask, and checks the answer text, a numbered citation and the sources table;
2. picks a gold question in the dropdown, presses Ask, and reads the reference, whether the evidence reached the
   reader and the answer's F1 in the gold panel;
3. mine against the kit's: with a student's my_rag.py beside the notebook (a cosine top-k of their own, kept as
   an exercise keeps it), sets knobs B's functions to the kit's, presses "Compare A and B", and reads the A/B
   result: the knob that differs, whether the answers are equal, each passage marked only in A / only in B / in
   both, both sides' gold scores; the changes line names the slots the student's functions run.
A screenshot goes to test-output/app_browser.png. Voilà gets SIGTERM (its kernels with it) at the end.
What it leaves out: the other knobs (tests/test_app.py covers them without a browser). It skips, saying why, when
Chromium, Playwright or Voilà is missing, or when another process holds the embedded Qdrant folder.
"""

from __future__ import annotations

import fcntl
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from helpers.app.gold_mode import question_label
from helpers.config import REPO_ROOT, get_settings
from helpers.corpus import load_gold

if TYPE_CHECKING:
    from playwright.sync_api import Page

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip
VOILA = Path(sys.executable).with_name("voila")
OUTPUT = REPO_ROOT / "test-output"
QUESTION = "What is the application fee?"
GOLD_ID = "hb-023"  # a dev question the notebook's own cells do not pick (choosing it must change the dropdown)
PLACES = {"only in A", "only in B", "in both"}
PAGE_TIMEOUT_S = 420  # Voilà runs the whole notebook (index check, warm-up) before it shows the page
ANSWER_TIMEOUT_S = 240


def free_port() -> int:
    """A loopback port free right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def qdrant_is_free(folder: Path) -> bool:
    """Whether no process holds the embedded Qdrant folder (qdrant-client takes an exclusive flock on .lock)."""
    lock = folder / ".lock"
    if not lock.exists():
        return True
    with lock.open("r+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False
        fcntl.flock(handle, fcntl.LOCK_UN)
    return True


def wait_for_port(port: int, process: subprocess.Popen, timeout_s: float) -> None:
    """Wait until the server accepts connections on `port`; fail early if it died."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"voila exited with code {process.returncode}; see {OUTPUT / 'voila.log'}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=2).close()
            return
        except OSError:
            time.sleep(0.5)
    pytest.fail(f"voila did not listen on port {port} within {timeout_s} s; see {OUTPUT / 'voila.log'}")


def stop(process: subprocess.Popen) -> None:
    """SIGTERM to Voilà's process group (it shuts its kernels down), SIGKILL if it lingers."""
    import psutil

    try:
        kernels = psutil.Process(process.pid).children(recursive=True)
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
    except (ProcessLookupError, psutil.NoSuchProcess):
        kernels = []
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
    _, alive = psutil.wait_procs(kernels, timeout=15)
    for child in alive:  # only the kernels this Voilà started, by pid
        child.kill()


CHANGED = "functions yours (top_k) → the kit's"
# a student's file as `keep` writes it: their cosine top-k (the kit's arithmetic, so the answers come from the cache)
STUDENTS_FILE = '''from __future__ import annotations

import numpy as np


def my_top_k(matrix, query, k):
    scores = matrix @ query
    best = np.argsort(-scores, kind="stable")[:k]
    return [(int(row), float(scores[row])) for row in best]


SLOTS = {"top_k": my_top_k}
'''


@pytest.fixture
def students_file() -> Iterator[Path]:
    """notebooks/my_rag.py holding a student's top-k for the test (whatever was there is put back afterwards)."""
    path = REPO_ROOT / "notebooks" / "my_rag.py"
    before = path.read_text(encoding="utf-8") if path.exists() else None
    path.write_text(STUDENTS_FILE, encoding="utf-8")
    yield path
    if before is None:
        path.unlink(missing_ok=True)
    else:
        path.write_text(before, encoding="utf-8")


@pytest.fixture
def voila_url(students_file: Path) -> Iterator[str]:
    """A Voilà server for notebook 09 on a free loopback port (stopped afterwards)."""
    for needed, reason in ((CHROMIUM.exists(), f"{CHROMIUM} is missing (bash scripts/setup.sh installs it as root)"),
                           (VOILA.exists(), "voila is not installed (bash scripts/setup.sh)")):  # fmt: skip
        if not needed:
            pytest.skip(reason)
    pytest.importorskip("playwright.sync_api", reason="playwright is not installed (bash scripts/setup.sh)")
    settings = get_settings()
    if settings.store.qdrant_url == "" and not qdrant_is_free(settings.paths.data_dir / "qdrant"):
        pytest.skip(f"another process holds the embedded Qdrant folder {settings.paths.data_dir / 'qdrant'}")
    OUTPUT.mkdir(exist_ok=True)
    port = free_port()
    env = {**os.environ, "KIT_DATA_DIR": str(settings.paths.data_dir)}
    if os.environ.get("KIT_BROWSER_LLM"):
        env["KIT_LLM_MODEL"] = os.environ["KIT_BROWSER_LLM"]
    command = [str(VOILA), "notebooks/09_app.ipynb", f"--port={port}", "--no-browser", "--Voila.ip=127.0.0.1",
               "--show_tracebacks=True"]  # fmt: skip
    with (OUTPUT / "voila.log").open("w") as log:
        process = subprocess.Popen(command, cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)  # fmt: skip
    try:
        wait_for_port(port, process, timeout_s=60)
        yield f"http://127.0.0.1:{port}/"
    finally:
        stop(process)


def ask_a_question(page: Page) -> dict[str, object]:
    """Start a new chat, type the question, press Ask, read the answer, its citations and the sources table."""
    page.click(".kit-clear")  # clears what the notebook's own cells left on screen, so what is read below is new
    page.wait_for_selector(".kit-answer .kit-answer-text, .kit-sources .kit-sources-table", state="detached")
    page.fill(".kit-question input", QUESTION)
    page.click(".kit-ask")
    page.wait_for_selector(".kit-answer .kit-answer-text, .kit-answer .kit-message", timeout=ANSWER_TIMEOUT_S * 1000)
    page.wait_for_selector(".kit-sources .kit-sources-table", timeout=30_000)
    return {
        "messages": page.locator(".kit-answer .kit-message").all_inner_texts(),
        "answer": page.inner_text(".kit-answer .kit-answer-text").strip(),
        "citations": page.locator(".kit-answer .kit-citation").all_inner_texts(),
        "rows": page.locator(".kit-sources .kit-sources-table tbody tr").count(),
    }


def ask_a_gold_question(page: Page) -> dict[str, str]:
    """Pick the gold question in the dropdown (it fills the question box), press Ask, read the gold panel."""
    gold = next(q for q in load_gold("dev") if q.id == GOLD_ID)
    page.select_option(".kit-gold-question select", label=question_label(gold))
    page.wait_for_function(
        "text => document.querySelector('.kit-question input').value === text", arg=gold.question, timeout=30_000
    )
    page.click(".kit-ask")
    report = page.locator(".kit-gold-result .kit-gold-report", has_text=GOLD_ID)
    report.wait_for(timeout=ANSWER_TIMEOUT_S * 1000)
    return {part: report.locator(f".kit-gold-{part}").inner_text() for part in ("reference", "evidence", "scores")}


def compare_a_and_b(page: Page) -> dict[str, object]:
    """Turn knobs B's functions to the kit's own (A keeps the student's), press Compare, read the A/B result."""
    page.select_option(".kit-ab-knobs .kit-knob-functions select", "the kit's")
    page.click(".kit-ab-run")
    result = page.locator(".kit-ab-result")
    result.locator(".kit-ab-changes", has_text=CHANGED).wait_for(timeout=2 * ANSWER_TIMEOUT_S * 1000)
    return {
        "changes": result.locator(".kit-ab-changes").inner_text(),
        "same": result.locator(".kit-ab-same").inner_text(),
        "summary": result.locator(".kit-ab-summary").inner_text(),
        "places": result.locator(".kit-ab-sources tbody tr td:last-child").all_inner_texts(),
        "answers": [result.locator(f".kit-ab-answer-{side}").inner_text() for side in "ab"],
        "gold_scores": result.locator(".kit-gold-scores").count(),
    }


def test_the_app_answers_and_runs_the_bench_in_a_real_browser(voila_url: str) -> None:
    from playwright.sync_api import sync_playwright

    start = time.monotonic()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS, timeout=60_000)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 2400})
            page.set_default_timeout(60_000)
            page.goto(voila_url, timeout=PAGE_TIMEOUT_S * 1000)
            page.wait_for_selector(".kit-ask", timeout=PAGE_TIMEOUT_S * 1000)
            loaded = time.monotonic()
            for panel in (".kit-knobs-a", ".kit-ab-knobs"):  # the notebook's cells turned the knobs
                page.click(f"{panel} .kit-knob-defaults")
            asked = ask_a_question(page)
            answered = time.monotonic()
            gold = ask_a_gold_question(page)
            scored = time.monotonic()
            ab = compare_a_and_b(page)
            page.locator(".kit-app").screenshot(path=str(OUTPUT / "app_browser.png"))
        finally:
            browser.close()
    assert not asked["messages"], f"the app showed a message instead of an answer: {asked['messages']}"
    assert asked["answer"], "the answer text is empty"
    citations = asked["citations"]
    assert citations and citations[0].startswith("["), f"no numbered citation under the answer {asked['answer']!r}"
    assert asked["rows"] >= 1, "the sources table has no rows"
    assert "$350" in gold["reference"], f"the gold panel shows another reference: {gold['reference']!r}"
    evidence = gold["evidence"]
    assert "Evidence reached the reader?" in evidence and ("Yes:" in evidence or "No:" in evidence), evidence
    assert "F1" in gold["scores"] and "EM" in gold["scores"], f"no EM/F1 in the gold panel: {gold['scores']!r}"
    assert ab["changes"].strip().endswith(CHANGED), ab["changes"]
    assert ab["same"] in ("The two answers are the same text.", "The two answers differ."), ab["same"]
    assert ab["places"] and set(ab["places"]) <= PLACES, f"A/B rows not marked only in A/B or in both: {ab['places']}"
    assert all(answer.strip() for answer in ab["answers"]) and ab["gold_scores"] == 2, ab
    end = time.monotonic()
    print(
        f"page {loaded - start:.1f} s, answer {answered - loaded:.1f} s ({len(citations)} citations, "
        f"{asked['rows']} sources), gold {scored - answered:.1f} s ({gold['scores']!r}), A/B {end - scored:.1f} s "
        f"({ab['summary']!r}, {ab['same']!r})"
    )
