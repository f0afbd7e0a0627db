"""Messages' button data in PostgreSQL, so a tap reaching any worker is checked against what
any worker sent. Same rules as the SQLite store (sqlite.py); expiry is judged by the database's
clock, the one all machines share, unless a `clock` is given (tests move it)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import TYPE_CHECKING

from bot.storage.buttons import LIFETIME_S, Match, match_of

if TYPE_CHECKING:
    from bot.storage.postgres import PostgresDatabase

_NOW = "coalesce($1::float8, extract(epoch FROM clock_timestamp()))"


class PostgresButtons:
    """Messages' button data in the shared database."""

    def __init__(
        self,
        database: PostgresDatabase,
        *,
        lifetime_s: float = LIFETIME_S,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self._pool = database.pool
        self._lifetime = lifetime_s
        self._clock = clock

    async def keep(self, chat_id: int, message_id: int, data: Collection[str]) -> None:
        """Keep `data` as buttons of the message; expired rows are dropped."""
        now = self._now()
        async with self._pool.acquire() as db, db.transaction():
            await db.execute(
                f"DELETE FROM buttons WHERE created_at < {_NOW} - $2", now, self._lifetime
            )
            await db.execute(
                "INSERT INTO buttons (chat_id, message_id, data, created_at) "
                f"SELECT $2, $3, unnest($4::text[]), {_NOW} "
                "ON CONFLICT (chat_id, message_id, data) DO UPDATE "
                "SET created_at = excluded.created_at",
                now,
                chat_id,
                message_id,
                list(dict.fromkeys(data)),
            )

    async def match(self, chat_id: int, message_id: int, data: str) -> Match:
        """Whether `data` is one of the live buttons kept for the message."""
        found = await self._pool.fetchval(
            "SELECT bool_or(data = $4) FROM buttons "
            f"WHERE chat_id = $2 AND message_id = $3 AND created_at >= {_NOW} - $5",
            self._now(),
            chat_id,
            message_id,
            data,
            self._lifetime,
        )
        return match_of(found)

    async def forget_chat(self, chat_id: int) -> int:
        """Drop the buttons of every message in `chat_id`; how many."""
        status = await self._pool.execute("DELETE FROM buttons WHERE chat_id = $1", chat_id)
        return int(status.rsplit(" ", 1)[-1])

    async def close(self) -> None:
        """Nothing of its own: the database is closed by whoever opened it."""

    def _now(self) -> float | None:
        return self._clock() if self._clock is not None else None
