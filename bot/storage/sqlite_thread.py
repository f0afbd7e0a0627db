"""A SQLite file behind one worker thread of its own, the shape every small SQLite store uses.

The connection is opened by the store's own `connect` on first use, so a store that is never
asked touches no disk; every piece of work runs on the one thread, in the order it was asked,
and `close` lets the work already asked for finish first.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

_T = TypeVar("_T")


class SqliteThread:
    """`run(work)` calls `work(connection)` on the worker thread and returns its result."""

    def __init__(
        self, path: Path, connect: Callable[[Path], sqlite3.Connection], *, name: str
    ) -> None:
        self._path = path
        self._connect = connect
        self._name = name
        self._executor = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix=name.replace(" ", "-")
        )
        self._connection: sqlite3.Connection | None = None
        self._closed = False

    @property
    def path(self) -> Path:
        """Where the database lives."""
        return self._path

    async def run(self, work: Callable[[sqlite3.Connection], _T]) -> _T:
        """Run `work` with the connection on the worker thread."""
        if self._closed:
            msg = f"the {self._name} is closed"
            raise sqlite3.ProgrammingError(msg)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._call, work)

    async def close(self) -> None:
        """Close the database; work already asked for finishes first."""
        if self._closed:
            return
        self._closed = True
        await asyncio.get_running_loop().run_in_executor(self._executor, self._close)
        await asyncio.to_thread(self._executor.shutdown, wait=True)

    # --- on the worker thread ------------------------------------------------------------
    def _call(self, work: Callable[[sqlite3.Connection], _T]) -> _T:
        if self._connection is None:
            self._connection = self._connect(self._path)
        return work(self._connection)

    def _close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None
