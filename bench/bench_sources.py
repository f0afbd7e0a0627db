"""sources: one mirror pass over a source whose 10,000 items have not changed.

The remote is the in-memory one the tests use (`tests.fakes.memory_source`), so what is measured
is the mirror's own work: the listing diffed against the kept state, the folder scanned, the
state written back; no downloads. The first pass (10,000 small files placed) is timed too, as
a note. Requests to the source per unchanged pass are counted: one listing, no fetch.
"""

from __future__ import annotations

import time

from bench.context import Context
from bench.results import Aim, BenchResult, Metric
from bench.stats import median
from bot.documents.sources.mirror import Mirror
from bot.documents.sources.state import StateStore
from bot.documents.trash import Trash
from tests.fakes.memory_source import MemorySource

TITLE = "sources: a mirror pass over 10,000 unchanged remote items (no downloads)"
ITEMS = 10_000
LIMIT_S = 10.0


def variants(quick: bool) -> list[str]:
    """10,000 items either way; a full run takes more samples."""
    return ["quick" if quick else "full"]


async def run(ctx: Context, variant: str) -> BenchResult:
    """Place 10,000 items once, then time passes that find nothing changed."""
    result = BenchResult("sources", TITLE)
    scratch = ctx.scratch("sources")
    root = scratch / "sandbox"
    root.mkdir()
    remote = MemorySource("bench")
    for index in range(ITEMS):
        remote.put(f"dept{index // 1000:02d}/folder{index // 100:03d}/note{index:05d}.txt", b"x")
    mirror = Mirror(
        remote,
        folder="bench",
        root=root,
        store=StateStore(scratch / "data" / "sources"),
        trash=Trash(root.resolve()),
        max_delete_percent=20,
    )
    started = time.perf_counter()
    await mirror.run_pass()
    first = time.perf_counter() - started
    remote.fetched.clear()
    listings = remote.listings
    samples = []
    for _ in range(3 if variant == "quick" else 10):
        started = time.perf_counter()
        outcome = await mirror.run_pass()
        samples.append(time.perf_counter() - started)
        assert outcome.report.unchanged == ITEMS
    passes = len(samples)
    requests = (remote.listings - listings + len(remote.fetched)) / passes
    result.metrics.append(Metric(f"{ITEMS:,} unchanged items: one pass", "s", samples))
    result.metrics.append(Metric("requests to the source per unchanged pass", "n", [requests]))
    worst = max(samples)
    result.aims.append(
        Aim(
            f"a pass over {ITEMS:,} unchanged items ≤ {LIMIT_S:g} s, no downloads",
            worst <= LIMIT_S and not remote.fetched,
            f"worst {worst:.2f} s, median {median(samples):.2f} s, "
            f"{len(remote.fetched)} downloads",
            value=worst,
            limit=LIMIT_S,
            unit="s",
        )
    )
    result.notes.append(
        f"The first pass placed {ITEMS:,} one-byte files in {first:.1f} s (4 fetches at once, "
        "each staged and renamed into place, no index). The remote is in memory: a real "
        "source adds its listing's own time (one listing request, or its pages)."
    )
    return result
