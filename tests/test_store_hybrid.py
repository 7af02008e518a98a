"""BM25 inside Qdrant (`bm25_backend = "store"`): each chunk's sparse vector written in its own point, hybrid search
in one request to the store, filters honoured, re-runs and upgrades that never add or drop a point, and the
store's BM25 ranking against bm25s's — on local mode (in memory and on a shared folder) and on qdrant-edge."""

from __future__ import annotations

import tempfile
import warnings
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from llama_index.core.schema import MetadataMode, TextNode
from qdrant_client import QdrantClient, models

import helpers.store.keywords as keywords_module
from helpers.chunking import chunk_for_settings, node_id
from helpers.config import ConfigError, RetrievalSettings, Settings
from helpers.corpus import load_gold
from helpers.embedding import Embedder
from helpers.parsing import parse_folder
from helpers.retrieval import (
    BM25Retriever,
    DenseRetriever,
    HybridRetriever,
    StoreBM25Retriever,
    StoreHybridRetriever,
    make_retriever,
    rrf_fusion,
    store_keywords,
    tokenize,
)
from helpers.store import KitStore, open_edge_folder, open_folder
from helpers.store.keywords import LACKING, SPARSE_VECTOR, Keywords, token_index

REPO = Path(__file__).resolve().parents[1]
KEYWORDS = Keywords("kit", tokenize)
CHUNKS = {
    "fees.md": [
        "The application fee is $90 and is not refundable.",
        "Full-time tuition is $14,850 per quarter; part-time students pay per credit.",
        "The application fee is waived for alumni of the university.",
    ],
    "ads530.md": [
        "ADS 530 Machine Learning meets in MDC 120 on Tuesdays.",
        "The ADS 530 final exam is a take-home project due in week ten.",
    ],
    "capstone.md": [
        "Capstone teams have three to five students and one faculty mentor.",
        "The capstone showcase takes place at the end of the spring quarter.",
    ],
    "whitcombe.eml": [
        "Dear students, the registration deadline for the autumn quarter is moved to September 5.",
        "Office hours for the capstone are on Fridays, says Professor Whitcombe.",
    ],
}
DOC_TYPES = {"fees.md": "markdown", "ads530.md": "markdown", "capstone.md": "markdown", "whitcombe.eml": "email"}
BACKENDS = ("memory", "folder", "edge")


def course_nodes(embedder: Embedder | None, chunks: dict[str, list[str]] = CHUNKS) -> list[TextNode]:
    """Chunks with content ids, the kit's payload fields and their embeddings (random unit vectors without one)."""
    nodes = []
    for source, texts in chunks.items():
        meta = {"source": source, "doc_type": DOC_TYPES.get(source, "markdown"), "title": source.split(".")[0]}
        if source.endswith(".eml"):
            meta["sender"] = "Prof. Whitcombe"
        nodes += [TextNode(text=text, id_=node_id(source, text), metadata=dict(meta)) for text in texts]
    texts = [node.get_content(metadata_mode=MetadataMode.EMBED) for node in nodes]
    if embedder is not None:
        vectors = embedder.embed_texts(texts, progress=False)
    else:
        rng = [np.random.default_rng(zlib.crc32(t.encode())).standard_normal(8) for t in texts]
        vectors = np.array([v / np.linalg.norm(v) for v in rng])
    for node, vector in zip(nodes, vectors, strict=True):
        node.embedding = [float(x) for x in vector]
    return nodes


def open_client(backend: str, folder: Path) -> QdrantClient:
    if backend == "memory":
        return QdrantClient(":memory:")
    if backend == "edge":
        pytest.importorskip("qdrant_edge")
        return open_edge_folder(folder / "edge")
    return open_folder(folder / "qdrant")  # local mode on a folder, as the kit opens it (SharedLocal)


