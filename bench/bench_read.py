"""read: first page and next page of long documents, one of each format the bot reads.

A 300-page PDF, a 50 MB text file, a long docx, a 50-sheet workbook, a 100-slide deck and a
300-chapter EPUB book. The first page pays for extraction (cold: a fresh toolbox, empty cache);
the next page should come from the extraction cache; the same file read again after its
modification time moves on measures extraction alone, the worker already started and its
library imported. The reference is what a tool without a
cache pays for every page: the format's library reading the whole document in process (or
reading and decoding the whole text file). Memory is the peak of the extraction worker, where
office files are parsed, and of the benchmark process itself.
"""

from __future__ import annotations

import json
import math
import os
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
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


@dataclass(frozen=True)
class Case:
    """One document of the read set and its in-process reference."""

    rel: str
    label: str
    reference: Callable[[Path], None]
    reference_label: str


def _naive_pdf(path: Path) -> None:
    reader = pypdf.PdfReader(path)
    "\n".join(page.extract_text() for page in reader.pages).split("\n")


def _naive_text(path: Path) -> None:
    path.read_bytes().decode("utf-8").split("\n")


def _naive_docx(path: Path) -> None:
    import docx  # noqa: PLC0415  (each variant runs in its own process: import what it needs)

    "\n".join(p.text for p in docx.Document(str(path)).paragraphs).split("\n")


def _naive_xlsx(path: Path) -> None:
    from python_calamine import CalamineWorkbook  # noqa: PLC0415

    with CalamineWorkbook.from_path(str(path)) as book:
        for name in book.sheet_names:
            book.get_sheet_by_name(name).to_python()


def _naive_pptx(path: Path) -> None:
    from pptx import Presentation  # noqa: PLC0415

    for slide in Presentation(str(path)).slides:
        for shape in slide.shapes:
            if shape.has_text_frame:
                shape.text_frame.text.split("\n")


def _naive_epub(path: Path) -> None:
    from selectolax.lexbor import LexborHTMLParser  # noqa: PLC0415

    with zipfile.ZipFile(path) as book:
        for name in sorted(book.namelist()):
            if name.endswith(".xhtml"):
                tree = LexborHTMLParser(book.read(name).decode("utf-8"))
                (tree.body.text() if tree.body is not None else "").split("\n")


CASES = {
    "pdf": Case(corpus.BIG_PDF, "300-page PDF", _naive_pdf, "pypdf, whole document"),
    "text": Case(corpus.BIG_TEXT, "50 MB text", _naive_text, "read + decode whole file"),
    "docx": Case(corpus.BIG_DOCX, "long docx", _naive_docx, "python-docx, whole document"),
    "xlsx": Case(corpus.BIG_XLSX, "50-sheet xlsx", _naive_xlsx, "calamine, every sheet"),
    "pptx": Case(corpus.BIG_PPTX, "100-slide pptx", _naive_pptx, "python-pptx, every slide"),
    "epub": Case(corpus.BIG_EPUB, "300-chapter epub", _naive_epub, "zip + selectolax, all"),
}


def variants(quick: bool) -> list[str]:
    """Every document, each in its own process so their memory figures stay apart."""
    del quick
    return list(CASES)


async def _read(toolbox: Toolbox, rel: str, offset: int) -> tuple[float, dict[str, object]]:
    started = time.perf_counter()
    raw = (await toolbox.execute("read_file", {"path": rel, "offset": offset})).text
    elapsed = (time.perf_counter() - started) * 1000.0
    return elapsed, json.loads(raw)


def _timed(reference: Callable[[Path], None], path: Path) -> float:
    started = time.perf_counter()
    reference(path)
    return (time.perf_counter() - started) * 1000.0


def _touch(path: Path) -> None:
    """Move the file's mtime on, so its cache entry no longer matches."""
    info = path.stat()
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + 1_000_000))


