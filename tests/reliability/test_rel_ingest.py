"""Ingestion that is killed, repeated or fed a changed document leaves exactly the points of a clean run."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

from reliability_kit import Record, child_env, make_corpus, write

from helpers.config import Settings
from helpers.pipeline import RAGPipeline
from helpers.store import KitStore, connect

BATCH = 8  # points per write in the child, so the corpus takes several batches

# The child ingests for real; it only writes smaller batches and says on stdout when each one is on disk,
# then pauses a moment, so the parent can kill it part-way through (SIGKILL: no clean-up, no atexit).
CHILD = f"""
import sys, time
import helpers.store.collection as collection
from helpers.config import load_settings
from helpers.pipeline import RAGPipeline

collection.KitStore.upsert_nodes.__defaults__ = ({BATCH},)
add = collection.QdrantVectorStore.add

def add_and_report(self, nodes, **kwargs):
    ids = add(self, nodes, **kwargs)
    print("batch written", len(ids), flush=True)
    time.sleep(0.5)
    return ids

collection.QdrantVectorStore.add = add_and_report
RAGPipeline(load_settings()).ingest(sys.argv[1], progress=False)
print("finished", flush=True)
"""


def stored_ids(settings: Settings) -> set[str]:
    """The point ids in the settings' collection (opened, read and closed again)."""
    store = KitStore(connect(settings), settings.store.collection, 384)
    try:
        return set().union(*store.ids_by_source().values())
    finally:
        store.client.close()


def kill_after_batches(script: Path, corpus: Path, settings: Settings, batches: int) -> list[str]:
    """Run the child ingest and SIGKILL it once `batches` batches are written; its stdout lines."""
    child = subprocess.Popen(
        [sys.executable, str(script), str(corpus)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env=child_env(settings), cwd=Path(__file__).resolve().parents[2],
    )  # fmt: skip
    lines: list[str] = []
    deadline = time.monotonic() + 150
    try:
        while sum(line.startswith("batch") for line in lines) < batches and time.monotonic() < deadline:
            if select.select([child.stdout], [], [], 1)[0]:
                line = child.stdout.readline()  # type: ignore[union-attr]
                if not line:
                    break  # the child ended by itself
                lines.append(line.strip())
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
    return lines


def test_killed_ingest_then_rerun_holds_exactly_the_clean_points(
    rel_settings: Settings, tmp_path: Path, record: Record
) -> None:
    corpus = make_corpus(tmp_path / "docs", files=10, paragraphs=10)
    clean = RAGPipeline(rel_settings.replace(data_dir=tmp_path / "clean"))
    try:
        clean_report = clean.ingest(corpus, progress=False)
    finally:
        clean.close()
    clean_ids = stored_ids(rel_settings.replace(data_dir=tmp_path / "clean"))
    assert clean_report.points == len(clean_ids) > 3 * BATCH

    script = write(tmp_path / "child_ingest.py", CHILD)
    lines = kill_after_batches(script, corpus, rel_settings, batches=2)
    assert "finished" not in lines and sum(line.startswith("batch") for line in lines) == 2, lines
    partial = stored_ids(rel_settings)  # the folder opens again: the killed process left no lock behind
    assert 0 < len(partial) < len(clean_ids) and partial <= clean_ids

    pipeline = RAGPipeline(rel_settings)
    try:
        resumed = pipeline.ingest(corpus, progress=False)
        again = pipeline.ingest(corpus, progress=False)
    finally:
        pipeline.close()
    assert resumed.written == len(clean_ids) - len(partial) and resumed.unchanged == len(partial)
    assert stored_ids(rel_settings) == clean_ids and resumed.points == clean_report.points
    assert again.written == 0 and again.points == clean_report.points  # a third run: no duplicates
    record("ingest: killed (SIGKILL) after 2 batches, then re-run", f"re-run wrote the {resumed.written} missing "
           f"points; ids identical to a clean run ({len(clean_ids)} points)", len(partial), resumed.points)  # fmt: skip
    record("ingest: re-run once more", f"0 written, {again.unchanged} unchanged, no duplicates", resumed.points,
           again.points)  # fmt: skip


def test_changed_document_replaces_its_old_chunks(rel_settings: Settings, tmp_path: Path, record: Record) -> None:
    corpus = make_corpus(tmp_path / "docs", files=3, paragraphs=6)
    pipeline = RAGPipeline(rel_settings)
    try:
        first = pipeline.ingest(corpus, progress=False)
        old_ids = pipeline.store.ids_of_source("01_capstone.md")
        write(corpus / "01_capstone.md", "# Capstone\n\nCapstone teams now have two to four students.\n")
        second = pipeline.ingest(corpus, progress=False)
        new_ids = pipeline.store.ids_of_source("01_capstone.md")
        texts = " ".join(hit.text for hit in pipeline.retrieve("capstone team size", k=3))
    finally:
        pipeline.close()
    assert old_ids and new_ids and not old_ids & new_ids  # none of the old chunks is kept beside the new
    assert second.removed_stale == len(old_ids) and second.written == len(new_ids)
    assert second.points == first.points - len(old_ids) + len(new_ids) == second.chunks
    assert "two to four" in texts
    happened = f"its {len(old_ids)} old chunks removed, {len(new_ids)} new written, others unchanged"
    record("ingest: a changed document re-ingested", happened, first.points, second.points)
