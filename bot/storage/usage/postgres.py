"""`UsageStore` in PostgreSQL, for several workers sharing DATABASE_URL: one count for all.

The tables (`usage`, `usage_warnings`) come with the schema's migrations (`estimated` with
version 19). A reservation takes
a transaction-scoped advisory lock per user and chat it counts (in one order, so two never
wait on each other), sums and writes under it: a second worker reserving for the same person
waits, then sees the first one's reservation in flight.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from bot.storage.keys import advisory_key, locked_transaction
from bot.storage.usage import STALE_AFTER_S, Allowance, Refusal, Tokens, UsageSum, Use, Who

if TYPE_CHECKING:
    import asyncpg
    from asyncpg.pool import PoolConnectionProxy

    from bot.storage.postgres import PostgresDatabase

_COLUMN = {"user": "user_id", "chat": "chat_id"}
_LOCKS = "usage"
_ESTIMATED = "coalesce(sum(prompt_tokens + completion_tokens) FILTER (WHERE estimated), 0)"


class PostgresUsage:
    """Model use in the shared database; `clock` gives Unix time."""

    def __init__(
        self, database: PostgresDatabase, *, clock: Callable[[], float] = time.time
    ) -> None:
        self._pool = database.pool
        self._clock = clock

    async def reserve(
        self, question: str, *, user_id: int, chat_id: int, allowances: Sequence[Allowance]
    ) -> Refusal | None:
        """Check every allowance and write the reservation, under the askers' locks."""
        now = self._clock()
        keys = [advisory_key(_LOCKS, f"{a.who}:{a.id}") for a in allowances]
        async with locked_transaction(self._pool, *keys) as connection:
            if await connection.fetchval("SELECT 1 FROM usage WHERE question = $1", question):
                return None
            for allowance in allowances:
                refusal = await _refusal(connection, allowance, now)
                if refusal is not None:
                    return refusal
            await connection.execute(
                "INSERT INTO usage (question, user_id, chat_id, model, kind, prompt_tokens, "
                "cached_tokens, completion_tokens, at, done) "
                "VALUES ($1, $2, $3, '', 'answer', 0, 0, 0, $4, false) "
                "ON CONFLICT (question) DO NOTHING",
                question,
                user_id,
                chat_id,
                now,
            )
        return None

    async def record(self, use: Use) -> bool:
        """Fill the question's reservation in, or add a row of its own."""
        tokens = use.tokens
        values = (
            use.model,
            use.kind,
            tokens.prompt,
            tokens.cached,
            tokens.completion,
            use.estimated,
        )
        now = self._clock()
        images = tokens.images
        async with self._pool.acquire() as connection, connection.transaction():
            if use.question is not None:
                status = await connection.execute(
                    "UPDATE usage SET model = $1, kind = $2, prompt_tokens = $3, "
                    "cached_tokens = $4, completion_tokens = $5, estimated = $6, at = $7, "
                    "done = true, thread_id = $9, image_tokens = $10 "
                    "WHERE question = $8 AND NOT done",
                    *values,
                    now,
                    use.question,
                    use.thread_id,
                    images,
                )
                if int(status.split()[-1]):
                    return True
            added = await connection.fetchval(
                "INSERT INTO usage (model, kind, prompt_tokens, cached_tokens, "
                "completion_tokens, estimated, at, question, user_id, chat_id, done, thread_id, "
                "image_tokens) "
                "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, true, $11, $12) "
                "ON CONFLICT (question) DO NOTHING RETURNING id",
                *values,
                now,
                use.question,
                use.user_id,
                use.chat_id,
                use.thread_id,
                images,
            )
        return added is not None

    async def release(self, question: str) -> None:
        """Drop an unfilled reservation."""
        await self._pool.execute("DELETE FROM usage WHERE question = $1 AND NOT done", question)

    async def spent(self, *, who: Who, id: int, since: float) -> Tokens:
        """Tokens recorded for one user or chat since `since`."""
        row = await self._pool.fetchrow(
            "SELECT coalesce(sum(prompt_tokens), 0) AS p, coalesce(sum(cached_tokens), 0) AS c, "
            f"coalesce(sum(completion_tokens), 0) AS o, {_ESTIMATED} AS e, "
            "coalesce(sum(image_tokens), 0) AS i FROM usage "
            f"WHERE {_COLUMN[who]} = $1 AND at >= $2 AND done",
            id,
            since,
        )
        assert row is not None  # an aggregate always has its row
        return Tokens(int(row["p"]), int(row["c"]), int(row["o"]), int(row["e"]), int(row["i"]))

    async def sums(self, since: float, *, utc_offset_s: float = 0.0) -> list[UsageSum]:
        """Recorded use since `since`, per user, chat, model, kind and day."""
        rows = await self._pool.fetch(
            "SELECT user_id, chat_id, model, kind, floor((at + $1) / 86400)::bigint AS day, "
            "sum(prompt_tokens) AS p, sum(cached_tokens) AS c, sum(completion_tokens) AS o, "
            f"{_ESTIMATED} AS e, thread_id, sum(image_tokens) AS i FROM usage "
            "WHERE at >= $2 AND done "
            "GROUP BY user_id, chat_id, thread_id, model, kind, day",
            utc_offset_s,
            since,
        )
        return [
            UsageSum(
                row["user_id"],
                row["chat_id"],
                str(row["model"]),
                row["kind"],
                int(row["day"]),
                Tokens(int(row["p"]), int(row["c"]), int(row["o"]), int(row["e"]), int(row["i"])),
                row["thread_id"],
            )
            for row in rows
        ]

    async def claim_warning(self, subject: str, period: str) -> bool:
        """Insert the warning's row; True when it was not there yet."""
        claimed = await self._pool.fetchval(
            "INSERT INTO usage_warnings (subject, period, at) VALUES ($1, $2, $3) "
            "ON CONFLICT DO NOTHING RETURNING 1",
            subject,
            period,
            self._clock(),
        )
        return claimed is not None

    async def delete_older(self, cutoff: float) -> int:
        """Delete uses and warnings before `cutoff`; how many uses."""
        async with self._pool.acquire() as connection, connection.transaction():
            await connection.execute("DELETE FROM usage_warnings WHERE at < $1", cutoff)
            status = await connection.execute("DELETE FROM usage WHERE at < $1", cutoff)
        return int(status.split()[-1])

    async def close(self) -> None:
        """Nothing of its own: the database's pool is closed by whoever opened it."""


async def _refusal(
    connection: PoolConnectionProxy[asyncpg.Record], allowance: Allowance, now: float
) -> Refusal | None:
    """Whether `allowance` has no room left, or another question in flight near its end."""
    row = await connection.fetchrow(
        "SELECT coalesce(sum(prompt_tokens + completion_tokens) "
        "FILTER (WHERE done AND at >= $2), 0) AS used, "
        "count(*) FILTER (WHERE NOT done AND at >= $3) AS in_flight "
        f"FROM usage WHERE {_COLUMN[allowance.who]} = $1",
        allowance.id,
        allowance.since,
        now - STALE_AFTER_S,
    )
    assert row is not None  # an aggregate always has its row
    if row["used"] >= allowance.tokens:
        return Refusal(allowance)
    if row["in_flight"] and row["used"] >= allowance.near:
        return Refusal(allowance, busy=True)
    return None
