"""vectors: the meaning side's cost: embeddings calls, vectors on disk, scan time, build memory.

`build` indexes a generated corpus with embeddings served by the fake model server's
`/embeddings` (its deterministic stem encoder, 512 dimensions like a small sentence encoder)
through the real Toolbox, then counts what the build asked for, measures the vectors on disk
against the documents' extracted text, times the vector side and whole searches (the folder
watched by notifications, as the bot watches it), restarts on the same DATA_DIR with the folder
rescanned on a timer instead, counts the calls the restart made and times the searches again
beside those rescans, and measures how much the int8 vectors change the nearest passages
(recall@10 of the int8 scan against float32 on the same texts).
`latency` fills a vector index with random unit vectors (the scan's time does not depend on
what they mean) to time the vector side alone at sizes a build here would take hours to reach,
then measures how many of the exact scan's ten nearest files the sign-bit codes' path keeps
(recall@10, every search forced through the codes): on clustered vectors shaped like an
encoder's (topics, files, passages, one common lean; queries near a passage, centred as the
searcher centres them), and on the random vectors, whose nearest rows are barely nearer than
the rest (the worst case for any prefilter).
Quality of the meaning side with a real model is another benchmark's.
"""

from __future__ import annotations

import asyncio
import random
import re
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
from tools.index.watch import WatchMode
from tools.vectors.cache import quantise
from tools.vectors.codes import nearest_codes
from tools.vectors.embeddings import EmbeddingsConfig, QueryEmbedder
from tools.vectors.passages import Passage, cut_passages
from tools.vectors.state import STORE_FOLDER
from tools.vectors.store import FileChange, VectorStore

RECALL_QUERIES = 40
TOPICS = 2_000

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
        vector_ms, search_ms, keyword_ms, embed_ms = await _timings(box, passages, config)
        await box.close()
        calls_before = server.embeddings.calls
        again = await _started(root, data, config, watch="rescan")
        restart_calls = server.embeddings.calls - calls_before
        _, rescan_search_ms, rescan_keyword_ms, _ = await _timings(again, passages, config)
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
        Metric("the query's embeddings call alone (loopback)", "ms", embed_ms),
        Metric("search_files, keyword only, rescans every second", "ms", rescan_keyword_ms),
        Metric("search_files, words and meaning, rescans every second", "ms", rescan_search_ms),
        Metric("recall@10 of the int8 scan against float32", "%", [recall * 100]),
        Metric("peak RSS after the build", "MB", [build_rss]),
    ]
    allowed = p95(keyword_ms) + p95(embed_ms) + 10
    result.aims += [
        Aim(
            f"search p95 ≤ keyword p95 + the embeddings call's p95 + 10 ms at {documents} "
            "documents",
            p95(search_ms) <= allowed,
            f"{p95(search_ms):.1f} ms against {allowed:.1f} ms",
            value=p95(search_ms),
            limit=allowed,
            unit="ms",
        ),
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
    result.notes.append(
        "Searches are timed with the folder watched as the bot watches it (notifications). "
        "The restarted toolbox is timed again with `watch=rescan`, which rescans the 10,000 "
        "files about every second (what the bot does on a file system that sends no "
        "notifications): each search then shares the CPU and the interpreter with a scan."
    )
    return result


async def _started(
    root: Path, data: Path, config: EmbeddingsConfig, watch: WatchMode = "notify"
) -> Toolbox:
    """A toolbox built on `data`; by default it watches the folder as the bot does."""
    box = Toolbox(settings_for(root, data), watch=watch, embeddings=config)
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
    box: Toolbox, passages: list[Passage], config: EmbeddingsConfig
) -> tuple[list[float], list[float], list[float], list[float]]:
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
    search_ms, keyword_ms, embed_ms = [], [], []
    embedder = QueryEmbedder(config)
    for query in queries:
        began = time.perf_counter()
        await box.execute("search_files", {"query": query})
        search_ms.append((time.perf_counter() - began) * 1000)
        began = time.perf_counter()
        await asyncio.to_thread(box.searcher.search, query, 10)
        keyword_ms.append((time.perf_counter() - began) * 1000)
        began = time.perf_counter()
        await embedder.embed(query)
        embed_ms.append((time.perf_counter() - began) * 1000)
    await embedder.close()
    return vector_ms, search_ms, keyword_ms, embed_ms


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
    random_recall = _codes_recall(folder, queries[:RECALL_QUERIES], half)
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
    clustered_recall = _clustered_recall(ctx, documents)
    result.metrics += [
        Metric(
            f"recall@10 of the codes' path against the exact scan, {documents} documents, "
            "clustered vectors (whole folder and half)",
            "%",
            [clustered_recall * 100],
        ),
        Metric(
            f"recall@10 of the codes' path against the exact scan, {documents} documents, "
            "random vectors (whole folder and half)",
            "%",
            [random_recall * 100],
        ),
    ]
    if documents <= 10_000:  # the same real sentences whatever the size: measured once
        for share in (0.01, 0.03):
            rows, real = real_codes_recall(share)
            result.metrics.append(
                Metric(
                    f"recall@10 of the codes' prefilter (keeping {share:.0%} of the rows) "
                    f"against the exact scan, the shipped real encoder's vectors of {rows} "
                    "real sentences",
                    "%",
                    [real * 100],
                )
            )
    result.aims.append(
        Aim(
            f"recall@10 of the codes' path ≥ 0.95 at {documents} documents (clustered vectors)",
            clustered_recall >= 0.95,
            f"{clustered_recall:.3f}",
            value=clustered_recall,
            limit=0.95,
        )
    )
    result.notes.append(
        f"{documents} documents: {size} synthetic vectors of {DIMENSIONS} dimensions "
        f"({PASSAGES_PER_DOCUMENT} passages a document, as the generated corpus has), "
        f"{size * DIMENSIONS / 1e6:.0f} MB"
    )


