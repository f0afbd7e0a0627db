"""vectors: the meaning side's cost: embeddings calls, vectors on disk, scan time, build memory.

`build` indexes a generated corpus with embeddings served by the fake model server's
`/embeddings` (its deterministic stem encoder, 512 dimensions like a small sentence encoder)
through the real Toolbox, then counts what the build asked for, measures the vectors on disk
against the documents' extracted text, times the vector side and whole searches, restarts on
the same DATA_DIR and counts the calls the restart made, and measures how much the int8 vectors
change the nearest passages (recall@10 of the int8 scan against float32 on the same texts).
`latency` fills a vector index with random unit vectors (the scan's time does not depend on
what they mean) to time the vector side alone at sizes a build here would take hours to reach.
Quality of the meaning side with a real model is another benchmark's.
"""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench import corpus
from bench.context import Context
from bench.results import Aim, BenchResult, Metric
from bench.stats import p95, peak_rss_mb
from bench.toolbox import settings_for
from tests.fakes.fake_embeddings import stem_encoder
from tests.fakes.fake_llm import FakeLLM
from tools import Toolbox
from tools.index.store import load_text
from tools.vectors.cache import quantise
from tools.vectors.embeddings import EmbeddingsConfig
from tools.vectors.passages import Passage, cut_passages
from tools.vectors.state import STORE_FOLDER
from tools.vectors.store import FileChange, VectorStore

TITLE = "vectors: embeddings calls, vectors on disk against the text, vector scan p95, build RSS"
DIMENSIONS = 512
QUERIES = 200
RECALL_PASSAGES = 5_000
PASSAGES_PER_DOCUMENT = 15
"""About what the generated corpus's documents are cut into (7,555 passages of 500)."""


def variants(quick: bool) -> list[str]:
    del quick
    return ["build", "latency"]


def _encoder(texts: list[str]) -> list[list[float]]:
    return stem_encoder(texts, DIMENSIONS)


async def run(ctx: Context, variant: str) -> BenchResult:
    if variant == "latency":
        return _latency(ctx)
    return await _build(ctx)


async def _build(ctx: Context) -> BenchResult:
    documents = 500 if ctx.quick else 10_000
    result = BenchResult("vectors", TITLE)
    root = corpus.ensure(ctx.workdir, documents, ctx.python, ctx.child_env())
    data = ctx.scratch(f"vectors-data-{documents}")
    server = FakeLLM()
    server.embeddings.encoder = _encoder
    server.embeddings.keep_inputs = False  # the peak RSS is the toolbox's, not a record of it
    await server.start()
    config = EmbeddingsConfig(
        model="bench-embed", base_url=server.base_url, api_key="bench", calls_per_second=1000.0
    )
    try:
        started = time.perf_counter()
        box = await _started(root, data, config)
        build_s = time.perf_counter() - started
        build_rss = peak_rss_mb()
        status = box.vector_status()
        calls, texts = server.embeddings.calls, server.embeddings.answered
        text_bytes, passages = _texts(box)
        matrix = (data / STORE_FOLDER / "matrix.i8").stat().st_size
        cache = sum(p.stat().st_size for p in data.glob("vectors.sqlite3*"))
        vector_ms, search_ms, keyword_ms = await _timings(box, passages)
        await box.close()
        calls_before = server.embeddings.calls
        again = await _started(root, data, config)
        restart_calls = server.embeddings.calls - calls_before
        await again.close()
    finally:
        await server.close()
    recall = _recall(passages)
    size_ratio = matrix / text_bytes
    result.metrics += [
        Metric(f"documents ({status.passages_done} passages)", "", [float(documents)]),
        Metric(f"embeddings calls (batch {config.batch}; {texts} texts)", "", [float(calls)]),
        Metric("embeddings calls after a restart", "", [float(restart_calls)]),
        Metric("vectors + keyword build", "s", [build_s]),
        Metric("extracted text", "MB", [text_bytes / 1e6]),
        Metric("vector index on disk (int8)", "MB", [matrix / 1e6]),
        Metric("vector index / extracted text", "×", [size_ratio]),
        Metric("embeddings cache on disk", "MB", [cache / 1e6]),
        Metric(f"vector side at {documents} documents", "ms", vector_ms),
        Metric("search_files, keyword only", "ms", keyword_ms),
        Metric("search_files, words and meaning (embedding on loopback)", "ms", search_ms),
        Metric("recall@10 of the int8 scan against float32", "%", [recall * 100]),
        Metric("peak RSS after the build", "MB", [build_rss]),
    ]
    result.aims += [
        Aim(
            "vectors on disk ≤ 0.5× the extracted text",
            size_ratio <= 0.5,
            f"{size_ratio:.2f}×",
            value=size_ratio,
            limit=0.5,
            unit="×",
        ),
        Aim(
            "a restart embeds nothing twice",
            restart_calls == 0,
            f"{restart_calls} calls",
        ),
        Aim(
            "peak RSS while building ≤ 300 MB",
            build_rss <= 300,
            f"{build_rss:.0f} MB",
            value=build_rss,
            limit=300,
            unit="MB",
        ),
    ]
    result.notes.append(
        "The fake server runs in the measured process (its encoder is small); the embeddings "
        "are the fake's stem encoder at 512 dimensions, so only cost is measured here."
    )
    return result


