"""Notebook 02's slot drives what it measures: the recursive splitter ("split") under the default chunker.

The kit's `recursive_split`, looked up through `chosen`, gives the chunks the kit gave before it had slots (the
shipped course vectors, built from those chunks, hold every one of them); a deliberately wrong splitter registered
with `use` moves the row the notebook's table reports for `recursive_chars` (chunks, quotes inside one chunk,
recall@5 on a fixed gold subset), `reset` brings it back, and the pipeline's chunking follows the slot. Then the
self-checks of the notebook: right on the notebook's own solution, "not yet" with the slip named on stubs and
typical mistakes, never printing the kit's chunks.
What it leaves out: the notebook itself (nbval runs it) and the chunk-count check (tests/test_checks.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from course_subset import SMALL_COURSE, dev_questions_within
from llama_index.core import Document
from llama_index.core.schema import MetadataMode

from helpers.chunking import chunk_documents, chunk_for_settings
from helpers.chunking.recursive import recursive_split
from helpers.config import REPO_ROOT, get_settings
from helpers.corpus import DOCS_DIR, Question
from helpers.embedding import Embedder
from helpers.exercises.base import STRICT_ENV
from helpers.exercises.chunking import check_prefix_gain, check_split, split_cases
from helpers.lab.chunking import score_strategy
from helpers.mechanisms import chosen, in_use, reset, use
from helpers.parsing import parse

FILES = SMALL_COURSE
NOTEBOOK = REPO_ROOT / "notebooks" / "02_chunking.ipynb"
Splitter = Callable[[str, int, int], list[str]]


pytestmark = pytest.mark.usefixtures("kit_functions")  # tests/conftest.py


@pytest.fixture(scope="module")
def documents() -> list[Document]:
    """The documents of FILES, parsed as `parse_folder` parses them."""
    return [document for name in FILES for document in parse(DOCS_DIR / name, root=DOCS_DIR)]


@pytest.fixture(scope="module")
def questions() -> list[Question]:
    """The dev questions whose evidence lies wholly in FILES."""
    return dev_questions_within(FILES)




@pytest.fixture(scope="module")
def notebook_split() -> Splitter:
    """The instructor's `recursive_split`, run from notebook 02's own solution cell."""
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    [source] = ["".join(c["source"]) for c in cells if "def recursive_split" in "".join(c["source"])]
    namespace: dict[str, object] = {}
    exec(source, namespace)  # the cell defines SEPARATORS and the function, nothing else
    return namespace["recursive_split"]  # type: ignore[return-value]


def drop_overlap_and_every_second_chunk(text: str, size: int, overlap: int) -> list[str]:
    """A deliberately wrong splitter: no overlap, and half the text thrown away."""
    return recursive_split(text, size, 0)[::2]


def the_table_row(documents: list[Document], questions: list[Question], embedder: Embedder) -> dict[str, object]:
    """The `recursive_chars` row of the notebook's comparison table, on the fixture."""
    return score_strategy("recursive_chars", documents, questions, embedder)


# --- the slot -----------------------------------------------------------------------------------------------------


def test_the_kits_splitter_is_the_default_and_gives_the_chunks_the_course_vectors_were_built_from(
    documents: list[Document], tmp_path: Path
) -> None:
    assert chosen("split", recursive_split) is recursive_split and in_use() == {}
    nodes = chunk_documents(documents, "recursive_chars")
    assert [n.text for n in nodes] == [
        piece for d in documents for piece in (recursive_split(d.text, 500, 50) if len(d.text) > 1000 else [d.text])
    ]
    # The shipped vectors were embedded from the kit's chunks before the slot existed: every chunk is found there.
    fresh = Embedder(get_settings().replace(cache_dir=tmp_path))
    fresh.embed_texts([n.get_content(metadata_mode=MetadataMode.EMBED) for n in nodes])
    assert fresh.stats["computed"] == 0 and fresh.stats["seeded"] == len(nodes) > 30


def test_a_wrong_splitter_moves_the_notebooks_row_and_reset_brings_it_back(
    documents: list[Document], questions: list[Question], embedder: Embedder
) -> None:
    assert len(questions) >= 10
    kit = the_table_row(documents, questions, embedder)
    use("split", drop_overlap_and_every_second_chunk, quiet=True)
    wrong = the_table_row(documents, questions, embedder)
    reset("split")
    assert wrong["chunks"] < kit["chunks"]  # type: ignore[operator]
    assert wrong["quotes inside one chunk"] < kit["quotes inside one chunk"]  # type: ignore[operator]
    assert wrong["recall@5"] < kit["recall@5"]  # type: ignore[operator]
    assert the_table_row(documents, questions, embedder) == kit


def test_the_pipelines_chunking_runs_on_the_registered_splitter(documents: list[Document]) -> None:
    chunking = get_settings().chunking
    kit = [n.text for n in chunk_for_settings(documents, chunking)]
    use("split", lambda text, size, overlap: [text[:size]], quiet=True)
    assert [n.text for n in chunk_for_settings(documents, chunking)] == [d.text[:500] for d in documents]
    reset("split")
    assert [n.text for n in chunk_for_settings(documents, chunking)] == kit


