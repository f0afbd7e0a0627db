"""What a killed and restarted bot left on disk: its SQLite files, looked at from outside."""

from __future__ import annotations

import asyncio
import sqlite3
from contextlib import closing
from pathlib import Path


def integrity(path: Path) -> str:
    """`PRAGMA integrity_check` of a SQLite file ("ok" when sound)."""
    with closing(sqlite3.connect(path)) as db:
        return str(db.execute("PRAGMA integrity_check").fetchone()[0])


async def wait_for_rows(path: Path, table: str, within_s: float) -> None:
    """Wait until another process has committed a row to `table` of the SQLite file `path`.

    The child's disk writes cannot be awaited from here, so the file is looked at again every
    few milliseconds until the row is there or the time is up.
    """
    deadline = asyncio.get_running_loop().time() + within_s
    while True:
        try:
            with closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)) as db:
                if db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]:
                    return
        except sqlite3.Error:
            pass  # not created yet
        if asyncio.get_running_loop().time() > deadline:
            msg = f"no row in {table} of {path.name} within {within_s} s"
            raise TimeoutError(msg)
        await asyncio.sleep(0.01)
