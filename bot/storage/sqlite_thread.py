"""The one SQLite engine: a file behind one worker thread of its own.

The connection is opened on first use by `connect` (`tools.sqlite`, the one way every SQLite
file is opened), which also creates the store's tables (its `schema`, statements that may run
again: `CREATE TABLE IF NOT EXISTS`; with a `version`, created whole in a new file only), so a
store that is never asked touches no disk; a store that must recover its file before use (the
history) opens it now with `open_with`, on the one thread, with the same settings. Every piece
of work runs on the one thread, in the order it was asked, and `close` lets the work already
asked for finish first. Each statement commits on its own; work that needs several runs them
inside `transaction`.

Every store's file is in write-ahead-log mode with `synchronous=NORMAL`: a commit appends to
the log and returns without waiting for the disk (SQLite syncs at its checkpoints), where a
rollback journal waits for two or three syncs a commit; a question writes some ten small
records, and on a busy bot those waits queued behind each other on the store's one thread. A
crash of the process loses nothing committed; a power cut may lose the last commits, never the
file.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol, TypeVar

from tools.sqlite import BUSY_WAIT_S, connect, transaction

__all__ = ["BUSY_WAIT_S", "Opener", "SqliteThread", "connect", "erase", "erasing", "transaction"]

_T = TypeVar("_T")
_O = TypeVar("_O")


@contextmanager
def erasing(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """Deletes inside the block are gone from the disk (a person's `/forget`): their bytes
    overwritten in the file (`secure_delete`), and once the block ends the log folded in and
    emptied, since older versions of the pages stay in it until a checkpoint."""
    db.execute("PRAGMA secure_delete = ON")
    yield db
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def erase(db: sqlite3.Connection, statement: str, args: Sequence[object]) -> int:
    """One DELETE, `erasing`; how many rows went."""
    with erasing(db):
        return int(db.execute(statement, args).rowcount)


class Opener(Protocol):
    """Opens a store's file with its settings, on its worker thread."""

    def __call__(self, *, check: bool = False) -> sqlite3.Connection: ...


class SqliteThread:
    """`run(work)` calls `work(connection)` on the worker thread and returns its result."""

    def __init__(
        self,
        path: Path,
        schema: str,
        *,
        name: str,
        version: int | None = None,
        foreign_keys: bool = False,
    ) -> None:
        self._path = path
        self._schema = schema
        self._version = version
        self._foreign_keys = foreign_keys
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

    async def open_with(self, recovery: Callable[[Opener], _O]) -> _O:
        """Open the file now, on the worker thread, inside the store's `recovery`: it is handed
        the opener (this store's settings; `check` runs SQLite's quick check first), may call
        it again after it moved a damaged file aside, and returns what it found (the history:
        its in-use marker and whether it checked the file)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, recovery, self._open)

    async def run(self, work: Callable[[sqlite3.Connection], _T]) -> _T:
        """Run `work` with the connection on the worker thread."""
        return await self.submit(work)

    def submit(self, work: Callable[[sqlite3.Connection], _T]) -> asyncio.Future[_T]:
        """Queue `work` now, before this returns (so nothing asked later overtakes it); the
        future has its result. A closed database gives a future that failed."""
        loop = asyncio.get_running_loop()
        if self._closed:
            failed: asyncio.Future[_T] = loop.create_future()
            failed.set_exception(sqlite3.ProgrammingError(f"the {self._name} is closed"))
            return failed
        return loop.run_in_executor(self._executor, self._call, work)

    async def close(self, then: Callable[[], None] | None = None) -> None:
        """Close the database; work already asked for finishes first, and `then` runs on the
        worker thread once the file is closed."""
        if self._closed:
            return
        self._closed = True
        await asyncio.get_running_loop().run_in_executor(self._executor, self._close, then)
        await asyncio.to_thread(self._executor.shutdown, wait=True)

    # --- on the worker thread ------------------------------------------------------------
    def _call(self, work: Callable[[sqlite3.Connection], _T]) -> _T:
        connection = self._connection if self._connection is not None else self._open()
        return work(connection)

    def _open(self, *, check: bool = False) -> sqlite3.Connection:
        if self._connection is not None:
            self._connection.close()
            self._connection = None
        self._connection = connect(
            self._path,
            self._schema,
            wal=True,
            check=check,
            version=self._version,
            foreign_keys=self._foreign_keys,
        )
        return self._connection

    def _close(self, then: Callable[[], None] | None) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None
        if then is not None:
            then()
