"""The fast chunking paths give exactly the nodes the slow, obvious code gives (speed work must not move a chunk).

Three speed-ups live in `helpers.chunking`: the document link is hashed once per document instead of once per
chunk (`make_nodes`), `glue` keeps a running window length instead of summing it per piece, and LlamaIndex's
splitters count tokens through a remembering tokenizer. The obvious versions are kept in `bench/chunking.py`
(which times both) and patched in here, and every strategy's nodes (text, metadata, ids, relationships) are
compared on the course corpus and on one long document (where the per-chunk hash made chunking quadratic).
"""

from __future__ import annotations

import pytest
from llama_index.core import Document
from llama_index.core.schema import NodeRelationship

from bench.chunking import reference_chunking, snapshot
from helpers.chunking import STRATEGIES, chunk_documents
from helpers.chunking.base import make_nodes
from helpers.config import get_settings
from helpers.parsing import parse_folder


def chunk_both_ways(documents: list[Document], strategy: str) -> tuple[str, str]:
    """The strategy's nodes from the kit's code, then from the obvious reference code (bench/chunking.py)."""
    fast = snapshot(chunk_documents(documents, strategy))
    with reference_chunking():
        slow = snapshot(chunk_documents(documents, strategy))
    return fast, slow


@pytest.fixture(scope="module")
def course_documents() -> list[Document]:
    """The parsed course corpus (from the parse cache when it is warm)."""
    settings = get_settings()
    return parse_folder(settings.paths.corpus_dir, progress=False, cache_dir=settings.paths.cache_dir).documents


@pytest.fixture(scope="module")
def long_document(course_documents: list[Document]) -> list[Document]:
    """The whole course corpus as one long document, with headings (the case that used to be quadratic)."""
    text = "\n\n".join(document.text for document in course_documents)
    return [Document(text=text, metadata={"source": "everything.md", "title": "Everything"})]


@pytest.mark.parametrize("strategy", list(STRATEGIES))
def test_fast_chunking_gives_the_reference_nodes_on_the_course_corpus(
    strategy: str, course_documents: list[Document]
) -> None:
    fast, slow = chunk_both_ways(course_documents, strategy)
    assert fast == slow, f"{strategy}: the fast chunking path changed the nodes"


@pytest.mark.parametrize("strategy", ["recursive_chars", "header_sections_merged", "fixed_tokens"])
def test_fast_chunking_gives_the_reference_nodes_on_a_long_document(
    strategy: str, long_document: list[Document]
) -> None:
    fast, slow = chunk_both_ways(long_document, strategy)
    assert fast == slow, f"{strategy}: the fast chunking path changed the nodes"


def test_each_node_gets_its_own_copy_of_the_document_link() -> None:
    document = Document(text="One. Two.", metadata={"source": "a.md"})
    first, second = make_nodes(document, ["One.", "Two."])
    one, two = (node.relationships[NodeRelationship.SOURCE] for node in (first, second))
    assert one == two == document.as_related_node_info()
    one.metadata["source"] = "changed.md"
    assert two.metadata["source"] == "a.md"