def real_sentences() -> list[str]:
    """Real sentences to embed with the shipped encoder: the repository's own prose (the
    documentation, docstrings and comments, the meaning benchmark's documents), Russian and
    English, each once."""
    root = Path(__file__).resolve().parent.parent
    files = [
        *sorted((root / "docs").rglob("*.md")),
        *sorted((root / "bench" / "meaning").rglob("*")),
        *sorted((root / "bot").rglob("*.py")),
        *sorted((root / "tools").rglob("*.py")),
    ]
    found: dict[str, None] = {}
    for path in files:
        if not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for piece in re.split(r"(?<=[.!?])\s+|\n\n", text):
            sentence = " ".join(piece.split())
            if 40 <= len(sentence) <= 400:
                found[sentence] = None
    return list(found)


def real_codes_recall(share: float, queries: int = 300) -> tuple[int, float]:
    """Rows and recall@10 of the codes' prefilter (then the int8 rerank) against the exact
    scan on the shipped real encoder's vectors of `real_sentences`, when the prefilter keeps
    `share` of the rows; the last `queries` sentences ask, the rest are the rows."""
    from tests.fakes.real_encoder import encode_texts  # noqa: PLC0415  (loads the model)

    texts = real_sentences()
    random.Random(1).shuffle(texts)
    vectors = np.asarray(encode_texts(texts), dtype=np.float32)
    rows = np.clip(np.rint(vectors[:-queries] * 127), -127, 127).astype(np.int8)
    codes = np.packbits(rows > 0, axis=1)
    wide = rows.astype(np.int32)
    kept = max(10, int(len(rows) * share))
    found = []
    for vector in vectors[-queries:]:
        query = np.clip(np.rint(vector * 127), -127, 127).astype(np.int8)
        exact = set(np.argsort(-(wide @ query.astype(np.int32)))[:10].tolist())
        candidates = nearest_codes(codes, query, kept, None, 1)
        scores = wide[candidates] @ query.astype(np.int32)
        near = set(candidates[np.argsort(-scores)[:10]].tolist())
        found.append(len(exact & near) / 10)
    return len(rows), float(np.mean(found))


def _codes_recall(folder: Path, queries: np.ndarray, half: frozenset[str]) -> float:
    """Share of the exact scan's ten nearest files the codes' path also finds, over the whole
    folder and over half of it."""
    exact = VectorStore(folder, exact_rows=2**62, exact_scoped_rows=2**62)
    coded = VectorStore(folder, exact_rows=0, exact_scoped_rows=0)
    shares = []
    for query in queries:
        for allowed in (None, half):
            truth = {hit.path for hit in exact.search(query, 10, allowed=allowed)}
            found = {hit.path for hit in coded.search(query, 10, allowed=allowed)}
            shares.append(len(truth & found) / max(len(truth), 1))
    exact.close()
    coded.close()
    return float(np.mean(shares))


def _unit(vectors: np.ndarray) -> np.ndarray:
    unit: np.ndarray = vectors / np.linalg.norm(vectors, axis=-1, keepdims=True)
    return unit


def _clustered_recall(ctx: Context, documents: int) -> float:
    """The codes' recall@10 on vectors shaped like a sentence encoder's: each file near one of
    `TOPICS` topics, its passages near the file, all leaning one common way; each query a
    passage blurred as a paraphrase blurs it, less half the mean (as `centre` does)."""
    folder = ctx.scratch(f"vectors-clustered-{documents}") / STORE_FOLDER
    store = VectorStore(folder)
    store.open_for("clustered", DIMENSIONS)
    rng = np.random.default_rng(17)
    common = _unit(rng.standard_normal(DIMENSIONS).astype(np.float32))
    topics = _unit(rng.standard_normal((TOPICS, DIMENSIONS)).astype(np.float32))
    samples: list[np.ndarray] = []
    total = np.zeros(DIMENSIONS, dtype=np.float64)
    for start in range(0, documents, 1_000):
        changes: list[Any] = []
        for number in range(start, min(start + 1_000, documents)):
            noise = rng.standard_normal((PASSAGES_PER_DOCUMENT + 1, DIMENSIONS))
            file = topics[rng.integers(TOPICS)] + 0.8 * _unit(noise[0].astype(np.float32))
            rows = _unit(_unit(file) + 0.9 * _unit(noise[1:].astype(np.float32)))
            rows = _unit(rows + 0.7 * common)
            total += rows.sum(axis=0)
            if number % max(documents // RECALL_QUERIES, 1) == 0:
                samples.append(rows[int(rng.integers(PASSAGES_PER_DOCUMENT))])
            passages = [
                Passage(f"f{number}.txt", i + 1, i + 1, None, "")
                for i in range(PASSAGES_PER_DOCUMENT)
            ]
            changes.append(FileChange(f"f{number}.txt", 1, 1, passages, quantise(rows)))
        store.apply(changes)
    store.close()
    mean = (total / (documents * PASSAGES_PER_DOCUMENT)).astype(np.float32)
    blur = _unit(rng.standard_normal((len(samples), DIMENSIONS)).astype(np.float32))
    queries = _unit(_unit(np.asarray(samples) + 0.9 * blur) - 0.5 * mean)
    half = frozenset(f"f{n}.txt" for n in range(0, documents, 2))
    return _codes_recall(folder, queries[:RECALL_QUERIES], half)
