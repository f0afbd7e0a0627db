"""`SourceLinks` in one small SQLite file in DATA_DIR, on the storage's one SQLite thread, in
the order the work was asked for, so the event loop never waits for the disk."""

from __future__ import annotations

import secrets
import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

from bot.storage.source_links import (
    ID_BYTES,
    LIFETIME_S,
    NEW_ID_ATTEMPTS,
    SourceLink,
    is_link_id,
)
from bot.storage.sqlite_thread import SqliteThread, transaction

_SCHEMA = """
CREATE TABLE IF NOT EXISTS source_links (
    id TEXT PRIMARY KEY,
    path TEXT NOT NULL,
    chat_id INTEGER NOT NULL,
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS source_links_created ON source_links (created_at);
CREATE TABLE IF NOT EXISTS page_links (
    id TEXT PRIMARY KEY,
    path TEXT NOT NULL,
    page INTEGER NOT NULL,
    chat_id INTEGER NOT NULL,
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS page_links_created ON page_links (created_at);
"""


_Table = Literal["source_links", "page_links"]
_TABLES: tuple[_Table, ...] = ("source_links", "page_links")


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
        self._db = SqliteThread(path, _SCHEMA, name="source links database")

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
        return self._live(SourceLink(str(row[0]), int(row[1]), float(row[2])))

    async def issue_pages(self, chat_id: int, pages: Sequence[tuple[str, int]]) -> list[str]:
        """A new id for each (path, page), in order, pressable in `chat_id`; expired ids are
        dropped."""
        now = self._clock()
        return await self._db.run(lambda db: self._issue_pages(db, chat_id, pages, now))

    async def find_page(self, link_id: str) -> SourceLink | None:
        """The page `link_id` stands for; None when it is unknown, malformed or expired."""
        if not is_link_id(link_id):
            return None
        row = await self._db.run(
            lambda db: db.execute(
                "SELECT path, chat_id, created_at, page FROM page_links WHERE id = ?",
                (link_id,),
            ).fetchone()
        )
        if row is None:
            return None
        return self._live(SourceLink(str(row[0]), int(row[1]), float(row[2]), int(row[3])))

    async def forget_chat(self, chat_id: int) -> int:
        """Drop every id issued to `chat_id` (a private chat is its user's own), pages' too;
        how many."""
        return await self._db.run(lambda db: self._forget(db, chat_id))

    def _live(self, link: SourceLink) -> SourceLink | None:
        return None if self._clock() - link.created_at > self._lifetime else link

    async def close(self) -> None:
        """Close the database; work already asked for finishes first."""
        await self._db.close()

    # --- on the worker thread ------------------------------------------------------------
    def _issue(
        self, db: sqlite3.Connection, chat_id: int, paths: Sequence[str], now: float
    ) -> list[str]:
        with transaction(db):
            db.execute("DELETE FROM source_links WHERE created_at < ?", (now - self._lifetime,))
            return [_insert(db, "source_links", (path,), chat_id, now) for path in paths]

    def _issue_pages(
        self, db: sqlite3.Connection, chat_id: int, pages: Sequence[tuple[str, int]], now: float
    ) -> list[str]:
        with transaction(db):
            db.execute("DELETE FROM page_links WHERE created_at < ?", (now - self._lifetime,))
            return [_insert(db, "page_links", page, chat_id, now) for page in pages]

    @staticmethod
    def _forget(db: sqlite3.Connection, chat_id: int) -> int:
        with transaction(db):
            return sum(
                db.execute(f"DELETE FROM {table} WHERE chat_id = ?", (chat_id,)).rowcount
                for table in _TABLES
            )


def _insert(
    db: sqlite3.Connection,
    table: _Table,
    what: tuple[str] | tuple[str, int],
    chat_id: int,
    now: float,
) -> str:
    """Store one link (a path, or a path and a page) under a fresh random id (a clash,
    however unlikely, draws again)."""
    columns = "path" if len(what) == 1 else "path, page"
    marks = ", ".join("?" * len(what))
    for _ in range(NEW_ID_ATTEMPTS):
        link_id = secrets.token_urlsafe(ID_BYTES)
        cursor = db.execute(
            f"INSERT OR IGNORE INTO {table} (id, {columns}, chat_id, created_at) "
            f"VALUES (?, {marks}, ?, ?)",
            (link_id, *what, chat_id, now),
        )
        if cursor.rowcount == 1:
            return link_id
    msg = "no free id for a source link"
    raise sqlite3.IntegrityError(msg)
