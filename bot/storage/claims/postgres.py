"""`UpdateClaims` in PostgreSQL: one statement each, atomic under any race, expiry by the
database's clock, the one every worker on every machine shares."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.storage.postgres import PostgresDatabase


class PostgresUpdateClaims:
    """Claims in the `update_claims` table; one statement each, atomic under any race."""

    def __init__(self, database: PostgresDatabase) -> None:
        self._pool = database.pool

    async def claim(self, update_id: int, *, owner: str, lease_s: float) -> bool:
        row = await self._pool.fetchval(
            """
            INSERT INTO update_claims (update_id, owner, expires_at)
            VALUES ($1, $2, clock_timestamp() + make_interval(secs => $3))
            ON CONFLICT (update_id) DO UPDATE
                SET owner = excluded.owner, expires_at = excluded.expires_at
                WHERE update_claims.finished_at IS NULL
                  AND update_claims.expires_at <= clock_timestamp()
            RETURNING 1
            """,
            update_id,
            owner,
            lease_s,
        )
        return row is not None

    async def renew(self, update_id: int, *, owner: str, lease_s: float) -> None:
        await self._pool.execute(
            "UPDATE update_claims SET expires_at = clock_timestamp() + make_interval(secs => $3) "
            "WHERE update_id = $1 AND owner = $2 AND finished_at IS NULL",
            update_id,
            owner,
            lease_s,
        )

    async def finish(self, update_id: int) -> None:
        await self._pool.execute(
            """
            INSERT INTO update_claims (update_id, owner, expires_at, finished_at)
            VALUES ($1, '', clock_timestamp(), clock_timestamp())
            ON CONFLICT (update_id) DO UPDATE SET finished_at = excluded.finished_at
                WHERE update_claims.finished_at IS NULL
            """,
            update_id,
        )

    async def forget_older(self, age_s: float) -> int:
        status = await self._pool.execute(
            """
            DELETE FROM update_claims
            WHERE coalesce(finished_at, expires_at)
                < clock_timestamp() - make_interval(secs => $1)
            """,
            age_s,
        )
        return int(status.rsplit(" ", 1)[-1])

    async def close(self) -> None:
        """Nothing of its own: the database's pool is closed by whoever opened it."""