async def _started(root: Path, data: Path, config: EmbeddingsConfig) -> Toolbox:
    box = Toolbox(settings_for(root, data), watch="rescan", embeddings=config)
    await box.start()
    await asyncio.wait_for(box.wait_ready(), 3_600)
    await asyncio.wait_for(box.wait_vectors(), 3_600)
    return box


def _texts(box: Toolbox) -> tuple[int, list[Passage]]:
    """Bytes of the extracted text, and the documents' passages."""
    total = 0
    passages: list[Passage] = []
    with box.indexer.readers.connection() as conn:
        rows = conn.execute("SELECT id, path FROM files WHERE error IS NULL").fetchall()
        for rowid, path in rows:
            text = load_text(conn, rowid, 64 * 1024 * 1024)
            total += len(text.encode())
            if len(passages) < RECALL_PASSAGES * 4:
                passages += cut_passages(path, text)
    return total, passages


async def _timings(
    box: Toolbox, passages: list[Passage]
) -> tuple[list[float], list[float], list[float]]:
    rng = random.Random(7)
    sample = rng.sample(passages, min(QUERIES, len(passages)))
    queries = [" ".join(p.text.split()[:6]) for p in sample]
    store = box.searcher.vectors
    assert store is not None
    vectors = np.asarray(_encoder(queries), dtype=np.float32)
    vector_ms = []
    for vector in vectors:
        began = time.perf_counter()
        store.search(vector, 10)
        vector_ms.append((time.perf_counter() - began) * 1000)
    search_ms, keyword_ms = [], []
    for query in queries:
        began = time.perf_counter()
        await box.execute("search_files", {"query": query})
        search_ms.append((time.perf_counter() - began) * 1000)
        began = time.perf_counter()
        await asyncio.to_thread(box.searcher.search, query, 10)
        keyword_ms.append((time.perf_counter() - began) * 1000)
    return vector_ms, search_ms, keyword_ms


def _recall(passages: list[Passage]) -> float:
    """Share of the float32 scan's 10 nearest passages the int8 scan also finds."""
    rng = random.Random(11)
    chosen = rng.sample(passages, min(RECALL_PASSAGES, len(passages)))
    exact = np.asarray(_encoder([p.text for p in chosen]), dtype=np.float32)
    rough = quantise(exact).astype(np.float32)
    queries = np.asarray(
        _encoder([" ".join(p.text.split()[:6]) for p in chosen[:QUERIES]]), dtype=np.float32
    )
    found = 0
    for query in queries:
        best = set(np.argsort(-(exact @ query))[:10].tolist())
        near = set(
            np.argsort(-(rough @ quantise(query[None])[0].astype(np.float32)))[:10].tolist()
        )
        found += len(best & near)
    return found / (10 * len(queries))


def _latency(ctx: Context) -> BenchResult:
    result = BenchResult("vectors", TITLE)
    for documents in (1_000, 10_000) if ctx.quick else (10_000, 100_000):
        _time_scan(ctx, documents, result)
    return result


def _time_scan(ctx: Context, documents: int, result: BenchResult) -> None:
    """The vector side over `documents` files of `PASSAGES_PER_DOCUMENT` random vectors each."""
    size = documents * PASSAGES_PER_DOCUMENT
    folder = ctx.scratch(f"vectors-synthetic-{documents}") / STORE_FOLDER
    store = VectorStore(folder)
    store.open_for("synthetic", DIMENSIONS)
    rng = np.random.default_rng(5)
    for start in range(0, documents, 1_000):
        changes: list[Any] = []
        for number in range(start, min(start + 1_000, documents)):
            raw = rng.standard_normal((PASSAGES_PER_DOCUMENT, DIMENSIONS)).astype(np.float32)
            raw /= np.linalg.norm(raw, axis=1, keepdims=True)
            passages = [
                Passage(f"f{number}.txt", i + 1, i + 1, None, "")
                for i in range(PASSAGES_PER_DOCUMENT)
            ]
            changes.append(FileChange(f"f{number}.txt", 1, 1, passages, quantise(raw)))
        store.apply(changes)
    half = frozenset(f"f{n}.txt" for n in range(0, documents, 2))
    tenth = frozenset(f"f{n}.txt" for n in range(0, documents, 10))
    queries = rng.standard_normal((QUERIES // 2, DIMENSIONS)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    store.search(queries[0], 10)  # the first maps the matrix
    timings: dict[str, list[float]] = {"whole folder": [], "half": [], "a tenth": []}
    for query in queries:
        for name, allowed in (("whole folder", None), ("half", half), ("a tenth", tenth)):
            began = time.perf_counter()
            store.search(query, 10, allowed=allowed)
            timings[name].append((time.perf_counter() - began) * 1000)
    store.close()
    for name, samples in timings.items():
        scope = name if name == "whole folder" else f"a scope of {name} of the files"
        result.metrics.append(
            Metric(f"vector side, {documents} documents ({size} passages), {scope}", "ms", samples)
        )
    worst = max(p95(samples) for samples in timings.values())
    result.aims.append(
        Aim(
            f"vector side p95 ≤ 20 ms at {documents} documents",
            worst <= 20,
            f"{worst:.1f} ms",
            value=worst,
            limit=20,
            unit="ms",
        )
    )
    result.notes.append(
        f"{documents} documents: {size} synthetic vectors of {DIMENSIONS} dimensions "
        f"({PASSAGES_PER_DOCUMENT} passages a document, as the generated corpus has), "
        f"{size * DIMENSIONS / 1e6:.0f} MB"
    )
