"""One long-lived PostgreSQL session per process, holding the advisory locks it takes.

A session-level advisory lock lasts until it is released or its connection ends, so a process
that dies, or loses its connection, frees everything it held without anyone cleaning up. The
process's identity lock lives here (so others can tell it is alive), and so do the
conversation locks it takes without waiting. The connection serves one query at a time; the
queries here are short (try a lock, release it), so the callers take turns.
"""

from __future__ import annotations

import asyncio
import logging

import asyncpg

log = logging.getLogger(__name__)


class LockSession:
    """A dedicated connection whose session owns this process's advisory locks."""

    def __init__(self, connection: asyncpg.Connection) -> None:
        self._connection = connection
        self._turn = asyncio.Lock()

    @property
    def connection(self) -> asyncpg.Connection:
        """The connection itself (for schema upgrades at start, before any lock is taken)."""
        return self._connection

    def is_open(self) -> bool:
        """False once the connection was closed or lost (every lock it held is gone then)."""
        return not self._connection.is_closed()

    async def try_lock(self, key: int) -> bool:
        """Take the lock `key` for this session if nobody holds it; never waits."""
        async with self._turn:
            return bool(await self._connection.fetchval("SELECT pg_try_advisory_lock($1)", key))

    async def lock(self, key: int) -> None:
        """Take the lock `key`, waiting for it (used at start only, before others share this)."""
        async with self._turn:
            await self._connection.execute("SELECT pg_advisory_lock($1)", key)

    async def unlock(self, key: int) -> None:
        """Release `key`; a lost connection has released it already, which is logged."""
        if not self.is_open():
            log.warning("the database session was lost; its locks were released with it")
            return
        async with self._turn:
            released = await self._connection.fetchval("SELECT pg_advisory_unlock($1)", key)
        if not released:
            log.warning("an advisory lock was no longer held when it was released")

    async def close(self) -> None:
        """End the session, which releases every lock it holds."""
        await self._connection.close()
