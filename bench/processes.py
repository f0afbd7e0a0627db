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
