"""Hearing other workers' changes: LISTEN on a PostgreSQL channel over a connection of its own.

A store whose changes other workers must see commits each with a `pg_notify` on its channel
(the grants', the model breakers'); each worker's store hears them through a `ChannelListener`.
A notification runs the store's callback as a task of its own, so a slow read does not hold the
connection's reader; a callback the database fails costs a log line, and a lost connection a
warning that says what is no longer heard.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import asyncpg

if TYPE_CHECKING:
    from bot.storage.postgres import PostgresDatabase

log = logging.getLogger(__name__)

_UNREACHABLE = (OSError, asyncpg.PostgresError, asyncpg.InterfaceError)

Heard = Callable[[str], Awaitable[None]]
"""Called with a notification's payload (what changed, or "")."""


class ChannelListener:
    """One channel's notifications for one store; `heard` names what they tell of, `read`
    what the callback reads again, and `until` what a lost connection costs (all for logs)."""

    def __init__(
        self, database: PostgresDatabase, channel: str, *, heard: str, read: str, until: str
    ) -> None:
        self._database = database
        self._channel = channel
        self._heard = heard
        self._read = read
        self._until = until
        self._connection: asyncpg.Connection | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self, changed: Heard) -> None:
        """Call `changed` with every notification from now on (once started, again is a no-op)."""
        if self._connection is not None:
            return
        connection = await self._database.connect()

        def notified(_connection: object, _pid: int, _channel: str, payload: object) -> None:
            task = asyncio.get_running_loop().create_task(self._apply(changed, str(payload)))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

        def lost(*_: object) -> None:
            if self._connection is None:
                return
            log.warning("the connection that hears of %s closed; %s", self._heard, self._until)

        connection.add_termination_listener(lost)
        await connection.add_listener(self._channel, notified)
        self._connection = connection

    async def close(self) -> None:
        """Stop listening; the database is closed by whoever opened it."""
        connection, self._connection = self._connection, None
        if connection is not None:
            await connection.close()
        for task in list(self._tasks):
            task.cancel()

    async def _apply(self, changed: Heard, payload: str) -> None:
        try:
            await changed(payload)
        except _UNREACHABLE as exc:
            log.warning("could not read %s: %s", self._read, exc)
