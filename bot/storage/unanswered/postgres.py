"""`UnansweredLog` in PostgreSQL, for several workers sharing DATABASE_URL: one list for all.

The tables (`unanswered`, `gaps_digest`) come with the schema's migrations. The digest's claim
is one conditional upsert: when two workers claim the same digest, PostgreSQL makes the second
wait for the first and then finds the row already moved, so exactly one of them sends it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from bot.storage.unanswered import (
    MAX_READ,
    Reason,
    UnansweredQuestion,
    bounded,
    files_json,
    files_of,
)

if TYPE_CHECKING:
    from bot.storage.postgres import PostgresDatabase

_COLUMNS = "question, chat_id, user_id, conversation, language, reason, asked_at, files"


class PostgresUnanswered:
    """Unanswered questions in the shared database; `clock` gives Unix time."""

    def __init__(
        self, database: PostgresDatabase, *, clock: Callable[[], float] = time.time
    ) -> None:
        self._pool = database.pool
        self._clock = clock

    async def mark(
        self,
        question: str,
        *,
        chat_id: int,
        user_id: int | None,
        conversation: str,
        language: str,
        reason: Reason,
        files: Sequence[str] = (),
    ) -> None:
        """Keep one question, stamped now."""
        await self._pool.execute(
            f"INSERT INTO unanswered ({_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            bounded(question),
            chat_id,
            user_id,
            conversation,
            language,
            reason,
            self._clock(),
            files_json(files),
        )

    async def since(self, start: float, end: float | None = None) -> list[UnansweredQuestion]:
        """Questions marked in [start, end), oldest first; the newest `MAX_READ` of them."""
        rows = await self._pool.fetch(
            f"SELECT {_COLUMNS} FROM unanswered WHERE asked_at >= $1 AND asked_at < $2 "
            "ORDER BY asked_at DESC, id DESC LIMIT $3",
            start,
            float("inf") if end is None else end,
            MAX_READ,
        )
        return [
            UnansweredQuestion(
                str(row["question"]),
                int(row["chat_id"]),
                row["user_id"],
                str(row["conversation"]),
                str(row["language"]),
                row["reason"],
                float(row["asked_at"]),
                files_of(row["files"]),
            )
            for row in reversed(rows)
        ]

    async def delete_older(self, cutoff: float) -> int:
        """Delete questions marked before `cutoff`; how many."""
        status = await self._pool.execute("DELETE FROM unanswered WHERE asked_at < $1", cutoff)
        return int(status.split()[-1])

    async def forget_user(self, user_id: int) -> int:
        """Delete every question one person asked; how many."""
        status = await self._pool.execute("DELETE FROM unanswered WHERE user_id = $1", user_id)
        return int(status.split()[-1])

    async def claim_digest(self, due: float) -> float | None:
        """Move the digest's row forward to `due` if it is behind; what it held, or None."""
        async with self._pool.acquire() as connection, connection.transaction():
            before = await connection.fetchval(
                "SELECT last_due FROM gaps_digest WHERE name = 'digest' FOR UPDATE"
            )
            moved = await connection.fetchval(
                "INSERT INTO gaps_digest (name, last_due) VALUES ('digest', $1) "
                "ON CONFLICT (name) DO UPDATE SET last_due = excluded.last_due "
                "WHERE gaps_digest.last_due < excluded.last_due RETURNING last_due",
                due,
            )
        if moved is None:
            return None
        return 0.0 if before is None else float(before)

    async def close(self) -> None:
        """Nothing of its own: the database's pool is closed by whoever opened it."""
