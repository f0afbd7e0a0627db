"""One conversation at a time across processes and machines: a PostgreSQL advisory lock per
conversation key.

`KeyedLocks` (bot.agent.locks) orders a conversation inside one process and, given this as
its `across`, also takes the key's advisory lock once its own task holds the key, so within a
process at most one task asks the database for a key. The lock is first tried on the process's
`LockSession` without waiting (the common case: no other worker has the chat now); when
another worker holds it, the wait runs on a connection of its own, which holds the lock until
the question ends and is then closed. Either way the lock is session-level: a worker that dies
or loses its connection releases it, and the next message of that chat goes ahead elsewhere.
On SQLite there is one process, and `KeyedLocks` alone is enough.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress

from bot.storage.keys import advisory_key
from bot.storage.lost import LOST
from bot.storage.postgres import PostgresDatabase
from bot.storage.session import LockSession

log = logging.getLogger(__name__)

_CONVERSATION = "conversation"
_CLOSE_FAILED: tuple[type[Exception], ...] = (*LOST, TimeoutError)


class AdvisoryConversationLocks:
    """Cross-process conversation locks on one PostgreSQL database."""

    def __init__(self, database: PostgresDatabase) -> None:
        self._database = database

    @asynccontextmanager
    async def hold(self, key: str) -> AsyncIterator[None]:
        """Wait until no other process holds `key`, and hold it for the `async with` body."""
        number = advisory_key(_CONVERSATION, key)
        session = self._database.session
        generation = await _try_lock(session, number)
        if generation is not None:
            try:
                yield
            finally:
                await asyncio.shield(session.unlock(number, generation))
            return
        connection = await self._database.connect()
        try:
            await connection.execute("SELECT pg_advisory_lock($1)", number)
            yield
        finally:
            # closing the connection ends its session and so releases the lock, even when
            # the wait was cancelled halfway
            try:
                await asyncio.shield(connection.close(timeout=5))
            except _CLOSE_FAILED:
                connection.terminate()


async def _try_lock(session: LockSession, number: int) -> int | None:
    """Try the lock on the session: its generation, or None when another process holds it or
    the session cannot be used now (then the caller waits on a connection of its own).

    A cancellation cannot lose a lock the database granted: the attempt is awaited to its end.
    """
    attempt = asyncio.ensure_future(session.try_lock(number))
    try:
        return await asyncio.shield(attempt)
    except asyncio.CancelledError:
        generation = None
        with suppress(*LOST):
            generation = await attempt  # a moment away; release what it granted
        if generation is not None:
            await session.unlock(number, generation)
        raise
    except LOST as exc:
        log.warning("the database session cannot take a lock now: %s", exc)
        return None
