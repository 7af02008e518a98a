"""Two Jupyter kernels on one data folder (issue 18): both read, one writes while the other reads.

Students leave kernels running: notebook 04 writing the index while 05 or the app reads it must work. Each
kernel here is a real ipykernel started by jupyter_client with the notebook's name in `JPY_SESSION_NAME` (as
JupyterLab sets it) and the same `KIT_DATA_DIR`; they use the kit's own `connect()` + `KitStore`, with small
seeded vectors instead of the embedder so the test stays short. Where the lock cannot be had, the message names
the notebook holding it.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from jupyter_client.manager import KernelManager
from reliability_kit import Record, child_env

from helpers.config import Settings

SETUP = """
import json, time
from llama_index.core.schema import TextNode
from helpers.config import get_settings
from helpers.store import KitStore, connect
settings = get_settings()
store = KitStore(connect(settings), settings.store.collection, 8)

def nodes(start, n):
    out = []
    for i in range(start, start + n):
        node = TextNode(text=f"chunk {i}", id_=f"00000000-0000-0000-0000-{i:012d}", metadata={"source": f"f{i}.md"})
        node.embedding = [1.0, (i % 13) / 13, (i % 5) / 5, 0.5, 0.1, (i % 3) / 3, 1.0, i / 1000]
        out.append(node)
    return out
"""
WRITE = """
for start in range(0, {n}, {batch}):
    store.upsert_nodes(nodes(start, {batch}))
print(json.dumps({{"count": store.count()}}))
"""
READ_WHILE = """
seen, t0 = [], time.monotonic()
while time.monotonic() - t0 < {seconds}:
    seen.append(store.count())
    assert len(store.search([1.0, 0.5, 0.5, 0.5, 0.1, 0.3, 1.0, 0.1], k=3)) == min(3, seen[-1])
    time.sleep(0.05)
print(json.dumps({{"seen": seen}}))
"""
HOLD = """
with store.client._client._locked():
    time.sleep({seconds})
print(json.dumps({{"held": True}}))
"""
TRY_WRITE = """
from helpers.store import StoreError
store.client._client._lock_wait_s = 1.0
try:
    store.upsert_nodes(nodes(9000, 1))
    print(json.dumps({"error": ""}))
except StoreError as error:
    print(json.dumps({"error": str(error)}))
"""


class Kernel:
    """One ipykernel with the kit's settings in its environment, running code and returning its JSON line."""

    def __init__(self, settings: Settings, notebook: str, backend: str = "local") -> None:
        env = child_env(settings, JPY_SESSION_NAME=f"/home/student/notebooks/{notebook}", KIT_STORE_BACKEND=backend)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path(__file__).parents[2]), env.get("PYTHONPATH")]))
        self.manager = KernelManager(kernel_name="python3")
        self.manager.start_kernel(env=env, cwd=str(settings.paths.data_dir.parent))
        self.client = self.manager.client()
        self.client.start_channels()
        self.client.wait_for_ready(timeout=60)

    def start(self, code: str) -> str:
        """Send code; the message id to collect with `result`."""
        return self.client.execute(code)

    def result(self, msg_id: str, timeout: float = 60) -> dict:
        """The last JSON line the code printed; an error's traceback fails the test."""
        lines, deadline = [], time.monotonic() + timeout
        while True:
            message = self.client.get_iopub_msg(timeout=max(0.1, deadline - time.monotonic()))
            if message["parent_header"].get("msg_id") != msg_id:
                continue
            kind, content = message["msg_type"], message["content"]
            if kind == "stream":
                lines += content["text"].splitlines()
            elif kind == "error":
                pytest.fail("\n".join(content["traceback"]))
            elif kind == "status" and content["execution_state"] == "idle":
                return json.loads(lines[-1]) if lines else {}

    def run(self, code: str, timeout: float = 60) -> dict:
        """Run code to the end; its JSON line."""
        return self.result(self.start(code), timeout)

    def shutdown(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)


@pytest.fixture(params=["local", "edge"])  # both embedded engines: local mode's lock per write, edge's lease
def kernels(rel_settings: Settings, request: pytest.FixtureRequest) -> Iterator[tuple[Kernel, Kernel]]:
    if request.param == "edge":
        pytest.importorskip("qdrant_edge")
    started: list[Kernel] = []
    try:
        for notebook in ("04_vector_store.ipynb", "05_retrieval.ipynb"):
            started.append(Kernel(rel_settings, notebook, request.param))
        for kernel in started:
            kernel.run(SETUP)  # both open the same embedded folder: no "already accessed" any more
        yield started[0], started[1]
    finally:
        for kernel in started:
            kernel.shutdown()


def test_two_kernels_write_and_read_the_same_folder(kernels: tuple[Kernel, Kernel], record: Record) -> None:
    writer, reader = kernels
    first = writer.run(WRITE.format(n=200, batch=50))["count"]
    assert first == 200 and reader.run('print(json.dumps({"count": store.count()}))')["count"] == 200  # both read
    reading = reader.start(READ_WHILE.format(seconds=3))  # the reader polls while the writer adds 400 points
    written = writer.run(WRITE.format(n=600, batch=50))["count"]
    seen = reader.result(reading)["seen"]
    assert written == 600 and seen == sorted(seen) and seen[0] >= 200 and seen[-1] == 600
    assert reader.run('print(json.dumps({"count": store.count()}))')["count"] == 600
    record("kernels: notebook 04 writes while notebook 05 reads (two ipykernels, one data folder)",
           f"both opened the store; the reader's count went {seen[0]} → {seen[-1]} over {len(seen)} reads while "
           f"the writer added 400 points in batches of 50; no error", 200, 600)  # fmt: skip


def test_a_write_that_cannot_wait_names_the_notebook_holding_the_store(kernels: tuple[Kernel, Kernel],
                                                                      record: Record) -> None:  # fmt: skip
    holder, other = kernels
    holding = holder.start(HOLD.format(seconds=4))  # notebook 04 in the middle of a long write
    time.sleep(1.0)
    error = other.run(TRY_WRITE)["error"]
    assert holder.result(holding)["held"]
    assert "notebook 04_vector_store.ipynb" in error and "Shut down that kernel" in error, error
    assert other.run(TRY_WRITE)["error"] == ""  # the lock is free again: the same write goes through
    record("kernels: a write waiting on another notebook's write (wait set to 1 s)", f"StoreError: “{error}”")
