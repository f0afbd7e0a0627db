"""`PendingStatusStore` in one small SQLite table in DATA_DIR, on the storage's one SQLite
thread: every write commits on its own, so a crash loses at most the write in progress, and
work runs in the order it was asked for, so removing a record can never be overtaken by the
write that added it."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from bot.storage.pending_status import PendingStatus
from bot.storage.sqlite_thread import SqliteThread

_SCHEMA = """
CREATE TABLE IF NOT EXISTS pending_status (
    chat_id INTEGER NOT NULL,
    message_id INTEGER NOT NULL,
    lang TEXT NOT NULL,
    thread_id INTEGER,
    PRIMARY KEY (chat_id, message_id)
);
"""


class SqlitePendingStatusStore:
    """The status messages whose questions have not finished yet, in `DATA_DIR`.

    The database opens on first use, so building the store costs nothing and touches no disk.
    """

    def __init__(self, path: Path) -> None:
        self._db = SqliteThread(path, _SCHEMA, name="store of pending status messages")

    def add(self, status: PendingStatus) -> asyncio.Future[None]:
        """Remember a status message that was just sent.

        The write is queued at once, before this returns, so a later `remove` can never
        overtake it; the caller need not wait for the disk before going on (await the future
        for the outcome).
        """
        return self._db.submit(lambda db: _insert(db, status))

    async def remove(self, chat_id: int, message_id: int) -> None:
        """Forget a status message: its question is finished one way or another."""
        await self._db.run(
            lambda db: db.execute(
                "DELETE FROM pending_status WHERE chat_id = ? AND message_id = ?",
                (chat_id, message_id),
            )
        )

    async def all(self) -> list[PendingStatus]:
        """Every remembered status message, newest first."""
        rows = await self._db.run(
            lambda db: db.execute(
                "SELECT chat_id, message_id, lang, thread_id FROM pending_status "
                "ORDER BY rowid DESC"
            ).fetchall()
        )
        return [PendingStatus(*row) for row in rows]

    async def clear(self) -> None:
        """Forget every status message."""
        await self._db.run(lambda db: db.execute("DELETE FROM pending_status"))

    async def leftovers(self) -> list[PendingStatus]:
        """Every record: one process owns DATA_DIR, and at its start none of them is live."""
        return await self.all()

    async def drop(self, statuses: Sequence[PendingStatus]) -> None:
        """Forget these records."""
        for status in statuses:
            await self.remove(status.chat_id, status.message_id)

    async def close(self) -> None:
        """Close the database; writes already asked for finish first, later ones fail."""
        await self._db.close()


def _insert(db: sqlite3.Connection, status: PendingStatus) -> None:
    db.execute(
        "INSERT OR REPLACE INTO pending_status VALUES (?, ?, ?, ?)",
        (status.chat_id, status.message_id, status.lang, status.thread_id),
    )
