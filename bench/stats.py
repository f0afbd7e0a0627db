"""Small statistics for timings: the numbers every table shows."""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager


def median(values: Sequence[float]) -> float:
    """The median, or NaN for no values."""
    return statistics.median(values) if values else math.nan


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100), linear between the closest ranks; NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    rank = (len(ordered) - 1) * q / 100.0
    low = math.floor(rank)
    high = math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def p95(values: Sequence[float]) -> float:
    """The 95th percentile."""
    return percentile(values, 95.0)


@contextmanager
def stopwatch(into: list[float], scale: float = 1000.0) -> Iterator[None]:
    """Append the elapsed time of the block to `into` (milliseconds by default)."""
    started = time.perf_counter()
    try:
        yield
    finally:
        into.append((time.perf_counter() - started) * scale)


def peak_rss_mb() -> float:
    """This process's peak resident memory (VmHWM) in MB, read from /proc."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    import resource  # noqa: PLC0415 - only where /proc is missing

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def current_rss_mb() -> float:
    """This process's resident memory now (VmRSS) in MB, or NaN where /proc is missing."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return math.nan
