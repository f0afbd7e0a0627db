"""`RateWindow` in PostgreSQL: each user's recent hits in one row, and a hit is one upsert that
locks that row, counts and appends together, so two workers taking a question of the same user
at the same moment can never both take the last free place. Times come from the database's
clock, the one clock all machines share."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.storage.postgres import PostgresDatabase

_HIT = """
WITH now AS (SELECT coalesce($2::float8, extract(epoch FROM clock_timestamp()))::float8 AS t)
INSERT INTO rate_limits AS r (key, hits, allowed)
SELECT $1, ARRAY[now.t], true FROM now
ON CONFLICT (key) DO UPDATE SET
    allowed = (
        SELECT count(*) < $3 FROM unnest(r.hits) AS h WHERE h > (SELECT t FROM now) - $4
    ),
    hits = (
        SELECT CASE
            WHEN count(*) < $3 THEN coalesce(array_agg(h ORDER BY h), '{}') || (SELECT t FROM now)
            ELSE array_agg(h ORDER BY h)
        END
        FROM unnest(r.hits) AS h WHERE h > (SELECT t FROM now) - $4
    )
RETURNING allowed, hits[1] AS oldest, (SELECT t FROM now) AS now
"""

_UNDO = """
UPDATE rate_limits SET hits = hits[1:cardinality(hits) - 1]
WHERE key = $1 AND cardinality(hits) > 0
"""


class PostgresRateWindow:
    """The sliding window in the shared database; `clock` (Unix time) replaces the database's
    clock in tests."""

    def __init__(
        self,
        database: PostgresDatabase,
        limit: int,
        window_s: float = 3600.0,
        *,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self._pool = database.pool
        self._limit = limit
        self._window = window_s
        self._clock = clock

    async def hit(self, key: int) -> float | None:
        now = self._clock() if self._clock is not None else None
        row = await self._pool.fetchrow(_HIT, key, now, self._limit, self._window)
        assert row is not None
        if row["allowed"]:
            return None
        return float(row["oldest"]) + self._window - float(row["now"])

    async def undo(self, key: int) -> None:
        await self._pool.execute(_UNDO, key)
