"""`ExpertRequests` in one small SQLite file in DATA_DIR, on the storage's one SQLite thread;
each claim is one conditional write, so a double tap moves a request (or a reply) once."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bot.storage.experts import (
    QUESTION_CHARS,
    REPLY_CHARS,
    SAVING,
    Asked,
    ExpertReply,
    ExpertRequest,
)
from bot.storage.experts.rows import REPLY_COLUMNS, REQUEST_COLUMNS, reply_of, request_of
from bot.storage.sqlite_thread import SqliteThread, transaction

_SCHEMA = """
CREATE TABLE IF NOT EXISTS expert_requests (
    id TEXT PRIMARY KEY,
    chat_id INTEGER NOT NULL,
    user_id INTEGER NOT NULL,
    question TEXT NOT NULL,
    language TEXT NOT NULL,
    thread_id INTEGER,
    reply_to INTEGER,
    state TEXT NOT NULL,
    created_at REAL NOT NULL,
    asker_name TEXT,
    experts_chat_id INTEGER,
    experts_message_id INTEGER
);
CREATE INDEX IF NOT EXISTS expert_requests_by_message
    ON expert_requests (experts_chat_id, experts_message_id);
CREATE INDEX IF NOT EXISTS expert_requests_by_user ON expert_requests (user_id);
CREATE INDEX IF NOT EXISTS expert_requests_by_created ON expert_requests (created_at);
CREATE TABLE IF NOT EXISTS expert_replies (
    request_id TEXT NOT NULL,
    message_id INTEGER NOT NULL,
    expert_id INTEGER NOT NULL,
    expert_name TEXT NOT NULL,
    text TEXT NOT NULL,
    replied_at REAL NOT NULL,
    saved_as TEXT,
    PRIMARY KEY (request_id, message_id)
);
CREATE INDEX IF NOT EXISTS expert_replies_by_expert ON expert_replies (expert_id);
"""


class SqliteExpertRequests:
    """Requests to the experts and their replies in one SQLite file; it opens on first use.
    `clock` gives Unix time (tests move it)."""

    def __init__(self, path: Path, *, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._db = SqliteThread(path, _SCHEMA, name="expert requests")

    @property
    def path(self) -> Path:
        """Where the database lives."""
        return self._db.path

    async def start(self, request_id: str, asked: Asked) -> ExpertRequest:
        """The request: made now in `asking`, or the one made before."""
        row = (
            request_id,
            asked.chat_id,
            asked.user_id,
            asked.question[:QUESTION_CHARS],
            asked.language,
            asked.thread_id,
            asked.reply_to,
            self._clock(),
        )

        def work(db: sqlite3.Connection) -> ExpertRequest:
            with transaction(db):
                db.execute(
                    "INSERT OR IGNORE INTO expert_requests (id, chat_id, user_id, question, "
                    "language, thread_id, reply_to, state, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, 'asking', ?)",
                    row,
                )
                found = _request(db, "id = ?", (request_id,))
            assert found is not None  # written or found in the same transaction
            return found

        return await self._db.run(work)

    async def find(self, request_id: str) -> ExpertRequest | None:
        """The request `request_id`; None when unknown or deleted."""
        return await self._db.run(lambda db: _request(db, "id = ?", (request_id,)))

    async def claim(self, request_id: str, asker_name: str | None) -> bool:
        """`asking` → `sending` with the name to show; False for any other state."""
        return await self._changed(
            "UPDATE expert_requests SET state = 'sending', asker_name = ? "
            "WHERE id = ? AND state = 'asking'",
            (asker_name, request_id),
        )

    async def release(self, request_id: str) -> None:
        """A send that failed: back to `asking`."""
        await self._changed(
            "UPDATE expert_requests SET state = 'asking', asker_name = NULL "
            "WHERE id = ? AND state = 'sending'",
            (request_id,),
        )

    async def sent(self, request_id: str, experts_chat_id: int, experts_message_id: int) -> None:
        """The request's message is in the experts' chat."""
        await self._changed(
            "UPDATE expert_requests SET state = 'sent', experts_chat_id = ?, "
            "experts_message_id = ? WHERE id = ?",
            (experts_chat_id, experts_message_id, request_id),
        )

    async def by_message(self, experts_chat_id: int, message_id: int) -> ExpertRequest | None:
        """The request whose message in the experts' chat is `message_id`."""
        return await self._db.run(
            lambda db: _request(
                db,
                "experts_chat_id = ? AND experts_message_id = ?",
                (experts_chat_id, message_id),
            )
        )

    async def add_reply(self, reply: ExpertReply) -> None:
        """Keep an expert's reply, once."""
        row = (
            reply.request_id,
            reply.message_id,
            reply.expert_id,
            reply.expert_name,
            reply.text[:REPLY_CHARS],
            reply.replied_at,
            reply.saved_as,
        )
        await self._changed(
            f"INSERT OR IGNORE INTO expert_replies ({REPLY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
            row,
        )

    async def reply(self, request_id: str, message_id: int) -> ExpertReply | None:
        """The reply `message_id` to the request `request_id`."""

        def work(db: sqlite3.Connection) -> ExpertReply | None:
            row = db.execute(
                f"SELECT {REPLY_COLUMNS} FROM expert_replies "
                "WHERE request_id = ? AND message_id = ?",
                (request_id, message_id),
            ).fetchone()
            return None if row is None else reply_of(row)

        return await self._db.run(work)

    async def claim_saving(self, request_id: str, message_id: int) -> bool:
        """Mark a reply as being saved; False when saved or being saved already."""
        return await self._changed(
            "UPDATE expert_replies SET saved_as = ? "
            "WHERE request_id = ? AND message_id = ? AND saved_as IS NULL",
            (SAVING, request_id, message_id),
        )

    async def saved(self, request_id: str, message_id: int, path: str | None) -> None:
        """Saved as `path`, or (None) free to be tried again."""
        await self._changed(
            "UPDATE expert_replies SET saved_as = ? WHERE request_id = ? AND message_id = ?",
            (path, request_id, message_id),
        )

    async def forget_user(self, user_id: int) -> int:
        """Delete the requests `user_id` asked (with their replies) and their own replies."""

        def work(db: sqlite3.Connection) -> int:
            with transaction(db):
                replies = db.execute(
                    "DELETE FROM expert_replies WHERE expert_id = ? OR request_id IN "
                    "(SELECT id FROM expert_requests WHERE user_id = ?)",
                    (user_id, user_id),
                ).rowcount
                requests = db.execute(
                    "DELETE FROM expert_requests WHERE user_id = ?", (user_id,)
                ).rowcount
            return int(requests) + int(replies)

        return await self._db.run(work)

    async def delete_older(self, cutoff: float) -> int:
        """Delete requests made before `cutoff`, with their replies; how many requests."""

        def work(db: sqlite3.Connection) -> int:
            with transaction(db):
                db.execute(
                    "DELETE FROM expert_replies WHERE request_id IN "
                    "(SELECT id FROM expert_requests WHERE created_at < ?)",
                    (cutoff,),
                )
                return int(
                    db.execute(
                        "DELETE FROM expert_requests WHERE created_at < ?", (cutoff,)
                    ).rowcount
                )

        return await self._db.run(work)

    async def close(self) -> None:
        """Close the database; work already asked for finishes first."""
        await self._db.close()

    async def _changed(self, statement: str, args: Sequence[object]) -> bool:
        return bool(await self._db.run(lambda db: db.execute(statement, args).rowcount))


def _request(db: sqlite3.Connection, where: str, args: Sequence[object]) -> ExpertRequest | None:
    row = db.execute(
        f"SELECT {REQUEST_COLUMNS} FROM expert_requests WHERE {where}", args
    ).fetchone()
    return None if row is None else request_of(row)
