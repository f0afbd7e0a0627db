"""`AuditLog` in one small SQLite file in DATA_DIR, worked on by one thread (the storage's
`SqliteThread`) so the event loop never waits for the disk."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from bot.storage.audit import SHOWN, Action, AuditEntry
from bot.storage.sqlite_thread import SqliteThread

_SCHEMA = """
CREATE TABLE IF NOT EXISTS audit (
    id INTEGER PRIMARY KEY,
    at REAL NOT NULL,
    actor_id INTEGER,
    actor_name TEXT NOT NULL DEFAULT '',
    action TEXT NOT NULL,
    subject TEXT NOT NULL DEFAULT '',
    detail TEXT NOT NULL DEFAULT ''
);
"""


class SqliteAuditLog:
    """The audit log in one SQLite file; it opens on first use. `clock` gives Unix time."""

    def __init__(self, path: Path, *, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._db = SqliteThread(path, _SCHEMA, name="audit log")

    @property
    def path(self) -> Path:
        """Where the database lives."""
        return self._db.path

    async def record(
        self,
        action: Action,
        subject: str,
        *,
        actor_id: int | None,
        actor_name: str = "",
        detail: str = "",
    ) -> None:
        """Add one entry, stamped now, committed before this returns."""
        row = (self._clock(), actor_id, actor_name, action, subject, detail)
        await self._db.run(lambda db: _insert(db, row))

    async def recent(self, limit: int = SHOWN) -> list[AuditEntry]:
        """The last `limit` entries, oldest first."""
        rows = await self._db.run(
            lambda db: db.execute(
                "SELECT at, actor_id, actor_name, action, subject, detail FROM audit "
                "ORDER BY id DESC LIMIT ?",
                (limit,),
            ).fetchall()
        )
        return [
            AuditEntry(float(at), actor, str(name), action, str(subject), str(detail))
            for at, actor, name, action, subject, detail in reversed(rows)
        ]

    async def close(self) -> None:
        """Close the database; work already asked for finishes first."""
        await self._db.close()


def _insert(db: sqlite3.Connection, row: tuple[object, ...]) -> None:
    db.execute(
        "INSERT INTO audit (at, actor_id, actor_name, action, subject, detail) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        row,
    )
