"""Short ids for an answer's sources, so a button can name a document without carrying its path.

Telegram keeps at most 64 bytes of data on a button and shows them to any client that asks, so
a button carries only a random id; this store maps the id to the document's path relative to
the documents folder and to the chat whose members may press it. Nothing of the document's text
is kept. The ids live in a small SQLite file in DATA_DIR, so buttons under old answers keep
working after a restart, until they expire (`LIFETIME_S`); expired rows are dropped as new ones
are written. With DATABASE_URL they live in PostgreSQL instead (`bot.source_links_postgres`), so
a button works whichever worker or machine its tap reaches.

All database work runs on one worker thread, in the order it was asked for, so the event loop
never waits for the disk. No aiogram here: the Telegram wing builds the buttons.
"""

from __future__ import annotations

import re
import secrets
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from bot.storage.sqlite_thread import SqliteThread

LIFETIME_S = 30 * 24 * 3600.0
ID_BYTES = 9
"""Random bytes of an id: 12 url-safe characters, 72 bits, not guessable."""
ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{12}")
_NEW_ID_ATTEMPTS = 5

_SCHEMA = """
CREATE TABLE IF NOT EXISTS source_links (
    id TEXT PRIMARY KEY,
    path TEXT NOT NULL,
    chat_id INTEGER NOT NULL,
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS source_links_created ON source_links (created_at);
"""


@dataclass(frozen=True, slots=True)
class SourceLink:
    """What one id stands for: a document and the chat whose members may open it."""

    path: str
    """Relative to the documents folder, as the answer's sources name it."""
    chat_id: int
    created_at: float
    """Unix time."""


def is_link_id(text: str) -> bool:
    """Whether `text` has the shape of an id this store makes."""
    return ID_PATTERN.fullmatch(text) is not None


class SourceLinks(Protocol):
    """The ids behind source buttons."""

    async def issue(self, chat_id: int, paths: Sequence[str]) -> list[str]:
        """A new id for each path, in order, pressable in `chat_id`."""
        ...

    async def find(self, link_id: str) -> SourceLink | None:
        """What `link_id` stands for; None when it is unknown, malformed or expired."""
        ...

    async def forget_chat(self, chat_id: int) -> int:
        """Drop every id issued to `chat_id`; how many."""
        ...

    async def close(self) -> None:
        """Let go of the store."""
        ...


class SqliteSourceLinks:
    """The ids behind source buttons, kept in one SQLite file; it opens on first use.

    `clock` gives Unix time (tests move it); ids older than `lifetime_s` are not found.
    """

    def __init__(
        self,
        path: Path,
        *,
        lifetime_s: float = LIFETIME_S,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._lifetime = lifetime_s
        self._clock = clock
        self._db = SqliteThread(path, _connect, name="source links database")

    @property
    def path(self) -> Path:
        """Where the database lives."""
        return self._db.path

    async def issue(self, chat_id: int, paths: Sequence[str]) -> list[str]:
        """A new id for each path, in order, pressable in `chat_id`; expired ids are dropped."""
        now = self._clock()
        return await self._db.run(lambda db: self._issue(db, chat_id, paths, now))

    async def find(self, link_id: str) -> SourceLink | None:
        """What `link_id` stands for; None when it is unknown, malformed or expired."""
        if not is_link_id(link_id):
            return None
        row = await self._db.run(
            lambda db: db.execute(
                "SELECT path, chat_id, created_at FROM source_links WHERE id = ?", (link_id,)
            ).fetchone()
        )
        if row is None:
            return None
        link = SourceLink(str(row[0]), int(row[1]), float(row[2]))
        if self._clock() - link.created_at > self._lifetime:
            return None
        return link

    async def forget_chat(self, chat_id: int) -> int:
        """Drop every id issued to `chat_id` (a private chat is its user's own); how many."""
        return await self._db.run(
            lambda db: (
                db.execute("DELETE FROM source_links WHERE chat_id = ?", (chat_id,)).rowcount
            )
        )

    async def close(self) -> None:
        """Close the database; work already asked for finishes first."""
        await self._db.close()

    # --- on the worker thread ------------------------------------------------------------
    def _issue(
        self, db: sqlite3.Connection, chat_id: int, paths: Sequence[str], now: float
    ) -> list[str]:
        ids = []
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("DELETE FROM source_links WHERE created_at < ?", (now - self._lifetime,))
            for path in paths:
                ids.append(_insert(db, path, chat_id, now))
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
        return ids


def _connect(path: Path) -> sqlite3.Connection:
    """Open (and if needed create) the database; transactions are explicit."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, timeout=10.0, isolation_level=None, check_same_thread=False)
    try:
        db.executescript(_SCHEMA)
    except BaseException:
        db.close()
        raise
    return db


def _insert(db: sqlite3.Connection, path: str, chat_id: int, now: float) -> str:
    """Store one link under a fresh random id (a clash, however unlikely, draws again)."""
    for _ in range(_NEW_ID_ATTEMPTS):
        link_id = secrets.token_urlsafe(ID_BYTES)
        cursor = db.execute(
            "INSERT OR IGNORE INTO source_links (id, path, chat_id, created_at) "
            "VALUES (?, ?, ?, ?)",
            (link_id, path, chat_id, now),
        )
        if cursor.rowcount == 1:
            return link_id
    msg = "no free id for a source link"
    raise sqlite3.IntegrityError(msg)
