"""A real browser drives the app: Voilà serves notebooks/09_app.ipynb, headless Chromium asks a question.

What it does: starts `voila` on 127.0.0.1 (its own process group, the repo's data dir, the configured model;
KIT_BROWSER_LLM picks another — not the tiny SmolLM2 by default: measured, it rambles to the token limit and
never cites, so it is slower here than the 0.5B Qwen, which answers in one sentence with [1]), opens the page in
Debian's Chromium through Python Playwright (never `playwright install`), types a question, presses Ask, waits for the
answer, and checks that the answer text, at least one numbered citation and the sources table appear. A
screenshot goes to test-output/app_browser.png. Voilà gets SIGTERM (its kernels with it) at the end.
What it leaves out: the knobs (tests/test_app.py covers them without a browser). It skips, saying why, when
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

import pytest

from helpers.config import REPO_ROOT, get_settings

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip
VOILA = Path(sys.executable).with_name("voila")
OUTPUT = REPO_ROOT / "test-output"
QUESTION = "What is the application fee?"
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


@pytest.fixture
def voila_url() -> Iterator[str]:
    """A Voilà server for notebook 09 on a free loopback port (stopped afterwards)."""
    for needed, reason in ((CHROMIUM.exists(), f"{CHROMIUM} is missing (bash scripts/setup.sh installs it as root)"),
                           (VOILA.exists(), "voila is not installed (bash scripts/setup.sh)")):  # fmt: skip
        if not needed:
            pytest.skip(reason)
    pytest.importorskip("playwright.sync_api", reason="playwright is not installed (bash scripts/setup.sh)")
    settings = get_settings()
    if settings.qdrant_url == "" and not qdrant_is_free(settings.data_dir / "qdrant"):
        pytest.skip(f"another process holds the embedded Qdrant folder {settings.data_dir / 'qdrant'}")
    OUTPUT.mkdir(exist_ok=True)
    port = free_port()
    env = {**os.environ, "KIT_DATA_DIR": str(settings.data_dir)}
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


def test_the_app_answers_in_a_real_browser(voila_url: str) -> None:
    from playwright.sync_api import sync_playwright

    start = time.monotonic()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS, timeout=60_000)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1400})
            page.set_default_timeout(60_000)
            page.goto(voila_url, timeout=PAGE_TIMEOUT_S * 1000)
            page.wait_for_selector(".kit-ask", timeout=PAGE_TIMEOUT_S * 1000)
            page.fill(".kit-question input", QUESTION)
            page.click(".kit-ask")
            page.wait_for_selector(".kit-answer .kit-answer-text, .kit-message", timeout=ANSWER_TIMEOUT_S * 1000)
            page.wait_for_selector(".kit-sources-table", timeout=30_000)
            page.locator(".kit-app").screenshot(path=str(OUTPUT / "app_browser.png"))
            messages = page.locator(".kit-message").all_inner_texts()
            assert not messages, f"the app showed a message instead of an answer: {messages}"
            answer = page.inner_text(".kit-answer .kit-answer-text").strip()
            citations = page.locator(".kit-citation").all_inner_texts()
            rows = page.locator(".kit-sources-table tbody tr").count()
        finally:
            browser.close()
    assert answer, "the answer text is empty"
    assert citations and citations[0].startswith("["), f"no numbered citation under the answer {answer!r}"
    assert rows >= 1, "the sources table has no rows"
    print(f"answer {answer!r}, {len(citations)} citation(s), {rows} sources in {time.monotonic() - start:.1f} s")
