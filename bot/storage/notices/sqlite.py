"""`NoticeStore` in one small SQLite file in DATA_DIR, worked on by one thread (the storage's
`SqliteThread`); one process sends the digests, and each claim is still one conditional
write."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bot.storage.notices import MAX_READ, Change, NoticedChange, Snapshot, Subscription
from bot.storage.sqlite_thread import SqliteThread, transaction

_SCHEMA = """
CREATE TABLE IF NOT EXISTS notice_subscriptions (
    chat_id INTEGER NOT NULL,
    thread_id INTEGER NOT NULL,
    folder TEXT NOT NULL,
    user_id INTEGER,
    language TEXT NOT NULL,
    sent_through INTEGER NOT NULL,
    subscribed_by INTEGER,
    PRIMARY KEY (chat_id, thread_id, folder)
);
CREATE INDEX IF NOT EXISTS notice_subscriptions_by_user ON notice_subscriptions (user_id);
CREATE TABLE IF NOT EXISTS notice_changes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    path TEXT NOT NULL,
    kind TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    noticed_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS notice_changes_by_path ON notice_changes (path, id);
CREATE INDEX IF NOT EXISTS notice_changes_by_time ON notice_changes (noticed_at);
CREATE TABLE IF NOT EXISTS notice_files (
    path TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS notice_files_remembered (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    remembered_at REAL NOT NULL
);
"""

_SUBSCRIPTION = "chat_id, thread_id, folder, user_id, language, sent_through, subscribed_by"
NO_TOPIC = 0
"""The topic column of a chat without topics (a key column cannot be NULL)."""


class SqliteNotices:
    """Subscriptions and changes in one SQLite file; it opens on first use. `clock` gives
    Unix time."""

    def __init__(self, path: Path, *, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._db = SqliteThread(path, _SCHEMA, name="change notices")

    @property
    def path(self) -> Path:
        """Where the database lives."""
        return self._db.path

    async def subscribe(
        self,
        chat_id: int,
        folder: str,
        *,
        thread_id: int | None = None,
        user_id: int | None,
        language: str,
        subscribed_by: int | None = None,
    ) -> bool:
        """Subscribe from the next change on; False (language updated) when it already was."""
        key = (chat_id, thread_id or NO_TOPIC, folder)
        return await self._db.run(lambda db: _subscribe(db, key, user_id, language, subscribed_by))

    async def unsubscribe(
        self, chat_id: int, folder: str | None = None, *, thread_id: int | None = None
    ) -> int:
        """End one subscription of a chat (a topic), or all of them; how many ended."""
        return await self._db.run(
            lambda db: (
                db.execute(
                    "DELETE FROM notice_subscriptions "
                    "WHERE chat_id = ? AND thread_id = ? AND (? IS NULL OR folder = ?)",
                    (chat_id, thread_id or NO_TOPIC, folder, folder),
                ).rowcount
            )
        )

    async def of_chat(self, chat_id: int, thread_id: int | None = None) -> list[Subscription]:
        """A chat's (a topic's) subscriptions, by folder."""
        rows = await self._db.run(
            lambda db: db.execute(
                f"SELECT {_SUBSCRIPTION} FROM notice_subscriptions "
                "WHERE chat_id = ? AND thread_id = ? ORDER BY folder",
                (chat_id, thread_id or NO_TOPIC),
            ).fetchall()
        )
        return [_subscription(row) for row in rows]

    async def subscriptions(self) -> list[Subscription]:
        """Every subscription, by chat, topic and folder."""
        rows = await self._db.run(
            lambda db: db.execute(
                f"SELECT {_SUBSCRIPTION} FROM notice_subscriptions "
                "ORDER BY chat_id, thread_id, folder"
            ).fetchall()
        )
        return [_subscription(row) for row in rows]

    async def record(self, changes: Sequence[Change]) -> int:
        """Keep the changes not kept already, stamped now; how many."""
        now = self._clock()
        return await self._db.run(lambda db: _record(db, changes, now))

    async def remembered_folder(self) -> Snapshot | None:
        """The folder as the recorded changes leave it; None before it was remembered."""
        return await self._db.run(_remembered_folder)

    async def remember_folder(self, files: Snapshot) -> bool:
        """Remember the folder as `files`, unless one is remembered already."""
        now = self._clock()
        return await self._db.run(lambda db: _remember_folder(db, files, now))

    async def since(self, after: int) -> list[NoticedChange]:
        """Changes with an id above `after`, oldest first; at most `MAX_READ`."""
        rows = await self._db.run(
            lambda db: db.execute(
                "SELECT id, path, kind, size, mtime_ns, noticed_at FROM notice_changes "
                "WHERE id > ? ORDER BY id LIMIT ?",
                (after, MAX_READ),
            ).fetchall()
        )
        return [
            NoticedChange(int(i), Change(str(p), k, int(s), int(m)), float(at))
            for i, p, k, s, m, at in rows
        ]

    async def claim(self, subscription: Subscription, through: int) -> bool:
        """Move `sent_through` to `through`, if it still holds what `subscription` read."""
        key = (
            subscription.chat_id,
            subscription.thread_id or NO_TOPIC,
            subscription.folder,
            subscription.sent_through,
        )
        moved = await self._db.run(
            lambda db: (
                db.execute(
                    "UPDATE notice_subscriptions SET sent_through = ? "
                    "WHERE chat_id = ? AND thread_id = ? AND folder = ? AND sent_through = ?",
                    (through, *key),
                ).rowcount
            )
        )
        return bool(moved)

    async def delete_older(self, cutoff: float) -> int:
        """Delete changes noticed before `cutoff`; how many."""
        return await self._db.run(
            lambda db: (
                db.execute("DELETE FROM notice_changes WHERE noticed_at < ?", (cutoff,)).rowcount
            )
        )

    async def forget_user(self, user_id: int) -> int:
        """Delete one person's own subscriptions; how many."""
        return await self._db.run(
            lambda db: (
                db.execute(
                    "DELETE FROM notice_subscriptions WHERE user_id = ?", (user_id,)
                ).rowcount
            )
        )

    async def close(self) -> None:
        """Close the database; work already asked for finishes first."""
        await self._db.close()


