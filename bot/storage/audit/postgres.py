"""`AuditLog` in PostgreSQL, for several workers sharing DATABASE_URL: one log for all of them.

The table (`audit`) comes with the schema's migrations (`bot.storage.migrations`); each entry
is one INSERT on the shared pool, so entries from every worker land in one order.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from bot.storage.audit import SHOWN, Action, AuditEntry

if TYPE_CHECKING:
    from bot.storage.postgres import PostgresDatabase


class PostgresAuditLog:
    """The admins' audit log in the shared database; `clock` gives Unix time."""

    def __init__(
        self, database: PostgresDatabase, *, clock: Callable[[], float] = time.time
    ) -> None:
        self._pool = database.pool
        self._clock = clock

    async def record(
        self,
        action: Action,
        subject: str,
        *,
        actor_id: int | None,
        actor_name: str = "",
        detail: str = "",
    ) -> None:
        """Add one entry, stamped now."""
        await self._pool.execute(
            "INSERT INTO audit (at, actor_id, actor_name, action, subject, detail) "
            "VALUES ($1, $2, $3, $4, $5, $6)",
            self._clock(),
            actor_id,
            actor_name,
            action,
            subject,
            detail,
        )

    async def recent(self, limit: int = SHOWN) -> list[AuditEntry]:
        """The last `limit` entries, oldest first."""
        rows = await self._pool.fetch(
            "SELECT at, actor_id, actor_name, action, subject, detail FROM audit "
            "ORDER BY id DESC LIMIT $1",
            limit,
        )
        return [
            AuditEntry(
                float(row["at"]),
                row["actor_id"],
                str(row["actor_name"]),
                row["action"],
                str(row["subject"]),
                str(row["detail"]),
            )
            for row in reversed(rows)
        ]

    async def close(self) -> None:
        """Nothing of its own: the database's pool is closed by whoever opened it."""
