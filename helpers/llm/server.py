"""The kit's GGUF behind llama.cpp's OpenAI-compatible server, for the RAGAS judge and `python -m helpers serve`.

It answers one request at a time, so `threads` defaults to every usable core, and `interrupt_requests` is off (else
a class's streamed answers end early); on Linux it gets SIGTERM when its parent dies.
What it leaves out: talking to the server (`OpenAICompatibleLLM`), other servers (vLLM, Ollama).
"""

from __future__ import annotations

import atexit
import ctypes
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from helpers.config import Settings
from helpers.models import llm_gguf_path

STARTUP_TIMEOUT_S = 120.0
LINUX = sys.platform.startswith("linux")
ANY_ADDRESS = ("0.0.0.0", "::", "")


def _find_prctl() -> Any:
    """glibc's prctl, resolved in the parent (nothing may be imported after fork), or None elsewhere."""
    try:
        return ctypes.CDLL("libc.so.6", use_errno=True).prctl if LINUX else None
    except OSError:
        return None


_PRCTL = _find_prctl()


def _die_with_parent() -> None:
    """In the server process (Linux): receive SIGTERM when the process that started it dies, even by a kill."""
    if _PRCTL is not None:
        _PRCTL(1, signal.SIGTERM)  # 1 = PR_SET_PDEATHSIG


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port on `host` that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def usable_cores() -> int:
    """The CPU cores this process may run on (its affinity, which a container or `taskset` may narrow)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def server_command(settings: Settings, host: str, port: int, threads: int, api_key: str = "") -> list[str]:
    """The `python -m llama_cpp.server` command line that serves the configured GGUF."""
    command = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(llm_gguf_path(settings)),
        "--model_alias", settings.llm.name, "--host", host, "--port", str(port),
        "--n_ctx", str(settings.llm.llm_context_tokens), "--n_threads", str(threads),
        "--n_threads_batch", str(threads), "--seed", str(settings.seed), "--verbose", "False",
        "--interrupt_requests", "False",
    ]  # fmt: skip
    return [*command, "--api_key", api_key] if api_key else command


def address_for_students(host: str, port: int) -> str:
    """The base URL others reach a server on `host` by (a bound-to-all address is named by this machine's name)."""
    name = socket.gethostname() if host in ANY_ADDRESS else host
    name = f"[{name}]" if ":" in name else name
    return f"http://{name}:{port}/v1"


class LlamaServer:
    """The configured GGUF served by llama_cpp.server in a subprocess; ready (answering) when built."""

    def __init__(
        self,
        settings: Settings,
        host: str = "127.0.0.1",
        port: int = 0,
        threads: int = 0,
        api_key: str = "",
        log: Path | None = None,
    ) -> None:
        self.model = settings.llm.name
        self.host, self.port = host, port or free_port(host if host not in ANY_ADDRESS else "127.0.0.1")
        self.threads, self.api_key = threads or usable_cores(), api_key
        local = "127.0.0.1" if host in ANY_ADDRESS else host
        self.base_url = f"http://{local}:{self.port}/v1"  # how this machine reaches it
        self.log = log or settings.paths.cache_dir / "llama_server.log"
        self.log.parent.mkdir(parents=True, exist_ok=True)
        self.log.write_text("", encoding="utf-8")  # this server's log only; a restart appends to it
        self.command = server_command(settings, host, self.port, self.threads, api_key)
        self.process = self._start()
        atexit.register(self.stop)  # a kernel restart or an exception must not leave the server running
        self._wait_until_ready()

    def _start(self) -> subprocess.Popen[bytes]:
        """Start the server process, its log going to `self.log`."""
        with self.log.open("a", encoding="utf-8") as log:
            return subprocess.Popen(
                self.command,
                stdout=subprocess.DEVNULL,
                stderr=log,
                preexec_fn=_die_with_parent if LINUX else None,
            )

    def answers(self) -> bool:
        """Whether the server answers `GET /v1/models` within two seconds."""
        request = urllib.request.Request(f"{self.base_url}/models")
        if self.api_key:
            request.add_header("Authorization", f"Bearer {self.api_key}")
        try:
            with urllib.request.urlopen(request, timeout=2) as reply:
                return reply.status == 200
        except (OSError, urllib.error.URLError):
            return False

    def _wait_until_ready(self) -> None:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                error = self.log.read_text(encoding="utf-8", errors="replace")[-500:]
                raise RuntimeError(f"the model server exited at start-up ({self.log}): {error}")
            if self.answers():
                return
            time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"the model server did not answer within {STARTUP_TIMEOUT_S:.0f} s ({self.log})")

    def restart(self) -> None:
        """Stop the server and start it again on the same port (what an instructor does after a crash)."""
        self.stop()
        self.process = self._start()
        self._wait_until_ready()

    def stop(self) -> None:
        """Stop the server process (and wait for it)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
