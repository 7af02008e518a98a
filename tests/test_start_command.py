"""Command 1 of the README (`bash scripts/start.sh`) brings JupyterLab up on notebook 00, root or not."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
import urllib.request

from helpers.config import REPO_ROOT

TOKEN = "kit-start-test"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _status(url: str) -> int | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status
    except OSError:
        return None


def test_start_command_serves_jupyterlab(tmp_path) -> None:
    """Its own Qdrant folder (`KIT_DATA_DIR`), so a kernel holding the course index cannot block it."""
    port = _free_port()
    command = ["bash", "scripts/start.sh", "--no-browser", f"--port={port}", f"--IdentityProvider.token={TOKEN}"]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "QDRANT_"))}
    env["KIT_DATA_DIR"] = str(tmp_path / "kit_data")
    server = subprocess.Popen(
        command, cwd=REPO_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,
    )  # fmt: skip
    try:
        url = f"http://127.0.0.1:{port}/lab/tree/notebooks/00_setup_and_tour.ipynb?token={TOKEN}"
        deadline, status = time.monotonic() + 300, None
        while time.monotonic() < deadline and server.poll() is None and status != 200:
            time.sleep(2)
            status = _status(url)
        if status != 200:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(server.pid, signal.SIGTERM)
            output = server.communicate(timeout=30)[0]
            raise AssertionError(f"JupyterLab did not answer (HTTP {status}); start.sh said:\n{output[-3000:]}")
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)
