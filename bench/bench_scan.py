"""scan: recognising a scanned PDF with Tesseract, first time and from the cache.

A 20-page scan (4 pages in quick mode) of Russian text without a text layer: the first
extraction goes through the index, as for a folder an admin fills (rendering each page and
running Tesseract on it); reading it afterwards comes from the extraction cache. The worker's
peak memory is where the pages are rendered and recognised. Skipped, with the reason, where
Tesseract with Russian or the font the pages are drawn with is missing.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from bench.bench_read import worker_peak_mb
from bench.context import Context
from bench.results import BenchResult, Metric
from bench.stats import median, peak_rss_mb
from bench.toolbox import settings_for
from tests.tools.scan_docgen import (
    FONT,
    NEEDS_FONT,
    NEEDS_TESSERACT,
    scan_pdf,
    tesseract_ready,
    text_image,
)
from tools import Toolbox, build_toolbox

TITLE = "scan: a 20-page scanned PDF recognised with Tesseract, then read from the cache"
LINES = (
    "Приказ о порядке оформления командировок",
    "Сотрудник получает аванс на проезд и проживание",
    "Отчёт сдаётся в бухгалтерию в течение трёх дней",
    "Суточные выплачиваются за каждый день поездки",
)
REL = "сканы/приказ.pdf"


def variants(quick: bool) -> list[str]:
    """One scan."""
    del quick
    return ["scan"]


def _make_scan(root: Path, pages: int) -> int:
    """The scanned PDF, each page a picture of four lines of text; returns its size."""
    images = [text_image([f"{line} — страница {n}" for line in LINES]) for n in range(pages)]
    path = root / REL
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(scan_pdf(list(images)))
    return path.stat().st_size


async def _read_ms(toolbox: Toolbox) -> tuple[float, dict[str, object]]:
    started = time.perf_counter()
    result = await toolbox.execute("read_file", {"path": REL})
    return (time.perf_counter() - started) * 1000.0, json.loads(result.text)


async def run(ctx: Context, variant: str) -> BenchResult:
    """First recognition through the index, then reads from the cache, and the memory used."""
    del variant
    result = BenchResult("scan", TITLE)
    if not tesseract_ready() or not FONT.exists():
        result.error = NEEDS_TESSERACT if not tesseract_ready() else NEEDS_FONT
        return result
    pages = 4 if ctx.quick else 20
    root = ctx.scratch("scan-docs")
    size = _make_scan(root, pages)
    toolbox = build_toolbox(settings_for(root, ctx.scratch("scan-data")))
    first: list[float] = []
    cached: list[float] = []
    try:
        started = time.perf_counter()
        report = await toolbox.refresh(REL)
        first.append((time.perf_counter() - started) * 1000.0)
        if report.error:
            result.error = f"the scan was not recognised: {report.error}"
            return result
        worker = worker_peak_mb()
        for _ in range(5):
            elapsed, page = await _read_ms(toolbox)
            cached.append(elapsed)
            if "error" in page:
                result.error = f"read_file returned an error: {page['error']}"
    finally:
        await toolbox.close()
    label = f"{pages}-page scan ({size / 1e6:.1f} MB)"
    result.metrics.append(Metric(f"{label}: first extraction with OCR", "ms", first))
    result.metrics.append(Metric(f"{label}: read_file from the cache", "ms", cached))
    result.metrics.append(Metric(f"{label}: per page, first extraction", "ms", [first[0] / pages]))
    result.metrics.append(Metric(f"{label}: peak RSS of the extraction worker", "MB", [worker]))
    result.metrics.append(Metric(f"{label}: peak RSS of the process", "MB", [peak_rss_mb()]))
    result.notes.append(
        f"{label}: recognised once ({report.chars:,} characters, {median(first):.0f} ms); "
        "every later read comes from the cache. Tesseract runs one page at a time with one "
        "thread, so a second core stays free for the bot."
    )
    return result
