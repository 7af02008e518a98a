"""The README's picture: the app (notebook 09, served by Voilà) answering a course question with its cited sources.

What it does: serves notebooks/09_app.ipynb with Voilà on 127.0.0.1, as tests/browser/test_app_browser.py does
(its own process group, the configured model), opens it in Debian's Chromium through Python Playwright, presses
"defaults" on knobs A (the notebook's own cells turned them), asks one question, waits for the answer and its
sources table, and saves the part of the app from its title to the sources as a PNG (`docs/img/app.png`),
reduced to a palette so that the file stays small. Voilà gets SIGTERM (its kernels with it) at the end.
What it leaves out: checking the answer (the browser test does), and the A/B bench below the sources.

    .venv/bin/python -m bench.screenshot [--question "..."] [--out docs/img/app.png] [--data-dir DIR]

`--data-dir` serves from another data folder (an empty one builds the course index from the shipped vectors),
so a run never waits on a kernel that holds the embedded Qdrant folder.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip
VOILA = Path(sys.executable).with_name("voila")
QUESTION = "What is the application fee for the MS program?"
OUT = REPO_ROOT / "docs" / "img" / "app.png"
PAGE_TIMEOUT_S = 600  # Voilà runs the whole notebook before it shows the page
ANSWER_TIMEOUT_S = 300
WIDTH = 1100
SETTLE_MS = 1500
MARGIN_PX = 12


def free_port() -> int:
    """A loopback port free right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serve(port: int, env: dict[str, str], log: Path) -> subprocess.Popen:
    """Voilà on notebook 09 in its own process group; returns once it accepts connections."""
    command = [str(VOILA), "notebooks/09_app.ipynb", f"--port={port}", "--no-browser", "--Voila.ip=127.0.0.1"]
    with log.open("w") as handle:
        process = subprocess.Popen(command, cwd=REPO_ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT,
                                   start_new_session=True)  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"voila exited with code {process.returncode}; see {log}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=2).close()
            return process
        except OSError:
            time.sleep(0.5)
    stop(process)
    raise SystemExit(f"voila did not listen on port {port}; see {log}")


def stop(process: subprocess.Popen) -> None:
    """SIGTERM to Voilà's process group (it shuts its kernels down), SIGKILL if it lingers."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
    except ProcessLookupError:
        pass
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


def shoot(url: str, question: str, out: Path) -> str:
    """Ask `question` in the page at `url`, save the app from its title to the sources table; return the answer."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS, timeout=60_000)
        try:
            page = browser.new_page(viewport={"width": WIDTH, "height": 2400})
            page.set_default_timeout(60_000)
            page.goto(url, timeout=PAGE_TIMEOUT_S * 1000)
            page.wait_for_selector(".kit-ask", timeout=PAGE_TIMEOUT_S * 1000)
            page.click(".kit-knobs-a .kit-knob-defaults")
            page.click(".kit-clear")
            page.wait_for_selector(".kit-answer .kit-answer-text, .kit-sources .kit-sources-table", state="detached")
            page.fill(".kit-question input", question)
            page.click(".kit-ask")
            page.wait_for_selector(".kit-answer .kit-answer-text", timeout=ANSWER_TIMEOUT_S * 1000)
            page.wait_for_selector(".kit-sources .kit-sources-table", timeout=30_000)
            answer = page.inner_text(".kit-answer .kit-answer-text").strip()
            page.wait_for_timeout(SETTLE_MS)  # the widgets lay the new table out after its HTML arrives
            height = page.evaluate(  # from the app's top to the last row of the sources, scroll-invariant
                "() => { const top = document.querySelector('.kit-app').getBoundingClientRect().top;"
                " const nodes = [...document.querySelectorAll('.kit-sources, .kit-sources-table tr')];"
                " return Math.max(...nodes.map(node => node.getBoundingClientRect().bottom)) - top; }"
            )
            out.parent.mkdir(parents=True, exist_ok=True)
            page.locator(".kit-app").screenshot(path=str(out))
        finally:
            browser.close()
    crop(out, round(height) + MARGIN_PX)
    return answer


def crop(path: Path, height: int) -> None:
    """Keep the top `height` pixels of the PNG, with a palette of at most 256 colours (a screenshot of widgets
    loses nothing visible to it, and the file stays small)."""
    from PIL import Image

    with Image.open(path) as image:
        kept = image.convert("RGB").crop((0, 0, image.width, min(height, image.height)))
    kept.quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)


def _height(path: Path) -> int:
    """The PNG's height in pixels."""
    from PIL import Image

    with Image.open(path) as image:
        return image.height


def main(argv: list[str] | None = None) -> int:
    """Serve the app, take the picture, print where it went and the answer it shows."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--question", default=QUESTION)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--data-dir", type=Path, help="the data folder Voilà's kernel uses (KIT_DATA_DIR)")
    args = parser.parse_args(argv)
    for needed, what in ((CHROMIUM, "Chromium"), (VOILA, "voila")):
        if not needed.exists():
            raise SystemExit(f"{what} is missing ({needed}): bash scripts/setup.sh installs it")
    env = dict(os.environ)
    if args.data_dir:
        env["KIT_DATA_DIR"] = str(args.data_dir.resolve())
    log = REPO_ROOT / "test-output" / "voila_screenshot.log"
    log.parent.mkdir(exist_ok=True)
    port = free_port()
    process = serve(port, env, log)
    try:
        answer = shoot(f"http://127.0.0.1:{port}/", args.question, args.out)
    finally:
        stop(process)
    size = args.out.stat().st_size // 1024
    print(f"{args.out}: {size} KB, {_height(args.out)} px high; the answer shown: {answer}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