def worker_peak_mb() -> float:
    """The largest peak RSS (VmHWM) among this process's extraction workers, from /proc;
    NaN where /proc cannot tell."""
    peaks: list[float] = []
    mine = str(os.getpid())
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text(encoding="ascii", errors="replace")
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue  # gone meanwhile, or not ours to read
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if fields.get("PPid", "").strip() != mine or b"tools.extract.worker" not in command:
            continue
        peaks.append(int(fields.get("VmHWM", "0 kB").split()[0]) / 1024.0)
    return max(peaks, default=math.nan)


@dataclass
class Samples:
    """What the runs of one document measured."""

    first: list[float] = field(default_factory=list)
    warm: list[float] = field(default_factory=list)
    following: list[float] = field(default_factory=list)
    reference: list[float] = field(default_factory=list)
    worker: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    page_chars: list[int] = field(default_factory=list)
    total_lines: list[int] = field(default_factory=list)


async def _measure(ctx: Context, root: Path, case: Case, variant: str) -> Samples:
    """Cold first pages in fresh toolboxes, pages that should hit the cache, and the first
    page again once the file changed (the worker already running)."""
    samples = Samples()
    for attempt in range(1 if ctx.quick else 5):
        data = ctx.scratch(f"read-{variant}-{attempt}")
        toolbox = build_toolbox(settings_for(root, data))  # not started: no background indexing
        try:
            elapsed, page = await _read(toolbox, case.rel, 1)
            samples.first.append(elapsed)
            if "error" in page:
                samples.errors.append(str(page["error"]))
                continue
            samples.page_chars.append(len(json.dumps(page, ensure_ascii=False)))
            samples.total_lines.append(int(str(page.get("total_lines", 0))))
            offset = page.get("next_offset")
            for _ in range(PAGES_AFTER_FIRST):
                if not isinstance(offset, int):
                    break
                elapsed, page = await _read(toolbox, case.rel, offset)
                samples.following.append(elapsed)
                offset = page.get("next_offset")
            _touch(root / case.rel)  # a changed file misses the cache: extraction alone
            elapsed, _ = await _read(toolbox, case.rel, 1)
            samples.warm.append(elapsed)
            samples.worker.append(worker_peak_mb())
        finally:
            await toolbox.close()
        samples.reference.append(_timed(case.reference, root / case.rel))
    return samples


async def run(ctx: Context, variant: str) -> BenchResult:
    """One document's first, repeated and cached pages, and the memory they took."""
    result = BenchResult("read", TITLE)
    root = corpus.ensure_read_set(ctx.workdir, ctx.python, ctx.child_env())
    case = CASES[variant]
    label, ref = case.label, case.reference_label
    samples = await _measure(ctx, root, case, variant)
    size_mb = (root / case.rel).stat().st_size / 1e6
    for name, values in (
        (f"{label} ({size_mb:.1f} MB): first page (cold: worker started)", samples.first),
        (f"{label}: first page, worker already running", samples.warm),
        (f"{label}: next page (cache hit)", samples.following),
    ):
        result.metrics.append(Metric(name, "ms", values, samples.reference, ref))
    if variant != "text":
        worker = [w for w in samples.worker if not math.isnan(w)]
        result.metrics.append(Metric(f"{label}: peak RSS of the extraction worker", "MB", worker))
    result.metrics.append(Metric(f"{label}: peak RSS of the process", "MB", [peak_rss_mb()]))
    if samples.errors:
        result.error = f"{label}: read_file returned an error: {samples.errors[0]}"
    if samples.following:
        hit, cold = median(samples.following), median(samples.first)
        result.aims.append(
            Aim(
                f"{label}: next page from the cache, ≥ 10× faster than the first "
                "(derived; the issue sets no read aim)",
                hit * 10 <= cold,
                f"next page {hit:.1f} ms vs first {cold:.0f} ms",
            )
        )
    lines = median(samples.total_lines) if samples.total_lines else 0
    chars = median(samples.page_chars) if samples.page_chars else 0
    result.notes.append(
        f"{label}: {lines:,.0f} lines of text; a page is about {chars:.0f} characters of JSON; "
        "the reference runs once per fresh toolbox, after our reads, with a warm page cache on "
        "both sides. Toolboxes are not started, so no background indexing competes."
    )
    return result
