"""The one SQLite engine: a file behind one worker thread of its own, and how it is opened.

The connection is opened on first use by `connect`, which also creates the store's tables
(its `schema`, statements that may run again: `CREATE TABLE IF NOT EXISTS`), so a store that
is never asked touches no disk; a store that must recover its file before use (the history)
opens it its own way with `open_with`, still on the one thread. Every piece of work runs on the
one thread, in the order it was asked, and `close` lets the work already asked for finish first.
Each statement commits on its own; work that needs several runs them inside `transaction`.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

_T = TypeVar("_T")
_O = TypeVar("_O")

BUSY_WAIT_S = 10.0
"""How long a statement waits for another process holding the file."""


def connect(path: Path, schema: str, *, wal: bool = False) -> sqlite3.Connection:
    """Open (and if needed create) the database at `path` and its tables; each statement
    commits on its own, transactions are explicit. `wal` switches the file to write-ahead
    logging, for a file several processes write at once."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, timeout=BUSY_WAIT_S, isolation_level=None, check_same_thread=False)
    try:
        _set_up(db, schema, wal=wal)
    except BaseException:
        db.close()
        raise
    return db


def _set_up(db: sqlite3.Connection, schema: str, *, wal: bool) -> None:
    """The journal mode and the schema. Two processes opening a new file at once can meet
    "database is locked" here without SQLite's busy wait (switching to WAL takes the file for
    itself), so the set-up is tried again for a while, as the busy wait would have."""
    deadline = time.monotonic() + BUSY_WAIT_S
    pause = 0.01
    while True:
        try:
            if wal:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")
            db.executescript(schema)
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() >= deadline:
                raise
            time.sleep(pause)  # another process holds the file for its own set-up
            pause = min(pause * 2, 0.2)
        else:
            return


@contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One immediate transaction: committed when the block ends, rolled back if it raises."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


class SqliteThread:
    """`run(work)` calls `work(connection)` on the worker thread and returns its result."""

    def __init__(self, path: Path, schema: str, *, name: str, wal: bool = False) -> None:
        self._path = path
        self._schema = schema
        self._wal = wal
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

    async def open_with(self, opener: Callable[[], tuple[sqlite3.Connection, _O]]) -> _O:
        """Open the connection now, the caller's way, on the worker thread; returns what the
        opener found beside the connection (the history: whether it checked the file)."""

        def adopt() -> _O:
            connection, found = opener()
            self._connection = connection
            return found

        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, adopt)

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
        if self._connection is None:
            self._connection = connect(self._path, self._schema, wal=self._wal)
        return work(self._connection)

    def _close(self, then: Callable[[], None] | None) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None
        if then is not None:
            then()
