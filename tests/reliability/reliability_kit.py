"""Helpers of the reliability suite (imported by its tests as `reliability_kit`; fixtures are in conftest.py)."""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from pathlib import Path

from test_parsing import write  # the same file writer as the parsing unit tests (tests/ is on sys.path)

from helpers.config import Settings, get_settings

__all__ = ["ROWS", "Record", "child_env", "closed_port", "isolated_settings", "make_corpus", "write"]

ROWS: list[tuple[str, str, str, str]] = []  # (case, what happened, points before, points after)
Record = Callable[..., None]


def isolated_settings(root: Path, **changes: object) -> Settings:
    """The defaults (not this machine's kit.toml or KIT_* variables), data and caches under root, the tiny LLM."""
    return Settings(profile=get_settings().profile).replace(
        data_dir=root / "data", cache_dir=root / "cache", corpus_dir=root / "docs", llm_model="smollm2-135m",
        **changes,
    )  # fmt: skip


TOPICS = ["fees", "capstone", "library", "housing", "advising", "exams", "parking", "labs", "visas", "clubs"]


def make_corpus(folder: Path, files: int = 6, paragraphs: int = 6) -> Path:
    """`files` Markdown documents of `paragraphs` distinct paragraphs each (about one chunk per two paragraphs)."""
    for f in range(files):
        topic = TOPICS[f % len(TOPICS)]
        body = "\n\n".join(
            f"## {topic.title()} rule {p}\n\nRule {p} of the {topic} policy, file {f}: students must follow step {p} "
            f"before week {p + f}, and the office of {topic} answers questions about case {p * 7 + f} within "
            f"{p + 2} days. Late requests for {topic} go to the program director with form {topic[:3].upper()}-{p}."
            for p in range(paragraphs)
        )
        write(folder / f"{f:02d}_{topic}.md", f"---\ntitle: {topic.title()} {f}\n---\n# {topic.title()}\n\n{body}\n")
    return folder


def child_env(settings: Settings, **extra: str) -> dict[str, str]:
    """The environment of a child process that must load the same settings from KIT_* variables."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KIT_", "QDRANT_", "OPENAI_"))}
    env.update(
        KIT_DATA_DIR=str(settings.paths.data_dir),
        KIT_CACHE_DIR=str(settings.paths.cache_dir),
        KIT_CONFIG=str(settings.paths.data_dir / "no-kit.toml"),
        KIT_LLM_MODEL="smollm2-135m",
        KIT_PROFILE=settings.profile,
        **extra,
    )
    return env


def closed_port() -> int:
    """A local TCP port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # closed again on leaving: nothing listens there
