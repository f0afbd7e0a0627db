"""A one-line description of the machine, so numbers can be compared across runs."""

from __future__ import annotations

import datetime as dt
import os
import platform
import subprocess
from collections.abc import Iterable
from pathlib import Path


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _memory_gb() -> str:
    try:
        with open("/proc/meminfo", encoding="ascii") as info:
            for line in info:
                if line.startswith("MemTotal:"):
                    return f"{int(line.split()[1]) / 1024 / 1024:.0f} GB RAM"
    except OSError:
        pass
    return "RAM unknown"


def usable_cores() -> list[int]:
    """The cores this process may run on (a container or `taskset` may allow fewer)."""
    return sorted(os.sched_getaffinity(0))


def cores_text(cores: Iterable[int]) -> str:
    """`core 2`, `cores 0-3`, `cores 0, 2`: how a set of cores reads in a table."""
    ordered = sorted(cores)
    if len(ordered) == 1:
        return f"core {ordered[0]}"
    if ordered == list(range(ordered[0], ordered[-1] + 1)):
        return f"cores {ordered[0]}-{ordered[-1]}"
    return "cores " + ", ".join(str(c) for c in ordered)


def describe() -> str:
    """Cores, CPU, memory, Python and OS."""
    usable = len(usable_cores())
    allowed = f", {usable} usable" if usable != os.cpu_count() else ""
    return (
        f"{os.cpu_count()} cores{allowed} ({_cpu_model()}), {_memory_gb()}, "
        f"Python {platform.python_version()} ({platform.python_implementation()}), "
        f"{platform.system()} {platform.release()} ({platform.machine()})"
    )


def now_utc() -> str:
    """The run's date and time, UTC."""
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def code_version(repo: Path) -> str:
    """The commit measured: `git rev-parse` in a checkout (noting uncommitted changes), or
    BENCH_COMMIT for an exported tree; `unknown` otherwise."""
    if (repo / ".git").exists():
        try:
            head = subprocess.run(
                ["git", "-C", str(repo), "rev-parse", "--short", "HEAD"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
            dirty = subprocess.run(
                ["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=no"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return os.environ.get("BENCH_COMMIT", "unknown")
        return head + (" with uncommitted changes" if dirty else "")
    return os.environ.get("BENCH_COMMIT", "unknown")
