"""scale: how far one machine goes (opt-in: `python -m bench scale --docs 1000000`).

Not part of a full run, nor of CI: at a million documents it takes hours and tens of GB. The
documents are the generated corpus with plain texts cut to `SCALE` of their usual size (a few
KB each; the PDF and DOCX ones keep theirs), so the corpus fits a development machine's disk.

What it measures: the cold build through the real Toolbox (start to ready), the index on disk
against the text it holds, then a restart in a fresh process on the same DATA_DIR (nothing
rebuilt): how soon it answers a search and how soon its rescan of the folder is done, keyword
search latency over the usual query mix, how soon a dropped file is found, and, with vectors,
search with meaning. The vectors are random unit vectors written straight into the vector
store, as many passages a document as the builder would cut (embedding a million documents
through a fake model would measure the fake): their scan costs the same whatever they mean,
and the query's own embeddings call goes to the fake model server, running in this process,
not the measured one. The serving process's peak RSS is its VmHWM over all of it.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from bench import corpus
from bench.bench_search import _new_file_latency
from bench.context import Context
from bench.queries import query_mix
from bench.results import Aim, BenchResult, Metric
from bench.stats import p95, peak_rss_mb
from bench.toolbox import folder_mb, search_paths, settings_for, wait_ready
from tests.fakes.fake_embeddings import stem_encoder
from tests.fakes.fake_llm import FakeLLM
from tools import INDEX_FILE, Toolbox
from tools.sqlite import connect
from tools.vectors.cache import quantise
from tools.vectors.embeddings import EmbeddingsConfig
from tools.vectors.passages import TARGET_CHARS, Passage
from tools.vectors.state import STORE_FOLDER
from tools.vectors.store import FileChange, VectorStore

TITLE = "scale: build, disk, serving memory, keyword and meaning search, restart, new files"
SCALE = 0.15
"""Plain texts at this share of the generated corpus's usual size."""
DIMENSIONS = 512
MODEL = "bench-embed"
PASSES = 3
MEANING_QUERIES = 60
DROPS = 6
SERVE_TIMEOUT_S = 4 * 3_600.0
POLL_S = 0.05
"""How often the restarted process asks again while its searches find nothing."""
BUILD_TIMEOUT_S = 12 * 3_600.0


def variants(quick: bool) -> list[str]:
    """20,000 documents unless `--docs` says otherwise (a million is the point)."""
    return ["2000" if quick else "20000"]


async def run(ctx: Context, variant: str) -> BenchResult:
    docs = int(variant)
    result = BenchResult("scale", TITLE)
    root = corpus.ensure(ctx.workdir, docs, ctx.python, ctx.child_env(), scale=SCALE)
    corpus_mb = folder_mb(root)
    data = ctx.scratch(f"scale-{docs}")
    before, started = _cpu_s(), time.perf_counter()
    box = Toolbox(settings_for(root, data))
    await box.start()
    await wait_ready(box, BUILD_TIMEOUT_S)
    build_s, build_cpu = time.perf_counter() - started, _cpu_s() - before
    indexed = box.status().documents
    await box.close()
    build_rss = peak_rss_mb()
    index_mb = folder_mb(data)
    text_mb, passages = _text_and_passages(data)
    vectors_s = _fill_vectors(data, passages)
    served = await _serve(ctx, root, data)
    _report(
        result,
        docs=docs,
        corpus_mb=corpus_mb,
        indexed=indexed,
        build=(build_s, build_cpu, build_rss),
        disk=(index_mb, text_mb),
        vectors=(sum(count for _, _, count in passages.values()), vectors_s),
        served=served,
    )
    return result


def _cpu_s() -> float:
    times = os.times()
    return times.user + times.system


