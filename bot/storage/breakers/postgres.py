"""`SharedBreakers` in PostgreSQL: one row per open breaker, and a notification with each change.

Opening and closing each commit their row together with a `pg_notify` naming the model, so a
worker that hears of it reads the row as committed. Times come from the database's clock: the
row says until when, and a reader gets the seconds left, which it counts on its own clock.
Listening takes a connection of its own (`bot.storage.listening`), as the grants' store does.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import asyncpg

from bot.storage.breakers import OpenBreaker
from bot.storage.listening import ChannelListener

if TYPE_CHECKING:
    from bot.storage.postgres import PostgresDatabase

log = logging.getLogger(__name__)

_CHANNEL = "breakers_changed"
_NOW = "extract(epoch FROM clock_timestamp())"
_UNREACHABLE = (OSError, asyncpg.PostgresError, asyncpg.InterfaceError)
"""What a database that cannot take the write raises: the breaker then stays this worker's."""


class PostgresBreakers:
    """The open breakers in the shared database."""

    def __init__(self, database: PostgresDatabase) -> None:
        self._pool = database.pool
        self._listener = ChannelListener(
            database,
            _CHANNEL,
            heard="other workers' model breakers",
            read="a model breaker another worker changed",
            until="a model another worker finds down is tried here too until a restart",
        )

    async def opened(self, model: str, cooldown_s: float, reason: str) -> None:
        try:
            await self._open(model, cooldown_s, reason)
        except _UNREACHABLE as exc:
            log.warning("could not tell the other workers that %s is down: %s", model, exc)

    async def closed(self, model: str) -> None:
        try:
            async with self._pool.acquire() as db, db.transaction():
                await db.execute("DELETE FROM model_breakers WHERE model = $1", model)
                await db.execute("SELECT pg_notify($1, $2)", _CHANNEL, model)
        except _UNREACHABLE as exc:
            log.warning("could not tell the other workers that %s answers again: %s", model, exc)

    async def _open(self, model: str, cooldown_s: float, reason: str) -> None:
        async with self._pool.acquire() as db, db.transaction():
            await db.execute(
                f"""
                INSERT INTO model_breakers (model, open_until, reason)
                VALUES ($1, {_NOW} + $2, $3)
                ON CONFLICT (model) DO UPDATE SET open_until = excluded.open_until,
                    reason = excluded.reason
                """,
                model,
                cooldown_s,
                reason,
            )
            await db.execute("SELECT pg_notify($1, $2)", _CHANNEL, model)

    async def open_now(self) -> list[OpenBreaker]:
        rows = await self._pool.fetch(
            f"SELECT model, open_until - {_NOW} AS left_s, reason FROM model_breakers "
            f"WHERE open_until > {_NOW} ORDER BY model"
        )
        return [OpenBreaker(r["model"], float(r["left_s"]), r["reason"]) for r in rows]

    async def watch(self, changed: Callable[[str], Awaitable[None]]) -> None:
        await self._listener.start(changed)

    async def close(self) -> None:
        await self._listener.close()
