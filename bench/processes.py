"""CPU time and peak memory of other processes, read from /proc (Linux).

The worker benchmark measures processes it did not start itself (a bot's workers, the
PostgreSQL server's backends), so it reads what the kernel keeps for each of them.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User plus system CPU seconds the process has used so far (NaN once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return math.nan
    return (int(fields[11]) + int(fields[12])) / _TICKS  # utime, stime


def peak_rss_mb(pid: int) -> float:
    """The process's peak resident memory (VmHWM) in MB (NaN once it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return math.nan


def children(pid: int) -> list[int]:
    """The process's children now."""
    found: list[int] = []
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return found
    for task in tasks:
        try:
            found += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds of a process and its children alive now (PostgreSQL: server and backends)."""
    return sum(c for c in (cpu_seconds(p) for p in (pid, *children(pid))) if not math.isnan(c))


def pin(pid: int, cores: frozenset[int]) -> None:
    """Every thread of the process and of its children to `cores` (their new threads and
    processes inherit them). A process that ended meanwhile is passed over."""
    for process in (pid, *children(pid)):
        try:
            threads = [int(t.name) for t in Path(f"/proc/{process}/task").iterdir()]
        except OSError:
            continue
        for thread in threads:
            try:
                os.sched_setaffinity(thread, cores)
            except OSError:
                continue


def cores_of(pid: int) -> frozenset[int]:
    """The cores the process may run on now (empty once it is gone)."""
    try:
        return frozenset(os.sched_getaffinity(pid))
    except OSError:
        return frozenset()
