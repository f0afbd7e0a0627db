"""A benchmark that starts the benchmarks' PostgreSQL and holds it until it is killed.

Run by `python -m bench.worker` like any benchmark; it prints the postmaster's id and the
cluster's folder as one JSON line once the server is ready, so a test can kill it and look.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys

from bench.context import Context
from bench.postgres import BenchPostgres
from bench.processes import children
from bench.results import BenchResult


def variants(quick: bool) -> list[str]:
    del quick
    return ["hold"]


async def run(ctx: Context, variant: str) -> BenchResult:
    """Start the server, say where it is, wait for a signal."""
    del ctx, variant
    server = BenchPostgres.start()
    try:
        said = {
            "benchmark": os.getpid(),
            "pid": server.pid,
            "children": children(server.pid),
            "folder": str(server.cluster.folder),
        }
        sys.stdout.write(json.dumps(said) + "\n")
        sys.stdout.flush()
        await asyncio.Event().wait()
    finally:
        server.stop()
    return BenchResult("holding_postgres", "holds PostgreSQL")
