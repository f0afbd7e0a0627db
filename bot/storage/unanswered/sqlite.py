"""`UnansweredLog` in one small SQLite file in DATA_DIR, worked on by one thread (the storage's
`SqliteThread`); one process sends the digest, and the claim is still one conditional write."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bot.storage.sqlite_thread import SqliteThread, erase, transaction
from bot.storage.unanswered import (
    MAX_READ,
    Reason,
    UnansweredQuestion,
    bounded,
    files_json,
    files_of,
)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS unanswered (
    id INTEGER PRIMARY KEY,
    question TEXT NOT NULL,
    chat_id INTEGER NOT NULL,
    user_id INTEGER,
    conversation TEXT NOT NULL,
    language TEXT NOT NULL,
    reason TEXT NOT NULL,
    asked_at REAL NOT NULL,
    files TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX IF NOT EXISTS unanswered_by_time ON unanswered (asked_at);
CREATE INDEX IF NOT EXISTS unanswered_by_user ON unanswered (user_id);
CREATE TABLE IF NOT EXISTS gaps_digest (
    name TEXT PRIMARY KEY,
    last_due REAL NOT NULL
);
"""

_COLUMNS = "question, chat_id, user_id, conversation, language, reason, asked_at, files"


class SqliteUnanswered:
    """Unanswered questions in one SQLite file; it opens on first use. `clock` gives Unix
    time."""

    def __init__(self, path: Path, *, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._db = SqliteThread(path, _SCHEMA, name="unanswered questions")

    @property
    def path(self) -> Path:
        """Where the database lives."""
        return self._db.path

    async def mark(
        self,
        question: str,
        *,
        chat_id: int,
        user_id: int | None,
        conversation: str,
        language: str,
        reason: Reason,
        files: Sequence[str] = (),
    ) -> None:
        """Keep one question, stamped now, committed before this returns."""
        row = (
            bounded(question),
            chat_id,
            user_id,
            conversation,
            language,
            reason,
            self._clock(),
            files_json(files),
        )
        await self._db.run(
            lambda db: db.execute(
                f"INSERT INTO unanswered ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", row
            )
        )

    async def since(self, start: float, end: float | None = None) -> list[UnansweredQuestion]:
        """Questions marked in [start, end), oldest first; the newest `MAX_READ` of them."""
        rows = await self._db.run(
            lambda db: db.execute(
                f"SELECT {_COLUMNS} FROM unanswered WHERE asked_at >= ? AND asked_at < ? "
                "ORDER BY asked_at DESC, id DESC LIMIT ?",
                (start, float("inf") if end is None else end, MAX_READ),
            ).fetchall()
        )
        return [
            UnansweredQuestion(str(q), int(c), u, str(k), str(lang), r, float(at), files_of(f))
            for q, c, u, k, lang, r, at, f in reversed(rows)
        ]

    async def delete_older(self, cutoff: float) -> int:
        """Delete questions marked before `cutoff`; how many."""
        return await self._db.run(
            lambda db: db.execute("DELETE FROM unanswered WHERE asked_at < ?", (cutoff,)).rowcount
        )

    async def forget_user(self, user_id: int) -> int:
        """Delete every question one person asked; how many."""
        return await self._db.run(
            lambda db: erase(db, "DELETE FROM unanswered WHERE user_id = ?", (user_id,))
        )

    async def claim_digest(self, due: float) -> float | None:
        """Move the digest's row forward to `due` if it is behind; what it held, or None."""
        return await self._db.run(lambda db: _claim(db, due))

    async def close(self) -> None:
        """Close the database; work already asked for finishes first."""
        await self._db.close()


def _claim(db: sqlite3.Connection, due: float) -> float | None:
    with transaction(db):
        row = db.execute("SELECT last_due FROM gaps_digest WHERE name = 'digest'").fetchone()
        before = 0.0 if row is None else float(row[0])
        if before >= due:
            return None
        db.execute(
            "INSERT INTO gaps_digest (name, last_due) VALUES ('digest', ?) "
            "ON CONFLICT (name) DO UPDATE SET last_due = excluded.last_due",
            (due,),
        )
        return before
