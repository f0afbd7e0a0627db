"""Runs one benchmark variant in a fresh process and writes its result as JSON.

A fresh process per variant keeps peak memory honest: nothing measured before leaks into it.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import inspect
import json
import signal
import time
import traceback
from pathlib import Path
from typing import Any

from bench import tether
from bench.context import Context
from bench.results import BenchResult
from bench.stats import peak_rss_mb


def _run(module: Any, ctx: Context, variant: str) -> BenchResult:
    outcome = module.run(ctx, variant)
    if inspect.isawaitable(outcome):
        outcome = asyncio.run(_await(outcome))
    if not isinstance(outcome, BenchResult):
        msg = f"{module.__name__}.run returned {type(outcome).__name__}, not BenchResult"
        raise TypeError(msg)
    return outcome


async def _await(awaitable: Any) -> Any:
    return await awaitable


def main(argv: list[str] | None = None) -> int:
    """Entry point of `python -m bench.worker MODULE VARIANT ...`."""
    parser = argparse.ArgumentParser(prog="python -m bench.worker")
    parser.add_argument("module")
    parser.add_argument("variant")
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--result", type=Path, required=True)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    tether.die_with_parent(signal.SIGTERM)  # the runner gone, what it started must stop too
    ctx = Context(workdir=args.workdir, quick=args.quick)
    module = importlib.import_module(args.module)
    started = time.perf_counter()
    try:
        result = _run(module, ctx, args.variant)
    except Exception as exc:  # any failure is reported, not lost
        result = BenchResult(
            name=args.module.rsplit(".", 1)[-1].removeprefix("bench_"),
            title=str(getattr(module, "TITLE", args.module)),
            error=f"{args.variant}: {type(exc).__name__}: {exc}",
        )
        traceback.print_exc()
    result.seconds = time.perf_counter() - started
    result.peak_rss_mb = peak_rss_mb()
    args.result.write_text(json.dumps(result.to_json(), ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
