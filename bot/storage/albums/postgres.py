"""`AlbumMemory` in PostgreSQL, shared by every worker: "first item" is one insert that only
one worker can win; times from the database's clock unless a `clock` is given."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.storage.postgres import PostgresDatabase

_NOW = "coalesce($1::float8, extract(epoch FROM clock_timestamp()))"


class PostgresAlbums:
    """The album memory in the shared database; times from its clock unless `clock` is given."""

    def __init__(
        self,
        database: PostgresDatabase,
        ttl_s: float = 60.0,
        *,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self._pool = database.pool
        self._ttl = ttl_s
        self._clock = clock

    async def remember(self, group_id: str, value: str) -> None:
        await self._pool.execute(
            f"""
            WITH swept AS (DELETE FROM album_memory WHERE seen_at < {_NOW} - $4)
            INSERT INTO album_memory (group_id, value, seen_at) VALUES ($2, $3, {_NOW})
            ON CONFLICT (group_id) DO UPDATE SET value = excluded.value,
                seen_at = excluded.seen_at
            """,
            self._now(),
            group_id,
            value,
            self._ttl,
        )

    async def recall(self, group_id: str | None) -> str | None:
        if group_id is None:
            return None
        value: str | None = await self._pool.fetchval(
            f"SELECT value FROM album_memory WHERE group_id = $2 AND seen_at > {_NOW} - $3",
            self._now(),
            group_id,
            self._ttl,
        )
        return value

    async def first_item(self, group_id: str | None, value: str) -> bool:
        if group_id is None:
            return True
        won = await self._pool.fetchval(
            f"""
            INSERT INTO album_memory AS a (group_id, value, seen_at) VALUES ($2, $3, {_NOW})
            ON CONFLICT (group_id) DO UPDATE SET value = excluded.value,
                seen_at = excluded.seen_at
            WHERE a.seen_at <= {_NOW} - $4
            RETURNING true
            """,
            self._now(),
            group_id,
            value,
            self._ttl,
        )
        return bool(won)

    def _now(self) -> float | None:
        return self._clock() if self._clock is not None else None
