"""`Buttons` in one small SQLite file in DATA_DIR, on the storage's one SQLite thread, so the
event loop never waits for the disk."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Collection
from pathlib import Path

from bot.storage.buttons import LIFETIME_S, Match, match_of
from bot.storage.sqlite_thread import SqliteThread, transaction

_SCHEMA = """
CREATE TABLE IF NOT EXISTS buttons (
    chat_id INTEGER NOT NULL,
    message_id INTEGER NOT NULL,
    data TEXT NOT NULL,
    created_at REAL NOT NULL,
    PRIMARY KEY (chat_id, message_id, data)
);
CREATE INDEX IF NOT EXISTS buttons_created ON buttons (created_at);
"""


class SqliteButtons:
    """Messages' button data in one SQLite file; it opens on first use. `clock` gives Unix
    time; rows older than `lifetime_s` are not found."""

    def __init__(
        self,
        path: Path,
        *,
        lifetime_s: float = LIFETIME_S,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._lifetime = lifetime_s
        self._clock = clock
        self._db = SqliteThread(path, _SCHEMA, name="buttons database")

    async def keep(self, chat_id: int, message_id: int, data: Collection[str]) -> None:
        """Keep `data` as buttons of the message; expired rows are dropped."""
        now = self._clock()
        rows = [(chat_id, message_id, item, now) for item in dict.fromkeys(data)]
        await self._db.run(lambda db: self._keep(db, rows, now))

    async def match(self, chat_id: int, message_id: int, data: str) -> Match:
        """Whether `data` is one of the live buttons kept for the message."""
        cutoff = self._clock() - self._lifetime
        row = await self._db.run(
            lambda db: db.execute(
                "SELECT max(data = ?) FROM buttons "
                "WHERE chat_id = ? AND message_id = ? AND created_at >= ?",
                (data, chat_id, message_id, cutoff),
            ).fetchone()
        )
        return match_of(None if row is None else row[0])

    async def forget_chat(self, chat_id: int) -> int:
        """Drop the buttons of every message in `chat_id`; how many."""
        return await self._db.run(
            lambda db: db.execute("DELETE FROM buttons WHERE chat_id = ?", (chat_id,)).rowcount
        )

    async def close(self) -> None:
        """Close the database; work already asked for finishes first."""
        await self._db.close()

    def _keep(
        self, db: sqlite3.Connection, rows: list[tuple[int, int, str, float]], now: float
    ) -> None:
        with transaction(db):
            db.execute("DELETE FROM buttons WHERE created_at < ?", (now - self._lifetime,))
            db.executemany("INSERT OR REPLACE INTO buttons VALUES (?, ?, ?, ?)", rows)