def test_texts_up_to_twice_the_size_stay_whole_without_calling_the_splitter() -> None:
    def refuses(text: str, size: int, overlap: int) -> list[str]:
        raise AssertionError("a short text reached the splitter")

    use("split", refuses, quiet=True)
    short = Document(text="  One paragraph. " * 50, metadata={"source": "short.md"})
    assert [n.text for n in chunk_documents([short], "recursive_chars")] == [short.text.strip()]


def test_the_reference_cuts_a_run_without_separators_into_characters() -> None:
    chunks = recursive_split("abcdefghij" * 25, 60, 10)
    assert all(len(chunk) <= 60 for chunk in chunks) and len(chunks) == 5
    assert chunks[1].startswith(chunks[0][-10:])  # whole characters overlap
    assert recursive_split("", 100, 10) == [] and recursive_split("  fits  ", 100, 10) == ["fits"]


# --- the self-checks ----------------------------------------------------------------------------------------------


def verdict_of(capsys: pytest.CaptureFixture[str], check: Callable[..., bool], *args: object) -> tuple[bool, str]:
    """What a check returned and printed."""
    result = check(*args)
    return result, capsys.readouterr().out


def test_check_split_says_right_on_the_notebooks_solution(
    capsys: pytest.CaptureFixture[str], notebook_split: Splitter, documents: list[Document]
) -> None:
    ok, out = verdict_of(capsys, check_split, notebook_split, documents)
    assert ok and out.startswith("✓ Right: ") and str(len(split_cases(documents))) in out


def no_character_level(text: str, size: int, overlap: int) -> list[str]:
    """The kit's splitter without its last resort (a run with no space stays whole)."""
    from helpers.chunking import recursive

    return recursive.glue(recursive.cut(text, size, ("\n\n", "\n", ". ", " ")), size, overlap)


def stub(text: str, size: int, overlap: int) -> list[str]:
    raise NotImplementedError


def keeps_short_texts_whole(text: str, size: int, overlap: int) -> list[str]:
    """The strategy's 2 × `size` rule inside the splitter, where it does not belong."""
    if len(text) <= 2 * size:
        return [text.strip()] if text.strip() else []
    return recursive_split(text, size, overlap)


SLIPS: list[tuple[object, str]] = [
    (None, "still None"),
    (stub, "NotImplementedError"),
    (lambda text, size, overlap: "one string", "list of strings"),
    (lambda text, size, overlap: recursive_split(text, size, 0), "share no text"),
    (drop_overlap_and_every_second_chunk, "in no chunk"),
    (lambda text, size, overlap: recursive_split(text, 500, 50), "split every text longer than `size`"),
    (keeps_short_texts_whole, "split every text longer than `size`"),
    (no_character_level, "single characters"),
    (lambda text, size, overlap: [c + " " for c in recursive_split(text, size, overlap)], "strip"),
    (lambda text, size, overlap: text.split(), "glue neighbouring pieces"),
    (lambda text, size, overlap: recursive_split(text, size, 2 * overlap), "keep at most `overlap`"),
]


@pytest.mark.parametrize(("function", "hint"), SLIPS, ids=[f"slip{i}" for i in range(len(SLIPS))])
def test_check_split_names_the_slip_without_showing_the_chunks(
    capsys: pytest.CaptureFixture[str], documents: list[Document], function: object, hint: str
) -> None:
    ok, out = verdict_of(capsys, check_split, function, documents)
    assert not ok and out.startswith("✗ Not yet: ") and hint in out, out
    cases = split_cases(documents)
    shown = [chunk for _, text, size, overlap in cases for chunk in recursive_split(text, size, overlap)]
    assert not any(len(chunk) > 20 and chunk in out for chunk in shown)


def test_check_split_raises_in_strict_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(STRICT_ENV, "1")
    with pytest.raises(AssertionError, match="Not yet"):
        check_split(stub)


def test_check_prefix_gain(
    capsys: pytest.CaptureFixture[str], documents: list[Document], questions: list[Question], embedder: Embedder
) -> None:
    two = documents[:2]
    asked = [q for q in questions if all(e.doc in {d.metadata["source"] for d in two} for e in q.evidence)]
    plain = score_strategy("paragraph_window", two, asked, embedder)
    prefixed = score_strategy("paragraph_window", two, asked, embedder, contextual=True)
    gain = prefixed["recall@5"] - plain["recall@5"]  # type: ignore[operator]
    assert verdict_of(capsys, check_prefix_gain, gain, two, asked, embedder)[0]
    for answer, hint in [(None, "still None"), (prefixed, "whole row"), ("0.1", "one number"), (gain + 0.5, "not the")]:
        ok, out = verdict_of(capsys, check_prefix_gain, answer, two, asked, embedder)
        assert not ok and hint in out, out
    if gain:
        assert "sign" in verdict_of(capsys, check_prefix_gain, -gain, two, asked, embedder)[1]

