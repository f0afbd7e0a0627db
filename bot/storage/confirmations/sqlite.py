"""`Confirmations` in one small SQLite file in DATA_DIR, on the storage's one SQLite thread,
so the event loop never waits for the disk."""

from __future__ import annotations

import json
import secrets
import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bot.storage.confirmations import LIFETIME_S, Pending
from bot.storage.source_links import ID_BYTES, is_link_id
from bot.storage.sqlite_thread import SqliteThread

_SCHEMA = """
CREATE TABLE IF NOT EXISTS confirmations (
    id TEXT PRIMARY KEY,
    user_id INTEGER NOT NULL,
    chat_id INTEGER NOT NULL,
    action TEXT NOT NULL,
    args TEXT NOT NULL,
    created_at REAL NOT NULL
);
"""


class SqliteConfirmations:
    """Pending actions in one SQLite file; it opens on first use. `clock` gives Unix time."""

    def __init__(
        self,
        path: Path,
        *,
        lifetime_s: float = LIFETIME_S,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._lifetime = lifetime_s
        self._clock = clock
        self._db = SqliteThread(path, _SCHEMA, name="confirmations database")

    async def ask(self, pending: Pending) -> str:
        """Keep `pending` and return the id its button carries; expired ones are dropped."""
        now = self._clock()
        return await self._db.run(lambda db: self._ask(db, pending, now))

    async def take(self, confirm_id: str, *, user_id: int, chat_id: int) -> Pending | None:
        """The action behind `confirm_id`, when `user_id` asked for it in `chat_id`; it is
        removed, so a second tap finds nothing. None when it is unknown, malformed, expired or
        someone else's (which stays for its owner)."""
        if not is_link_id(confirm_id):
            return None
        cutoff = self._clock() - self._lifetime
        return await self._db.run(lambda db: _take(db, confirm_id, user_id, chat_id, cutoff))

    async def forget_user(self, user_id: int) -> int:
        """Drop everything `user_id` asked for; how many were dropped."""
        return await self._db.run(
            lambda db: (
                db.execute("DELETE FROM confirmations WHERE user_id = ?", (user_id,)).rowcount
            )
        )

    async def close(self) -> None:
        """Close the database; work already asked for finishes first."""
        await self._db.close()

    # --- on the worker thread ------------------------------------------------------------
    def _ask(self, db: sqlite3.Connection, pending: Pending, now: float) -> str:
        db.execute("DELETE FROM confirmations WHERE created_at < ?", (now - self._lifetime,))
        args = json.dumps(list(pending.args), ensure_ascii=False)
        while True:  # a clash of 72 random bits draws again
            confirm_id = secrets.token_urlsafe(ID_BYTES)
            cursor = db.execute(
                "INSERT OR IGNORE INTO confirmations VALUES (?, ?, ?, ?, ?, ?)",
                (confirm_id, pending.user_id, pending.chat_id, pending.action, args, now),
            )
            if cursor.rowcount == 1:
                return confirm_id


def _take(
    db: sqlite3.Connection, confirm_id: str, user_id: int, chat_id: int, cutoff: float
) -> Pending | None:
    row = db.execute(
        "DELETE FROM confirmations WHERE id = ? AND user_id = ? AND chat_id = ? "
        "RETURNING user_id, chat_id, action, args, created_at",
        (confirm_id, user_id, chat_id),
    ).fetchone()
    if row is None or float(row[4]) < cutoff:
        return None
    args: Sequence[str] = json.loads(row[3])
    return Pending(int(row[0]), int(row[1]), str(row[2]), tuple(str(a) for a in args))
