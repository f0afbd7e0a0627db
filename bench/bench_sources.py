"""sources: one mirror pass over a source whose 10,000 items have not changed.

Two variants. `memory`: the remote is the in-memory one the tests use
(`tests.fakes.memory_source`), so what is measured is the mirror's own work: the listing diffed
against the kept state, the folder scanned, the state written back; no downloads. Requests to
the source per unchanged pass are counted: one listing, no fetch.

`s3`: a real S3 server (moto's, in a child process, with its IAM checks on, as the contract
suite runs it: `tests.sources.servers.s3`) holding 10,000 one-byte objects (2,000 with
`--quick`: moto stores about 250 objects a second, and the first pass fetches each), opened
through the registry from its sources-file table. The pass time includes the paged listing
over HTTP; the HTTP requests per unchanged pass are counted by the `CuttingProxy` the server
sits behind (request lines sent through it).

The first pass (every item placed) is timed too, as a note.
"""

from __future__ import annotations

import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench.context import Context
from bench.results import Aim, BenchResult, Metric
from bench.stats import median
from bot.documents.sources.config import Credentials
from bot.documents.sources.mirror import Mirror
from bot.documents.sources.registry import open_source
from bot.documents.sources.remote import Source
from bot.documents.sources.state import StateStore
from bot.documents.trash import Trash
from tests.fakes.memory_source import MemorySource
from tests.sources.servers.s3 import MotoServer, S3Remote

TITLE = "sources: a mirror pass over 10,000 unchanged remote items (no downloads)"
ITEMS = 10_000
S3_ITEMS_QUICK = 2_000
LIMIT_S = 10.0
_PUTTERS = 4


def variants(quick: bool) -> list[str]:
    """The in-memory remote (10,000 items either way) and a real S3 server."""
    return ["memory", "s3"]


def timeout_s(quick: bool) -> float:
    """A full run's S3 variant stores and fetches 10,000 objects one request each."""
    return 300.0 if quick else 1200.0


async def run(ctx: Context, variant: str) -> BenchResult:
    """The variant's measurement."""
    if variant == "s3":
        return await _s3(ctx)
    return await _memory(ctx)


async def _memory(ctx: Context) -> BenchResult:
    """Place 10,000 items once, then time passes that find nothing changed."""
    result = BenchResult("sources", TITLE)
    scratch = ctx.scratch("sources")
    root = scratch / "sandbox"
    root.mkdir()
    remote = MemorySource("bench")
    for index in range(ITEMS):
        remote.put(_name(index), b"x")
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
    for _ in range(3 if ctx.quick else 10):
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


def _name(index: int) -> str:
    return f"dept{index // 1000:02d}/folder{index // 100:03d}/note{index:05d}.txt"


async def _s3(ctx: Context) -> BenchResult:
    """Store the objects in moto, place them with one pass, then time passes that find nothing
    changed and count their requests."""
    result = BenchResult("sources", TITLE)
    items = S3_ITEMS_QUICK if ctx.quick else ITEMS
    scratch = ctx.scratch("sources-s3")
    root = scratch / "sandbox"
    root.mkdir()
    server = MotoServer(Path(tempfile.mkdtemp(dir=scratch)))
    remote = S3Remote(server)
    source: Source | None = None
    try:
        started = time.perf_counter()
        with ThreadPoolExecutor(_PUTTERS) as putters:
            names = [
                f"dept{i // 1000:02d}/folder{i // 100:03d}/note{i:05d}.txt" for i in range(items)
            ]
            list(putters.map(lambda name: remote.put_bytes(name, b"x"), names))
        stored = time.perf_counter() - started
        made = remote.configured()
        source = open_source(made.config, Credentials(made.env))
        mirror = Mirror(
            source,
            folder=made.config.target,
            root=root,
            store=StateStore(scratch / "data" / "sources"),
            trash=Trash(root.resolve()),
            max_delete_percent=20,
        )
        requests = remote.requests()
        started = time.perf_counter()
        first = await mirror.run_pass()
        first_s = time.perf_counter() - started
        assert first.report.ok and first.report.added == items, first.report
        first_requests = remote.requests() - requests
        samples: list[float] = []
        counts: list[float] = []
        for _ in range(3 if ctx.quick else 5):
            requests = remote.requests()
            started = time.perf_counter()
            outcome = await mirror.run_pass()
            samples.append(time.perf_counter() - started)
            counts.append(remote.requests() - requests)
            assert outcome.report.unchanged == items and outcome.report.ok, outcome.report
        listings: list[float] = []
        for _ in range(len(samples)):
            started = time.perf_counter()
            assert len(await source.listing()) == items
            listings.append(time.perf_counter() - started)
    finally:
        if source is not None:
            await source.close()
        remote.close()
        server.close()
    result.metrics.append(
        Metric(f"S3 (moto), {items:,} unchanged objects: one pass", "s", samples)
    )
    result.metrics.append(Metric("of which the listing alone (the server's pages)", "s", listings))
    result.metrics.append(Metric("HTTP requests to the S3 server per unchanged pass", "n", counts))
    worst = max(samples)
    pages = first_requests - items  # the first pass: the listing's pages, one GetObject each
    result.aims.append(
        Aim(
            f"a pass over {items:,} unchanged S3 objects ≤ {LIMIT_S:g} s, listing only",
            worst <= LIMIT_S and max(counts) <= pages,
            f"worst {worst:.2f} s, median {median(samples):.2f} s, {max(counts):.0f} requests "
            f"(the listing is {pages} ListObjectsV2 pages of up to 1,000 keys)",
            value=worst,
            limit=LIMIT_S,
            unit="s",
        )
    )
    result.notes.append(
        f"S3: {items:,} one-byte objects stored in moto in {stored:.0f} s ({_PUTTERS} at once); "
        f"the first pass placed them in {first_s:.1f} s with {first_requests:,} HTTP requests "
        "(the listing's pages and one GetObject each). The server is on this machine: a remote "
        "one adds its round trip per listing page."
    )
    return result
