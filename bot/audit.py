"""The admins' audit log: who changed the documents or the access to the bot, what, and when.

Every admin action that changes what the bot holds or who may use it is one entry: an upload,
a move, a deletion to the trash, a restore, a change of a chat's scope, access granted or taken
away. Entries are only added, never edited, and kept across restarts; `/audit` shows the last
ones. The log holds ids, names and paths, never document text.

`AuditLog` is the narrow seam the rest of the bot writes through; `SqliteAuditLog` keeps it in
one small SQLite file in DATA_DIR, worked on by one thread so the event loop never waits for
the disk. No aiogram here: the Telegram wing and the access policy both record through it.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from bot.storage.sqlite_thread import SqliteThread

Action = Literal["upload", "move", "delete", "restore", "scope", "grant", "revoke"]
"""What an admin did: the first four to documents, `scope` to a chat's folders, the last two to
a person's access."""

SHOWN = 20
"""Entries `/audit` shows."""

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


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """One admin action."""

    at: float
    """Unix time."""
    actor_id: int | None
    """The admin's Telegram id; None for the bot itself (for example a pairing code)."""
    actor_name: str
    action: Action
    subject: str
    """What was acted on: a path inside the documents folder, a user's or a chat's id."""
    detail: str = ""
    """The rest: a move's target, a scope's folders, a role."""


class AuditLog(Protocol):
    """Where admin actions are written and read back, newest last."""

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

    async def record_scope_change(
        self, chat_id: int, folders: Sequence[str], *, actor_id: int, actor_name: str = ""
    ) -> None:
        """An admin set the folders a chat (or a user) may see."""

    async def recent(self, limit: int = SHOWN) -> list[AuditEntry]:
        """The last `limit` entries, oldest first."""

    async def close(self) -> None:
        """Finish the writes asked for and release the storage."""


class SqliteAuditLog:
    """The audit log in one SQLite file; it opens on first use. `clock` gives Unix time."""

    def __init__(self, path: Path, *, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._db = SqliteThread(path, _connect, name="audit log")

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

    async def record_scope_change(
        self, chat_id: int, folders: Sequence[str], *, actor_id: int, actor_name: str = ""
    ) -> None:
        """A chat's scope was set: the chat's id is the subject, its folders the detail."""
        await self.record(
            "scope",
            str(chat_id),
            actor_id=actor_id,
            actor_name=actor_name,
            detail=", ".join(folders),
        )

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


def _connect(path: Path) -> sqlite3.Connection:
    """Open (and if needed create) the database; each statement commits on its own."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, timeout=10.0, isolation_level=None, check_same_thread=False)
    try:
        db.executescript(_SCHEMA)
    except BaseException:
        db.close()
        raise
    return db


def _insert(db: sqlite3.Connection, row: tuple[object, ...]) -> None:
    db.execute(
        "INSERT INTO audit (at, actor_id, actor_name, action, subject, detail) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        row,
    )
