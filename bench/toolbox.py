"""Starting the real Toolbox over a benchmark folder, the way the bot does."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from tools import Toolbox, build_toolbox
from tools.config import ToolSettings


def settings_for(sandbox: Path, data: Path, **overrides: Any) -> ToolSettings:
    """Tool settings for these folders only: no `.env` or environment leaks in."""
    return ToolSettings(_env_file=None, sandbox_dir=sandbox, data_dir=data, **overrides)


async def wait_ready(toolbox: Toolbox, timeout_s: float = 1_200.0, poll_s: float = 0.02) -> float:
    """Seconds until the first index build reports ready."""
    started = time.perf_counter()
    while not toolbox.status().ready:
        if time.perf_counter() - started > timeout_s:
            msg = f"the index was not ready after {timeout_s:.0f} s"
            raise TimeoutError(msg)
        await asyncio.sleep(poll_s)
    return time.perf_counter() - started


async def started_toolbox(sandbox: Path, data: Path, **overrides: Any) -> tuple[Toolbox, float]:
    """A started toolbox whose first build has finished, and how long start+build took."""
    started = time.perf_counter()
    toolbox = build_toolbox(settings_for(sandbox, data, **overrides))
    await toolbox.start()
    await wait_ready(toolbox)
    return toolbox, time.perf_counter() - started


async def search_paths(toolbox: Toolbox, query: str, limit: int = 10) -> tuple[list[str], int]:
    """The paths a search returns, and the total it reports."""
    raw = (await toolbox.execute("search_files", {"query": query, "limit": limit})).text
    data = json.loads(raw)
    results = data.get("results") or []
    return [str(r.get("path")) for r in results], int(data.get("total") or 0)


def folder_mb(path: Path) -> float:
    """Bytes of all files below `path`, in MB."""
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6
