"""idle: what watching the documents folder costs while nothing changes, and how soon a file
dropped into it is searchable, with the old rescan watcher and with OS notifications.

The folders hold many small text files in nested folders (the count is what a watcher pays
for, not the bytes), generated once per run in the run's temp folder; the first variant of a
size builds the index and the other reuses it. Idle CPU is this process's own CPU time (every
thread: the index writer, the watcher) over a quiet window after the build, as % of one core.
"""

from __future__ import annotations

import asyncio
import random
import resource
import time
from pathlib import Path

from bench.context import Context
from bench.results import Aim, BenchResult, Metric
from bench.stats import median
from bench.toolbox import search_paths, settings_for, wait_ready
from tools import Toolbox
from tools.index.watch import WatchMode

TITLE = "idle: CPU of watching a quiet folder, and a dropped file searchable, rescan vs notify"
WORDS: tuple[str, ...] = (
    *("счёт", "акт", "накладная", "договор", "смета", "отчёт", "приказ", "протокол", "заявка"),
    *("invoice", "report", "minutes", "memo", "order", "contract", "estimate", "request"),
)
PER_FOLDER = 100
WINDOWS = 4
SETTLE_S = 2.0
LABELS: dict[str, str] = {
    "rescan": "old watcher: a full rescan every max(1 s, 3 × a scan)",
    "notify": "notifications (inotify), full rescan every 10 min",
}
UNIQUE = ["зорбулянция", "квазифлекс", "мурбастика", "ворпелина", "трундокса", "скиврелла"]


def variants(quick: bool) -> list[str]:
    """Each watcher on 10,000 files; a full run adds 100,000."""
    sizes = [10_000] if quick else [10_000, 100_000]
    return [f"{size}-{watch}" for size in sizes for watch in ("rescan", "notify")]


def _generate(root: Path, files: int) -> None:
    """`files` small text files, a hundred to a folder, two folder levels deep."""
    rng = random.Random(files)
    partial = root.with_name(root.name + ".partial")
    for index in range(files):
        folder = partial / f"отдел_{index // 10_000:02d}" / f"папка_{index // PER_FOLDER:04d}"
        if index % PER_FOLDER == 0:
            folder.mkdir(parents=True)
        words = " ".join(rng.choice(WORDS) for _ in range(12))
        (folder / f"заметка_{index:06d}.txt").write_text(f"Заметка {index}: {words}.\n", "utf-8")
    partial.rename(root)


def _folder(ctx: Context, files: int) -> tuple[Path, float | None]:
    """The folder of `files` files, and the seconds it took to generate (None: reused)."""
    root = ctx.workdir / f"idle-{files}"
    if root.exists():
        return root, None
    started = time.perf_counter()
    _generate(root, files)
    return root, time.perf_counter() - started


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def _idle_cpu(seconds: float) -> list[float]:
    """% of one core this process used in each of `WINDOWS` quiet windows."""
    shares = []
    for _ in range(WINDOWS):
        cpu, wall = _cpu_seconds(), time.perf_counter()
        await asyncio.sleep(seconds / WINDOWS)
        shares.append(100.0 * (_cpu_seconds() - cpu) / (time.perf_counter() - wall))
    return shares


async def _searchable(toolbox: Toolbox, root: Path, tries: int) -> list[float]:
    """Drop a file the way an upload does (temp name, then rename); ms until search finds it."""
    folder = root / "Новые"
    folder.mkdir(exist_ok=True)
    delays = []
    for index in range(tries):
        word = UNIQUE[index % len(UNIQUE)] + "абвгдежзик"[index // len(UNIQUE)]
        rel = f"Новые/свежий_{index}.txt"
        temp = folder / f".upload-{index}.part"
        temp.write_text(f"Свежая новость: {word}.\n", encoding="utf-8")
        temp.rename(root / rel)
        started = time.perf_counter()
        while time.perf_counter() - started < 30.0:
            if rel in (await search_paths(toolbox, word))[0]:
                break
            await asyncio.sleep(0.02)
        delays.append((time.perf_counter() - started) * 1000.0)
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()
    return delays


async def run(ctx: Context, variant: str) -> BenchResult:
    """One folder size with one watcher: build (or reuse) the index, idle, then drop files."""
    size, watch = variant.split("-")
    files = int(size)
    mode: WatchMode = "notify" if watch == "notify" else "rescan"
    result = BenchResult("idle", TITLE)
    root, generated = _folder(ctx, files)
    data = ctx.workdir / "scratch" / f"idle-{files}-data"  # shared: the second variant reuses it
    toolbox = Toolbox(settings_for(root, data), watch=mode)
    await toolbox.start()
    try:
        build = await wait_ready(toolbox)
        await toolbox.wait_synced()
        await asyncio.sleep(SETTLE_S)  # let start-up work (the watch's set-up, a catch-up) end
        window = 8.0 if ctx.quick else 20.0
        idle = await _idle_cpu(window)
        documents = toolbox.status().documents
        delays = await _searchable(toolbox, root, 3 if ctx.quick else 6)
    finally:
        await toolbox.close()
    label = LABELS[watch]
    result.metrics.append(
        Metric(f"{files:,} files, {label}: idle CPU", "% core", idle, note=f"{window:.0f} s")
    )
    result.metrics.append(
        Metric(f"{files:,} files, {label}: dropped file searchable", "ms", delays)
    )
    made = "reused" if generated is None else f"generated in {generated:.1f} s"
    result.notes.append(
        f"{files:,} files ({documents:,} indexed), {watch} variant: folder {made}, index "
        f"ready {build:.1f} s after start (a reused index only rescans)"
    )
    if watch == "notify":
        _judge(result, files, idle, delays)
    result.notes.append(
        "Idle CPU: getrusage(RUSAGE_SELF) user+system time over wall time in "
        f"{WINDOWS} consecutive windows after the build and {SETTLE_S:.0f} s of settling; "
        "searchable: a file renamed into place, then search_files polled every 20 ms."
    )
    return result


def _judge(result: BenchResult, files: int, idle: list[float], delays: list[float]) -> None:
    cpu = median(idle)
    result.aims.append(
        Aim(
            f"notifications: idle CPU < 1 % of a core at {files:,} files",
            cpu < 1.0,
            f"median {cpu:.2f} %",
            value=cpu,
            limit=1.0,
            unit="%",
        )
    )
    worst = max(delays)
    result.aims.append(
        Aim(
            f"notifications: a dropped file is searchable < 1.5 s at {files:,} files",
            worst < 1500.0,
            f"worst {worst:.0f} ms",
            value=worst,
            limit=1500.0,
            unit="ms",
        )
    )