@pytest.fixture(params=BACKENDS)
def client(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[QdrantClient]:
    client = open_client(request.param, tmp_path)
    yield client
    client.close()


@pytest.fixture(scope="module")
def nodes(embedder: Embedder) -> list[TextNode]:
    return course_nodes(embedder)


def calls(monkeypatch: pytest.MonkeyPatch, client: QdrantClient) -> dict[str, int]:
    """Count the client's reads from here on (each method a counter)."""
    counted: dict[str, int] = {}
    for name in ("query_points", "query_batch_points", "scroll", "retrieve"):
        method: Callable[..., Any] = getattr(client, name)

        def counting(*args: Any, _name: str = name, _method: Callable[..., Any] = method, **kw: Any) -> Any:
            counted[_name] = counted.get(_name, 0) + 1
            return _method(*args, **kw)

        monkeypatch.setattr(client, name, counting)
    return counted


def test_each_chunk_gets_its_bm25_vector_in_its_own_point(client: QdrantClient) -> None:
    nodes = course_nodes(None)
    store = KitStore(client, "c", 8, keywords=KEYWORDS)
    assert store.upsert_nodes(nodes) == {"written": len(nodes), "unchanged": 0, "removed_stale": 0}
    params = client.get_collection("c").config.params.sparse_vectors
    assert params[SPARSE_VECTOR].modifier == models.Modifier.IDF  # Qdrant computes the idf
    record = store.bm25.record()
    lengths = [len(tokenize(n.get_content(metadata_mode=MetadataMode.EMBED))) for n in nodes]
    assert record["complete"] and record["chunks"] == len(nodes) and record["tokens"] == sum(lengths)
    assert record["avgdl"] == pytest.approx(np.mean(lengths))
    point = client.retrieve("c", [nodes[0].node_id], with_vectors=True)[0]
    tokens = tokenize(nodes[0].get_content(metadata_mode=MetadataMode.EMBED))
    sparse = point.vector[SPARSE_VECTOR]
    assert sorted(sparse.indices) == sorted({token_index(t) for t in tokens})
    tf = tokens.count(tokens[0])
    weight = tf / (tf + 1.5 * (0.25 + 0.75 * len(tokens) / record["avgdl"]))  # BM25's saturation, k1 1.5, b 0.75
    assert sparse.values[sparse.indices.index(token_index(tokens[0]))] == pytest.approx(weight, rel=1e-5)
    assert store.keywords_problem("kit") is None


def test_a_rerun_writes_nothing_and_never_duplicates(client: QdrantClient) -> None:
    nodes = course_nodes(None)
    store = KitStore(client, "c", 8, keywords=KEYWORDS)
    store.upsert_nodes(nodes)
    before = {str(p.id): p.vector[SPARSE_VECTOR] for p in client.scroll("c", limit=100, with_vectors=True)[0]}
    record = store.bm25.record()
    assert store.upsert_nodes(nodes) == {"written": 0, "unchanged": len(nodes), "removed_stale": 0}
    after = {str(p.id): p.vector[SPARSE_VECTOR] for p in client.scroll("c", limit=100, with_vectors=True)[0]}
    assert store.count() == len(nodes) and after == before and store.bm25.record() == record
    changed = store.upsert_nodes(course_nodes(None, {"fees.md": ["Fee: $95."]}))  # fees.md now has one chunk
    assert changed == {"written": 1, "unchanged": 0, "removed_stale": 3}
    assert store.count() == len(nodes) - 2 and store.bm25.record()["chunks"] == len(nodes) - 2
    assert client.count("c", count_filter=LACKING).count == 0


@pytest.mark.parametrize(("fusion", "rescore"), [("weighted", 0), ("weighted", 30), ("rrf", 0)])
def test_hybrid_is_one_request_and_ranks_as_the_kernel_does(
    client: QdrantClient,
    nodes: list[TextNode],
    embedder: Embedder,
    fusion: str,
    rescore: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = KitStore(client, "c", embedder.dimension, keywords=KEYWORDS)
    store.upsert_nodes(nodes)
    sides = DenseRetriever(store, embedder), BM25Retriever.from_store(store)
    kernel = HybridRetriever(*sides, fusion, pool=6, rescore=rescore)
    queries = ("application fee", "When is the ADS 530 exam?", "capstone office hours")
    expected = {query: kernel.retrieve(query, k=4) for query in queries}
    if rescore:  # rescoring changes the fused scores it is compared with
        plain = HybridRetriever(*sides, fusion, pool=6, rescore=0)
        fused = {q: [round(h.scores["fused"], 6) for h in plain.retrieve(q, k=4)] for q in queries}
        assert any([round(h.scores["fused"], 6) for h in expected[q]] != fused[q] for q in queries)
    inside = StoreHybridRetriever(store, embedder, tokenize, fusion, pool=6, rescore=rescore)
    counted = calls(monkeypatch, client)
    for query in queries:
        found = inside.retrieve(query, k=4)
        assert [h.node_id for h in found] == [h.node_id for h in expected[query]], query
        for hit, same in zip(found, expected[query], strict=True):
            for stage in set(hit.scores) & set(same.scores):  # RRF by Qdrant adds the cosine of hits BM25 alone found
                assert hit.scores[stage] == pytest.approx(same.scores[stage], abs=1e-5), (query, stage)
    one_call = {"weighted": {"query_batch_points": 3}, "rrf": {"query_points": 3}}[fusion]
    assert counted == one_call  # one request per question, and never a scroll through the collection


def test_ranking_deep_for_rescoring_loads_only_the_top_in_full(
    client: QdrantClient, nodes: list[TextNode], embedder: Embedder
) -> None:
    store = KitStore(client, "c", embedder.dimension, keywords=KEYWORDS)
    store.upsert_nodes(nodes)
    dense, query = DenseRetriever(store, embedder), "application fee"
    full, ranked = dense.retrieve(query, 12), dense.ranked(query, 3, 12)
    assert [(h.node_id, h.scores) for h in ranked] == [(h.node_id, h.scores) for h in full]
    assert ranked[:3] == full[:3] and all(h.text == "" and h.metadata == {} for h in ranked[3:])
    assert dense.ranked(query, 5, 5) == dense.retrieve(query, 5)  # nothing deeper asked: the usual search


def test_bm25_in_the_store_scores_as_bm25s(client: QdrantClient) -> None:
    store = KitStore(client, "c", 8, keywords=KEYWORDS)
    nodes = course_nodes(None)
    store.upsert_nodes(nodes)
    kernel, inside = BM25Retriever.from_store(store), StoreBM25Retriever(store, tokenize)
    for query in ("application fee", "ADS 530 MDC 120", "quarter students"):
        found, expected = inside.retrieve(query, 5), kernel.retrieve(query, 5)
        assert [(h.node_id, round(h.scores["sparse"], 4)) for h in found] == [
            (h.node_id, round(h.scores["sparse"], 4)) for h in expected
        ]
    assert inside.retrieve("zzz unknown words", 3) == [] and inside.retrieve("the of and", 3) == []


@pytest.mark.parametrize(
    "filters",
    [{"source": "capstone.md"}, {"doc_type": "email"}, {"source": ["fees.md", "ads530.md"]}, {"sender": "whitcombe"}],
)
def test_filters_are_honoured(client: QdrantClient, nodes: list[TextNode], embedder: Embedder, filters: dict) -> None:
    store = KitStore(client, "c", embedder.dimension, keywords=KEYWORDS)
    store.upsert_nodes(nodes)
    wanted = {n.node_id for n in nodes if all(_matches(n.metadata, key, value) for key, value in filters.items())}
    for retriever in (
        StoreHybridRetriever(store, embedder, tokenize, "weighted"),
        StoreHybridRetriever(store, embedder, tokenize, "rrf"),
        StoreBM25Retriever(store, tokenize),
    ):
        hits = retriever.retrieve("capstone fee quarter students", k=10, filters=filters)
        assert hits and {h.node_id for h in hits} <= wanted, (type(retriever).__name__, filters)


def _matches(metadata: dict, key: str, value: object) -> bool:
    if key == "sender":
        return str(value).lower() in str(metadata.get(key, "")).lower()
    return metadata.get(key) in (value if isinstance(value, list) else [value])


def test_qdrants_rrf_is_the_kits_rrf(client: QdrantClient, nodes: list[TextNode], embedder: Embedder) -> None:
    store = KitStore(client, "c", embedder.dimension, keywords=KEYWORDS)
    store.upsert_nodes(nodes)
    retriever = StoreHybridRetriever(store, embedder, tokenize, "rrf", rrf_k=60, pool=5)
    query = "capstone students quarter"
    vector = [float(x) for x in embedder.embed_query(query)]
    dense, sparse = retriever.both_lists(vector, query, 5, None)
    expected = rrf_fusion([dense, sparse], 60)[:5]
    found = retriever.retrieve(query, 5)  # the same 5 candidates per side
    assert [round(h.scores["fused"], 6) for h in found] == [round(h.scores["fused"], 6) for h in expected]
    assert {h.node_id for h in found} == {h.node_id for h in expected}  # ties may come in another order


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_old_collection_gets_its_vectors_in_place(tmp_path: Path, backend: str) -> None:
    """A collection made before BM25 lived in the store: the retriever says so in one line and keeps bm25s; an ingest
    with keywords adds the sparse vectors to the existing points (an interrupted one resumes), nothing else."""
    nodes = course_nodes(None)
    client = open_client(backend, tmp_path)
    try:
        old = KitStore(client, "course", 8)
        old.upsert_nodes(nodes)
        assert not old.keeps_keywords and "has no BM25 vectors" in (old.keywords_problem("kit") or "")
        # copies kept (near_duplicate 0), no period filter: the retriever asked for is the one returned, not wrapped
        settings = RetrievalSettings(
            bm25_backend="store", bm25_tokenizer=KEYWORDS.tokenizer, near_duplicate=0.0, period_aware=False
        )
        with pytest.warns(UserWarning, match=r"bm25_backend = 'store': .* has no BM25 vectors.*in this kernel") as w:
            retriever = make_retriever("hybrid", old, None, settings, expand=False)  # type: ignore[arg-type]
        assert isinstance(retriever, HybridRetriever)
        assert len([x for x in w if "bm25_backend" in str(x.message)]) == 1  # one line
        # an upgrade stopped after its first batch of vectors, then run again
        store = KitStore(client, "course", 8, keywords=KEYWORDS)
        batches, update = [], client.update_vectors

        def stop_after_one(*args: Any, **kw: Any) -> Any:
            batches.append(1)
            if len(batches) == 2:
                raise KeyboardInterrupt
            return update(*args, **kw)

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(keywords_module, "WRITE_BATCH", 4)
            patch.setattr(client, "update_vectors", stop_after_one)
            with pytest.raises(KeyboardInterrupt):
                store.upsert_nodes(nodes)
            assert 0 < client.count("course", count_filter=LACKING).count < len(nodes)
            patch.setattr(client, "update_vectors", update)
            assert store.upsert_nodes(nodes) == {"written": 0, "unchanged": len(nodes), "removed_stale": 0}
        assert store.count() == len(nodes) and client.count("course", count_filter=LACKING).count == 0
        assert store.bm25.record()["chunks"] == len(nodes) and store.keywords_problem("kit") is None
        assert store.keywords_problem("stemmed") is not None  # another tokenizer: the kernel's bm25s again
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            inside = make_retriever("hybrid", store, _FixedEmbedder(nodes[0].embedding), settings, expand=False)  # type: ignore[arg-type]
        assert not [x for x in w if "bm25_backend" in str(x.message)]
        assert isinstance(inside, StoreHybridRetriever) and inside.retrieve("application fee", 2)
    finally:
        client.close()


class _FixedEmbedder:
    """Any query embeds to one fixed vector (the dense side does not matter here)."""

    def __init__(self, vector: list[float]) -> None:
        self.vector, self.dimension = vector, len(vector)

    def embed_query(self, query: str) -> list[float]:
        return self.vector


def test_a_drifted_mean_length_rewrites_every_vector() -> None:
    store = KitStore(QdrantClient(":memory:"), "c", 8, keywords=KEYWORDS)
    short = course_nodes(None, {"a.md": [f"fee {i}" for i in range(6)]})
    store.upsert_nodes(short)
    first = store.bm25.record()["avgdl"]
    long = course_nodes(None, {"b.md": [" ".join(f"word{i}x{j}" for j in range(40)) for i in range(6)]})
    store.upsert_nodes(long)  # the mean length more than doubles: past the drift allowed
    record = store.bm25.record()
    assert record["avgdl"] == pytest.approx(record["tokens"] / record["chunks"]) and record["avgdl"] > 2 * first
    point = store.client.retrieve("c", [short[0].node_id], with_vectors=True)[0]
    tokens = tokenize(short[0].get_content(metadata_mode=MetadataMode.EMBED))
    expected = 1 / (1 + 1.5 * (0.25 + 0.75 * len(tokens) / record["avgdl"]))  # each token once
    assert point.vector[SPARSE_VECTOR].values[0] == pytest.approx(expected, rel=1e-5)


def test_a_bm25_function_of_ones_own_keeps_the_kernel(kit_functions: None, nodes: list[TextNode]) -> None:
    from helpers.mechanisms import use

    store = KitStore(QdrantClient(":memory:"), "c", len(nodes[0].embedding), keywords=KEYWORDS)
    store.upsert_nodes(nodes)
    use("bm25", lambda query, documents, k1, b: np.ones(len(documents)), quiet=True)
    with pytest.warns(UserWarning, match="bm25 function of your own"):
        plain = RetrievalSettings(bm25_backend="store", near_duplicate=0.0, period_aware=False)  # nothing wraps it
        retriever = make_retriever("bm25", store, None, plain, expand=False)  # type: ignore[arg-type]
    assert isinstance(retriever, BM25Retriever)


def test_the_setting_is_checked_and_names_the_store_tokenizer() -> None:
    with pytest.raises(ConfigError, match="bm25_backend"):
        Settings(bm25_backend="elastic")
    assert Settings().retrieval.bm25_backend == "auto"
    assert store_keywords(RetrievalSettings(bm25_tokenizer="stemmed")).tokenizer == "stemmed"


def test_auto_ranks_bm25_in_qdrant_except_in_local_mode(tmp_path: Path) -> None:
    """Local mode keeps bm25s (its points are in the kernel anyway); qdrant-edge and a server rank in Qdrant."""
    from helpers.pipeline import RAGPipeline
    from helpers.store.client import bm25_in_store

    local = QdrantClient(":memory:")
    assert [bm25_in_store(b, local) for b in ("auto", "kernel", "store")] == [False, False, True]
    server = QdrantClient(url="http://localhost:1")  # never contacted: only its kind is read
    assert [bm25_in_store(b, server) for b in ("auto", "kernel", "store")] == [True, False, True]
    pytest.importorskip("qdrant_edge")
    pipeline = RAGPipeline(Settings(data_dir=tmp_path, store_backend="edge"))
    try:
        assert pipeline.store.keeps_keywords  # an edge collection is made with its BM25 vectors
    finally:
        pipeline.close()


def article_nodes() -> list[TextNode]:
    """The course's articles, parsed and chunked as the defaults do, with seeded random 8-d vectors."""
    cache = Path(tempfile.mkdtemp(prefix="kit-test-parse-"))
    parsed = parse_folder(REPO / "course_data" / "docs" / "articles", progress=False, cache_dir=cache)
    nodes = chunk_for_settings(parsed.documents, Settings().chunking)
    rng = np.random.default_rng(0)
    for node in nodes:
        node.embedding = rng.standard_normal(8).tolist()
    return nodes


def test_store_top_k_overlaps_bm25s_on_course_chunks() -> None:
    """The course's articles (a few hundred chunks), ingested in two halves as a class would: the first half fixes
    the mean length the store weighs every chunk with, so the store's top 10 is close to bm25s's, not equal.
    bm25s and Qdrant use the same idf formula and the same saturation; what differs is that mean (the first half's
    against the final one) and the order of equal scores. Floors are the measured values, rounded down
    (docs/decisions.md)."""
    nodes = article_nodes()
    sources = sorted({n.metadata["source"] for n in nodes})
    store = KitStore(QdrantClient(":memory:"), "c", 8, keywords=KEYWORDS)
    store.upsert_nodes([n for n in nodes if n.metadata["source"] in sources[::2]])
    store.upsert_nodes(nodes)
    record = store.bm25.record()
    kernel, inside = BM25Retriever.from_store(store), StoreBM25Retriever(store, tokenize)
    questions = [q.question for q in load_gold(split="dev")]
    expected = {q: [h.node_id for h in kernel.retrieve(q, 10)] for q in questions}
    expected = {q: ids for q, ids in expected.items() if ids}

    def overlaps() -> list[float]:
        return [len({h.node_id for h in inside.retrieve(q, 10)} & set(ids)) / len(ids) for q, ids in expected.items()]

    assert len(nodes) > 300 and record["avgdl"] != pytest.approx(record["tokens"] / record["chunks"])
    mean = record["tokens"] / record["chunks"]
    print(f"{len(nodes)} chunks, mean length {mean:.2f}, weighed with {record['avgdl']:.2f}")
    two_halves = overlaps()
    print(f"top-10 overlap, two ingests: mean {np.mean(two_halves):.4f}, lowest {min(two_halves):.2f}")
    assert np.mean(two_halves) >= OVERLAP_FLOOR and min(two_halves) >= OVERLAP_LOWEST
    store.add_keywords(refresh=True)  # weighed with the final mean: bm25s's ranking, ties aside
    refreshed = overlaps()
    print(f"top-10 overlap, refreshed: mean {np.mean(refreshed):.4f}, lowest {min(refreshed):.2f}")
    assert np.mean(refreshed) >= REFRESHED_FLOOR


OVERLAP_FLOOR, OVERLAP_LOWEST, REFRESHED_FLOOR = 0.99, 0.9, 0.995  # the measured values, rounded down


class _SeededEmbedder:
    """A query embeds to a random vector seeded by its text: each question gets dense candidates of its own."""

    def __init__(self, dimension: int) -> None:
        self.dimension = dimension

    def embed_query(self, query: str) -> list[float]:
        return np.random.default_rng(zlib.crc32(query.encode())).standard_normal(self.dimension).tolist()


def filler_nodes(n: int, dimension: int, seed: int = 1) -> list[TextNode]:
    """n chunks of made-up words drawn Zipf-like (document frequencies of a real corpus's shape), random vectors."""
    rng = np.random.default_rng(seed)
    vocabulary = [f"zq{i:05d}" for i in range(20_000)]
    weights = np.arange(1, len(vocabulary) + 1) ** -1.1
    drawn = rng.choice(len(vocabulary), size=(n, 70), p=weights / weights.sum())
    nodes = []
    for i, row in enumerate(drawn):
        text = " ".join(vocabulary[w] for w in row)
        source = f"filler{i // 100}.md"
        node = TextNode(text=text, id_=node_id(source, text), metadata={"source": source})
        node.embedding = rng.standard_normal(dimension).tolist()
        nodes.append(node)
    return nodes


def test_hybrid_in_a_20000_point_collection_returns_the_kernels_top_k() -> None:
    """The course articles among filler chunks, 20,000 points in embedded local mode, ingested once: for 40 seeded
    course dev questions the store's weighted hybrid (one request, no scroll) returns the same top 4, in the same
    order, as the kernel's bm25s hybrid over the same collection (the same dense side; BM25 with the same mean)."""
    course = article_nodes()
    nodes = course + filler_nodes(20_000 - len(course), 8)
    folder = Path(tempfile.mkdtemp(prefix="kit-test-20k-"))
    client = open_folder(folder)
    try:
        store = KitStore(client, "c", 8, keywords=KEYWORDS)
        store.upsert_nodes(nodes)
        assert store.count() == 20_000
        embedder = _SeededEmbedder(8)
        dense = DenseRetriever(store, embedder)  # type: ignore[arg-type]
        kernel = HybridRetriever(dense, BM25Retriever.from_store(store), "weighted", pool=50)
        inside = StoreHybridRetriever(store, embedder, tokenize, "weighted", pool=50)  # type: ignore[arg-type]
        questions = [q.question for q in load_gold(split="dev")]
        asked = [questions[i] for i in sorted(np.random.default_rng(0).choice(len(questions), 40, replace=False))]
        differ = [q for q in asked if ids(inside.retrieve(q, 4)) != ids(kernel.retrieve(q, 4))]
        assert not differ, f"{len(differ)} of {len(asked)} questions rank otherwise, e.g. {differ[:3]}"
    finally:
        client.close()


def ids(hits: list) -> list[str]:
    return [hit.node_id for hit in hits]
