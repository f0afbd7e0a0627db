"""One long-lived PostgreSQL session per process, holding the advisory locks it takes.

A session-level advisory lock lasts until it is released or its connection ends, so a process
that dies, or loses its connection, frees everything it held without anyone cleaning up. The
process's identity lock lives here (so others can tell it is alive), and so do the
conversation locks it takes without waiting. The connection serves one query at a time; the
queries here are short (try a lock, release it), so the callers take turns.

A session that was lost (the server restarted, the network dropped) is opened again on next
use, and the identity lock taken again. Locks taken before the loss were released with it: each
is handed out with the session's generation, and releasing one of an older generation does
nothing.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

import asyncpg

from bot.storage.lost import LOST

log = logging.getLogger(__name__)

Connect = Callable[[], Awaitable[asyncpg.Connection]]


class LockSession:
    """A dedicated connection whose session owns this process's advisory locks."""

    def __init__(
        self, connection: asyncpg.Connection, *, reconnect: Connect, identity: int
    ) -> None:
        self._connection = connection
        self._reconnect = reconnect
        self._identity = identity
        self._generation = 0
        self._turn = asyncio.Lock()

    @classmethod
    async def open(
        cls, connection: asyncpg.Connection, *, reconnect: Connect, identity: int
    ) -> LockSession:
        """The session on `connection`, with the process's identity lock taken."""
        await connection.execute("SELECT pg_advisory_lock($1)", identity)
        return cls(connection, reconnect=reconnect, identity=identity)

    @property
    def connection(self) -> asyncpg.Connection:
        """The connection now (another one after a loss)."""
        return self._connection

    async def try_lock(self, key: int) -> int | None:
        """Take the lock `key` if nobody holds it, never waiting: the generation to release it
        with, or None when someone else holds it."""
        async with self._turn:
            connection = await self._live()
            try:
                taken = await connection.fetchval("SELECT pg_try_advisory_lock($1)", key)
            except LOST:
                connection.terminate()  # the next use opens the session again
                raise
            return self._generation if taken else None

    async def unlock(self, key: int, generation: int) -> None:
        """Release `key`, taken in `generation`; one from a lost session is already free."""
        async with self._turn:
            if generation != self._generation or self._connection.is_closed():
                return
            try:
                await self._connection.execute("SELECT pg_advisory_unlock($1)", key)
            except LOST as exc:
                self._connection.terminate()
                log.warning("the database session was lost (%s); its locks went with it", exc)

    async def close(self) -> None:
        """End the session, which releases every lock it holds."""
        async with self._turn:
            await self._connection.close()

    async def _live(self) -> asyncpg.Connection:
        if self._connection.is_closed():
            log.warning("the database session was lost; opening it again")
            connection = await self._reconnect()
            try:
                await connection.execute("SELECT pg_advisory_lock($1)", self._identity)
            except BaseException:
                await connection.close()
                raise
            self._connection = connection
            self._generation += 1
        return self._connection
