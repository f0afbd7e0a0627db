"""A short memory of albums (media groups): Telegram sends each item as its own message.

Only the first item usually carries the caption, so what it decided (the folder, or that the
sender was already answered) is kept for a minute for the items that follow. In one process
the memory is a dict (`Albums`); with several workers, whose balancer may hand the items of one
album to different workers, it is a PostgreSQL table (`PostgresAlbums`), and "first item" is
decided by one insert that only one worker can win.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from bot.storage.postgres import PostgresDatabase


_SWEEP_AT = 1_000


class AlbumMemory(Protocol):
    """What was decided for each recent `media_group_id`."""

    async def remember(self, group_id: str, value: str) -> None:
        """Keep `value` for the album `group_id`."""
        ...

    async def recall(self, group_id: str | None) -> str | None:
        """The value kept for the album, or None for a new (or long past) album."""
        ...

    async def first_item(self, group_id: str | None, value: str) -> bool:
        """Whether this message should be answered: not part of an album, or the first of its
        album seen; the album is then remembered with `value`, so its other items stay quiet."""
        ...


class Albums:
    """What was decided for each recent `media_group_id`, forgotten after `ttl_s`."""

    def __init__(self, ttl_s: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        self._ttl = ttl_s
        self._clock = clock
        self._seen: dict[str, tuple[float, str]] = {}

    async def remember(self, group_id: str, value: str) -> None:
        now = self._clock()
        if len(self._seen) >= _SWEEP_AT:
            self._seen = {k: v for k, v in self._seen.items() if now - v[0] < self._ttl}
        self._seen[group_id] = (now, value)

    async def recall(self, group_id: str | None) -> str | None:
        if group_id is None:
            return None
        kept = self._seen.get(group_id)
        if kept is None or self._clock() - kept[0] >= self._ttl:
            return None
        return kept[1]

    async def first_item(self, group_id: str | None, value: str) -> bool:
        if group_id is None:
            return True
        if await self.recall(group_id) is not None:
            return False
        await self.remember(group_id, value)
        return True


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