def _subscription(row: tuple[int, int, str, int | None, str, int, int | None]) -> Subscription:
    chat_id, thread_id, folder, user_id, language, sent_through, by = row
    return Subscription(
        int(chat_id),
        thread_id or None,
        str(folder),
        user_id,
        str(language),
        int(sent_through),
        by,
    )


def _subscribe(
    db: sqlite3.Connection,
    key: tuple[int, int, str],
    user_id: int | None,
    language: str,
    subscribed_by: int | None,
) -> bool:
    with transaction(db):
        updated = db.execute(
            "UPDATE notice_subscriptions SET language = ? "
            "WHERE chat_id = ? AND thread_id = ? AND folder = ?",
            (language, *key),
        ).rowcount
        if updated:
            return False
        db.execute(
            f"INSERT INTO notice_subscriptions ({_SUBSCRIPTION}) VALUES (?, ?, ?, ?, ?, "
            "(SELECT coalesce(max(id), 0) FROM notice_changes), ?)",
            (*key, user_id, language, subscribed_by),
        )
        return True


def _record(db: sqlite3.Connection, changes: Sequence[Change], now: float) -> int:
    kept = 0
    with transaction(db):
        for change in changes:
            latest = db.execute(
                "SELECT kind, size, mtime_ns FROM notice_changes WHERE path = ? "
                "ORDER BY id DESC LIMIT 1",
                (change.path,),
            ).fetchone()
            _apply(db, change)  # a change kept already still says what the folder holds
            if latest == (change.kind, change.size, change.mtime_ns):
                continue
            db.execute(
                "INSERT INTO notice_changes (path, kind, size, mtime_ns, noticed_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (change.path, change.kind, change.size, change.mtime_ns, now),
            )
            kept += 1
    return kept


def _apply(db: sqlite3.Connection, change: Change) -> None:
    """Bring the remembered folder up to `change`."""
    if change.kind == "removed":
        db.execute("DELETE FROM notice_files WHERE path = ?", (change.path,))
    else:
        db.execute(
            "INSERT INTO notice_files (path, size, mtime_ns) VALUES (?, ?, ?) "
            "ON CONFLICT (path) DO UPDATE SET size = excluded.size, mtime_ns = excluded.mtime_ns",
            (change.path, change.size, change.mtime_ns),
        )


def _remembered_folder(db: sqlite3.Connection) -> Snapshot | None:
    with transaction(db):
        if db.execute("SELECT 1 FROM notice_files_remembered").fetchone() is None:
            return None
        rows = db.execute("SELECT path, size, mtime_ns FROM notice_files").fetchall()
    return {str(path): (int(size), int(mtime_ns)) for path, size, mtime_ns in rows}


def _remember_folder(db: sqlite3.Connection, files: Snapshot, now: float) -> bool:
    with transaction(db):
        taken = db.execute(
            "INSERT INTO notice_files_remembered (id, remembered_at) VALUES (1, ?) "
            "ON CONFLICT (id) DO NOTHING",
            (now,),
        ).rowcount
        if not taken:
            return False
        db.execute("DELETE FROM notice_files")
        db.executemany(
            "INSERT INTO notice_files (path, size, mtime_ns) VALUES (?, ?, ?)",
            ((path, size, mtime_ns) for path, (size, mtime_ns) in files.items()),
        )
        return True
