"""Status messages in flight of every worker, in the shared PostgreSQL database.

Each record names the worker that sent its message, so a worker starting while others run
tidies only the records of workers that are gone. A bot without DATABASE_URL never imports
this module (nor the PostgreSQL driver): the composition root imports it only when it opens a
database. A failing database shows as `StorageError` where the
start-up tidying reads and forgets records.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

import asyncpg

from bot.storage.errors import StorageError
from bot.storage.pending_status import PendingStatus
from bot.storage.postgres import PostgresDatabase

__all__ = ["PostgresPendingStatusStore"]

_T = TypeVar("_T")

_FAILED = (asyncpg.PostgresError, asyncpg.InterfaceError)
"""What the driver raises when the database refuses a statement or the pool is unusable."""


class PostgresPendingStatusStore:
    """The status messages in flight of every worker, in the shared database.

    Each record names this worker (`PostgresDatabase.owner`). Writes run one after another in
    the order they were asked for, so a `remove` never overtakes its `add`.
    """

    def __init__(self, database: PostgresDatabase) -> None:
        self._database = database
        self._pool = database.pool
        self._order = asyncio.Lock()
        self._closed = False

    async def remove(self, chat_id: int, message_id: int) -> None:
        await self._in_order(
            lambda: self._pool.execute(
                "DELETE FROM pending_status WHERE chat_id = $1 AND message_id = $2",
                chat_id,
                message_id,
            )
        )

    async def leftovers(self) -> list[PendingStatus]:
        """The records of workers that are gone, newest first; live workers' stay theirs."""
        try:
            return await self._in_order(self._leftovers)
        except _FAILED as exc:
            raise StorageError(str(exc)) from exc

    async def _leftovers(self) -> list[PendingStatus]:
        owners = await self._pool.fetch("SELECT DISTINCT owner FROM pending_status")
        gone = [
            row["owner"]
            for row in owners
            if row["owner"] != self._database.owner
            and not await self._database.alive(row["owner"])
        ]
        rows = await self._pool.fetch(
            "SELECT chat_id, message_id, lang, thread_id FROM pending_status "
            "WHERE owner = ANY($1::text[]) ORDER BY added DESC",
            gone,
        )
        return [PendingStatus(*row) for row in rows]

    async def drop(self, statuses: Sequence[PendingStatus]) -> None:
        try:
            await self._in_order(
                lambda: self._pool.execute(
                    "DELETE FROM pending_status AS p USING unnest($1::bigint[], $2::bigint[]) "
                    "AS gone (chat_id, message_id) "
                    "WHERE p.chat_id = gone.chat_id AND p.message_id = gone.message_id",
                    [s.chat_id for s in statuses],
                    [s.message_id for s in statuses],
                )
            )
        except _FAILED as exc:
            raise StorageError(str(exc)) from exc

    async def close(self) -> None:
        """Wait for the writes asked for; the database is closed by whoever opened it."""
        self._closed = True
        async with self._order:
            pass

    def add(self, status: PendingStatus) -> asyncio.Future[None]:
        return self._in_order(lambda: self._insert(status))

    async def _insert(self, status: PendingStatus) -> None:
        await self._pool.execute(
            "INSERT INTO pending_status (chat_id, message_id, lang, thread_id, owner) "
            "VALUES ($1, $2, $3, $4, $5) ON CONFLICT (chat_id, message_id) DO UPDATE SET "
            "lang = excluded.lang, thread_id = excluded.thread_id, owner = excluded.owner",
            status.chat_id,
            status.message_id,
            status.lang,
            status.thread_id,
            self._database.owner,
        )

    def _in_order(self, work: Callable[[], Awaitable[_T]]) -> asyncio.Future[_T]:
        """Start `work` now, behind everything asked for before it."""
        loop = asyncio.get_running_loop()
        if self._closed:
            failed: asyncio.Future[_T] = loop.create_future()
            failed.set_exception(RuntimeError("the store of pending status messages is closed"))
            return failed

        async def run() -> _T:
            async with self._order:
                return await work()

        return loop.create_task(run())