def _text_and_passages(data: Path) -> tuple[float, dict[str, tuple[int, int, int]]]:
    """MB of text the index holds, and each readable document's size, mtime and passages
    (as many as the vector builder would cut: a passage per `TARGET_CHARS` begun)."""
    total = 0
    found: dict[str, tuple[int, int, int]] = {}
    conn = connect(data / INDEX_FILE, access="read")
    try:
        rows = conn.execute(
            "SELECT path, size, mtime_ns, chars, body FROM files JOIN texts ON texts.id = files.id"
            " WHERE error IS NULL"
        )
        for path, size, mtime, chars, body in rows:
            total += len(zlib.decompress(body))
            found[path] = (size, mtime, chars // TARGET_CHARS + 1)
    finally:
        conn.close()
    return total / 1e6, found


def _fill_vectors(data: Path, documents: dict[str, tuple[int, int, int]]) -> float:
    """Random unit vectors for every passage, written as the builder writes them; seconds."""
    started = time.perf_counter()
    store = VectorStore(data / STORE_FOLDER)
    store.open_for(MODEL, DIMENSIONS)
    rng = np.random.default_rng(5)
    batch: list[Any] = []
    for path, (size, mtime, count) in documents.items():
        raw = rng.standard_normal((count, DIMENSIONS)).astype(np.float32)
        raw /= np.linalg.norm(raw, axis=1, keepdims=True)
        passages = [Passage(path, i + 1, i + 1, None, "") for i in range(count)]
        batch.append(FileChange(path, size, mtime, passages, quantise(raw)))
        if len(batch) >= 2_000:
            store.apply(batch)
            batch = []
    if batch:
        store.apply(batch)
    store.close()
    return time.perf_counter() - started


async def _serve(ctx: Context, root: Path, data: Path) -> dict[str, Any]:
    """The restart and the serving measures, from a fresh process (its own peak RSS), with
    the fake model server answering the queries' embeddings from this one."""
    server = FakeLLM()
    server.embeddings.encoder = lambda texts: stem_encoder(texts, DIMENSIONS)
    server.embeddings.keep_inputs = False
    await server.start()
    try:
        command = [ctx.python, "-m", "bench.bench_scale", str(root), str(data), server.base_url]
        child = await asyncio.create_subprocess_exec(
            *command, env=ctx.child_env(), stdout=asyncio.subprocess.PIPE
        )
        out, _ = await asyncio.wait_for(child.communicate(), SERVE_TIMEOUT_S)
    finally:
        await server.close()
    if child.returncode != 0:
        msg = f"the serving process failed (exit {child.returncode})"
        raise RuntimeError(msg)
    served: dict[str, Any] = json.loads(out.decode().strip().splitlines()[-1])
    return served


async def serve(root: Path, data: Path, base_url: str) -> dict[str, Any]:
    """In the serving process: restart on the built index, then time searches and new files."""
    started = time.perf_counter()
    box = Toolbox(settings_for(root, data))
    await box.start()
    empty = 0  # answers that found nothing: a restart that cannot search yet
    while not (await search_paths(box, "отчет"))[0]:
        empty += 1
        await asyncio.sleep(POLL_S)
    first_answer = time.perf_counter() - started
    await asyncio.wait_for(box.wait_ready(), SERVE_TIMEOUT_S)
    ready = time.perf_counter() - started
    documents, parsed = box.status().documents, box.extraction_count
    mix = query_mix()
    for asked in mix:  # warm-up, not counted
        await search_paths(box, asked.text)
    keyword: list[float] = []
    for _ in range(PASSES):
        for asked in mix:
            began = time.perf_counter()
            await search_paths(box, asked.text)
            keyword.append((time.perf_counter() - began) * 1000)
    dropped = await _new_file_latency(box, root, DROPS)
    await box.close()
    for path in (root / "Новые документы").glob("*"):
        path.unlink()
    (root / "Новые документы").rmdir()
    config = EmbeddingsConfig(
        model=MODEL, base_url=base_url, api_key="bench", calls_per_second=1000.0
    )
    box = Toolbox(settings_for(root, data), embeddings=config)
    await box.start()
    await asyncio.wait_for(box.wait_ready(), SERVE_TIMEOUT_S)
    await asyncio.wait_for(box.wait_vectors(), SERVE_TIMEOUT_S)
    meaning: list[float] = []
    words = [q.text for q in mix if q.kind in {"ru-inflected", "en", "phrase"}]
    for number in range(MEANING_QUERIES + 5):
        query = f"{words[number % len(words)]} {words[(number * 7 + 3) % len(words)]}"
        began = time.perf_counter()
        await box.execute("search_files", {"query": query})
        if number >= 5:  # the first few load the vector side
            meaning.append((time.perf_counter() - began) * 1000)
    calls = box.vector_status().calls
    await box.close()
    return {
        "first_answer_s": first_answer,
        "empty_answers": empty,
        "ready_s": ready,
        "documents": documents,
        "parsed": parsed,
        "keyword_ms": keyword,
        "dropped_ms": dropped,
        "meaning_ms": meaning,
        "embedding_calls": calls,
        "rss_mb": peak_rss_mb(),
    }


def _report(
    result: BenchResult,
    *,
    docs: int,
    corpus_mb: float,
    indexed: int,
    build: tuple[float, float, float],
    disk: tuple[float, float],
    vectors: tuple[int, float],
    served: dict[str, Any],
) -> None:
    build_s, build_cpu, build_rss = build
    index_mb, text_mb = disk
    passages, vectors_s = vectors
    size = f"{docs:,} docs ({corpus_mb:,.0f} MB, {corpus_mb * 1e3 / docs:.1f} KB a file)"
    result.metrics += [
        Metric(
            f"{size}: index build, start to ready",
            "s",
            [build_s],
            note=f"{indexed:,} indexed; {build_cpu:.0f} s of CPU in the building process",
        ),
        Metric(f"{docs:,} docs: peak RSS of the building process", "MB", [build_rss]),
        Metric(
            f"{docs:,} docs: index on disk ÷ extracted text",
            "×",
            [index_mb / text_mb],
            note=f"{index_mb:,.0f} MB for {text_mb:,.0f} MB of text",
        ),
        Metric(
            f"{docs:,} docs: restart, first search that finds documents (no rebuild)",
            "s",
            [served["first_answer_s"]],
            note=f"{served['parsed']} documents parsed again; "
            f"{served['empty_answers']} empty answers before it",
        ),
        Metric(f"{docs:,} docs: restart, folder rescanned (ready)", "s", [served["ready_s"]]),
        Metric(f"{docs:,} docs: keyword search (search_files)", "ms", served["keyword_ms"]),
        Metric(
            f"{docs:,} docs: search with meaning (search_files, {passages:,} vectors of "
            f"{DIMENSIONS} dimensions)",
            "ms",
            served["meaning_ms"],
            note=f"vectors written in {vectors_s:.0f} s",
        ),
        Metric(f"{docs:,} docs: dropped file searchable (watcher)", "ms", served["dropped_ms"]),
        Metric(f"{docs:,} docs: peak RSS of the serving process", "MB", [served["rss_mb"]]),
    ]

    def aim(text: str, value: float, limit: float, unit: str) -> None:
        result.aims.append(
            Aim(
                f"{text} at {docs:,} docs",
                value <= limit,
                f"{value:.3g} {unit}".strip(),
                value=value,
                limit=limit,
                unit=unit,
            )
        )

    aim("index ≤ 0.8× the text", index_mb / text_mb, 0.8, "×")
    aim("peak RSS while serving ≤ 1.5 GB", served["rss_mb"], 1536.0, "MB")
    aim("keyword search p95 ≤ 50 ms", p95(served["keyword_ms"]), 50.0, "ms")
    aim("search with meaning p95 ≤ 100 ms", p95(served["meaning_ms"]), 100.0, "ms")
    aim("a restart answers in ≤ 10 s", served["first_answer_s"], 10.0, "s")
    aim("a dropped file searchable in ≤ 2 s", max(served["dropped_ms"]) / 1000, 2.0, "s")
    result.aims.append(
        Aim(
            f"a restart rebuilds nothing at {docs:,} docs",
            served["parsed"] == 0 and served["documents"] == indexed,
            f"{served['parsed']} parsed, {served['documents']:,} of {indexed:,} documents kept",
        )
    )
    result.notes += [
        f"Plain texts at {SCALE:g} of the usual generated size; PDF and DOCX files as usual.",
        "The build runs in the benchmark's process through the real Toolbox (its plain files "
        "prepared by child processes, whose CPU is not in the figure); the serving figures "
        "come from a second process started on the same DATA_DIR after the build closed.",
        "Vectors are random unit vectors written straight into the store (a passage per "
        f"{TARGET_CHARS} characters begun, as the builder cuts); the meaning search embeds each "
        "query through the fake model server (in the benchmark's process) and fuses the "
        "vector side with the words, as the bot does.",
        f"The restart's embeddings calls: {served['embedding_calls']} (the vectors were held).",
    ]


def main() -> None:
    """`python -m bench.bench_scale ROOT DATA BASE_URL`: the serving process; one JSON line."""
    root, data, base_url = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    print(json.dumps(asyncio.run(serve(root, data, base_url))))


if __name__ == "__main__":
    main()
