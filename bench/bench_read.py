"""read: first page and next page of a 300-page PDF and a 50 MB text file.

The first page pays for extraction (cold: a fresh toolbox, empty cache); the next page should
come from the extraction cache. The reference is what a tool without a cache pays for every
page: pypdf extracting the whole PDF, or reading and decoding the whole text file.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pypdf

from bench import corpus
from bench.context import Context
from bench.results import Aim, BenchResult, Metric
from bench.stats import median, peak_rss_mb
from bench.toolbox import settings_for
from tools import Toolbox, build_toolbox

TITLE = "read: first page (extraction) and next page (cache) of long documents"
PAGES_AFTER_FIRST = 5


def variants(quick: bool) -> list[str]:
    """The two documents, each in its own process so their memory figures stay apart."""
    del quick
    return ["pdf", "text"]


async def _read(toolbox: Toolbox, rel: str, offset: int) -> tuple[float, dict[str, object]]:
    started = time.perf_counter()
    raw = (await toolbox.execute("read_file", {"path": rel, "offset": offset})).text
    elapsed = (time.perf_counter() - started) * 1000.0
    return elapsed, json.loads(raw)


def _naive_pdf(path: Path) -> float:
    started = time.perf_counter()
    reader = pypdf.PdfReader(path)
    text = "\n".join(page.extract_text() for page in reader.pages)
    text.split("\n")
    return (time.perf_counter() - started) * 1000.0


def _naive_text(path: Path) -> float:
    started = time.perf_counter()
    path.read_bytes().decode("utf-8").split("\n")
    return (time.perf_counter() - started) * 1000.0


async def run(ctx: Context, variant: str) -> BenchResult:
    """Cold first pages in fresh toolboxes, then pages that should hit the cache."""
    result = BenchResult("read", TITLE)
    root = corpus.ensure_read_set(ctx.workdir, ctx.python, ctx.child_env())
    rel = corpus.BIG_PDF if variant == "pdf" else corpus.BIG_TEXT
    label = "300-page PDF" if variant == "pdf" else "50 MB text"
    runs = 1 if ctx.quick else 5
    first: list[float] = []
    following: list[float] = []
    reference: list[float] = []
    errors: list[str] = []
    page_chars: list[int] = []
    for attempt in range(runs):
        data = ctx.scratch(f"read-{variant}-{attempt}")
        toolbox = build_toolbox(settings_for(root, data))  # not started: no background indexing
        try:
            elapsed, page = await _read(toolbox, rel, 1)
            first.append(elapsed)
            if "error" in page:
                errors.append(str(page["error"]))
                continue
            page_chars.append(len(json.dumps(page, ensure_ascii=False)))
            offset = page.get("next_offset")
            for _ in range(PAGES_AFTER_FIRST):
                if not isinstance(offset, int):
                    break
                elapsed, page = await _read(toolbox, rel, offset)
                following.append(elapsed)
                offset = page.get("next_offset")
        finally:
            await toolbox.close()
        naive = _naive_pdf if variant == "pdf" else _naive_text
        reference.append(naive(root / rel))
    ref_label = "pypdf, whole document" if variant == "pdf" else "read + decode whole file"
    result.metrics.append(Metric(f"{label}: first page (cold)", "ms", first, reference, ref_label))
    result.metrics.append(
        Metric(f"{label}: next page (cache hit)", "ms", following, reference, ref_label)
    )
    result.metrics.append(Metric(f"{label}: peak RSS of the process", "MB", [peak_rss_mb()]))
    if errors:
        result.error = f"{label}: read_file returned an error: {errors[0]}"
    if following:
        hit = median(following)
        result.aims.append(
            Aim(
                f"{label}: next page from the cache, ≥ 10× faster than the first "
                "(derived; the issue sets no read aim)",
                hit * 10 <= median(first),
                f"next page {hit:.1f} ms vs first {median(first):.0f} ms",
            )
        )
    result.notes.append(
        f"{label}: a page is about {median(page_chars) if page_chars else 0:.0f} characters of "
        "JSON; the reference runs once per fresh toolbox, after our reads, with a warm page "
        "cache on both sides. Toolboxes are not started, so no background indexing competes."
    )
    return result
