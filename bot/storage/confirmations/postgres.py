"""Actions waiting for their confirm button, in PostgreSQL: the tap may reach another worker
than the command did. Same rules as the SQLite store (sqlite.py): a random id, used once
(taking it deletes it, so of two taps at once one finds it), only by the person who asked in
the chat they asked in; expiry by the database's clock unless a `clock` is given."""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from bot.storage.confirmations import LIFETIME_S, Pending
from bot.storage.source_links import ID_BYTES, is_link_id

if TYPE_CHECKING:
    from bot.storage.postgres import PostgresDatabase

_NOW = "coalesce($1::float8, extract(epoch FROM clock_timestamp()))"


class PostgresConfirmations:
    """Pending actions in the shared database."""

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

    async def ask(self, pending: Pending) -> str:
        """Keep `pending` and return the id its button carries; expired ones are dropped."""
        now = self._now()
        args = json.dumps(list(pending.args), ensure_ascii=False)
        async with self._pool.acquire() as db:
            await db.execute(
                f"DELETE FROM confirmations WHERE created_at < {_NOW} - $2", now, self._lifetime
            )
            while True:  # a clash of 72 random bits draws again
                confirm_id = secrets.token_urlsafe(ID_BYTES)
                made = await db.fetchval(
                    "INSERT INTO confirmations (id, user_id, chat_id, action, args, created_at) "
                    f"VALUES ($2, $3, $4, $5, $6, {_NOW}) ON CONFLICT (id) DO NOTHING "
                    "RETURNING true",
                    now,
                    confirm_id,
                    pending.user_id,
                    pending.chat_id,
                    pending.action,
                    args,
                )
                if made:
                    return confirm_id

    async def take(self, confirm_id: str, *, user_id: int, chat_id: int) -> Pending | None:
        """The action behind `confirm_id`, when `user_id` asked for it in `chat_id`; it is
        removed, so a second tap finds nothing. None when it is unknown, malformed, expired or
        someone else's (which stays for its owner)."""
        if not is_link_id(confirm_id):
            return None
        row = await self._pool.fetchrow(
            "DELETE FROM confirmations WHERE id = $2 AND user_id = $3 AND chat_id = $4 "
            f"RETURNING user_id, chat_id, action, args, created_at >= {_NOW} - $5 AS live",
            self._now(),
            confirm_id,
            user_id,
            chat_id,
            self._lifetime,
        )
        if row is None or not row["live"]:
            return None
        args: Sequence[str] = json.loads(row["args"])
        return Pending(
            int(row["user_id"]), int(row["chat_id"]), row["action"], tuple(map(str, args))
        )

    async def forget_user(self, user_id: int) -> int:
        """Drop everything `user_id` asked for; how many were dropped."""
        status = await self._pool.execute("DELETE FROM confirmations WHERE user_id = $1", user_id)
        return int(status.rsplit(" ", 1)[-1])

    async def close(self) -> None:
        """Nothing of its own: the database is closed by whoever opened it."""

    def _now(self) -> float | None:
        return self._clock() if self._clock is not None else None
