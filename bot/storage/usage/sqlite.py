"""`UsageStore` in one SQLite file in DATA_DIR, worked on by one thread (the storage's
`SqliteThread`): a reservation's check and write are one transaction on that thread, so no
other question of this process comes between them. A file from before uses were marked
estimated gets its `estimated` column from the DATA_DIR upgrade step (`bot.datadir.steps`)."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bot.storage.sqlite_thread import SqliteThread, transaction
from bot.storage.usage import (
    STALE_AFTER_S,
    Allowance,
    Refusal,
    Tokens,
    UsageSum,
    Use,
    Who,
)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS usage (
    id INTEGER PRIMARY KEY,
    question TEXT UNIQUE,
    user_id INTEGER,
    chat_id INTEGER,
    model TEXT NOT NULL,
    kind TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    cached_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    at REAL NOT NULL,
    done INTEGER NOT NULL,
    estimated INTEGER NOT NULL DEFAULT 0,
    thread_id INTEGER,
    image_tokens INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS usage_by_user ON usage (user_id, at);
CREATE INDEX IF NOT EXISTS usage_by_chat ON usage (chat_id, at);
CREATE INDEX IF NOT EXISTS usage_by_time ON usage (at);
CREATE TABLE IF NOT EXISTS usage_warnings (
    subject TEXT NOT NULL,
    period TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (subject, period)
);
"""

_COLUMN = {"user": "user_id", "chat": "chat_id"}
_ESTIMATED = (
    "coalesce(sum(CASE WHEN estimated THEN prompt_tokens + completion_tokens ELSE 0 END), 0)"
)


class SqliteUsage:
    """Model use in one SQLite file; it opens on first use. `clock` gives Unix time."""

    def __init__(self, path: Path, *, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._db = SqliteThread(path, _SCHEMA, name="model usage")

    @property
    def path(self) -> Path:
        """Where the database lives."""
        return self._db.path

    async def reserve(
        self, question: str, *, user_id: int, chat_id: int, allowances: Sequence[Allowance]
    ) -> Refusal | None:
        """Check every allowance and write the reservation in one transaction."""
        now = self._clock()
        return await self._db.run(
            lambda db: _reserve(
                db, question, user_id=user_id, chat_id=chat_id, allowances=allowances, now=now
            )
        )

    async def record(self, use: Use) -> bool:
        """Fill the question's reservation in, or add a row of its own."""
        now = self._clock()
        return await self._db.run(lambda db: _record(db, use, now))

    async def release(self, question: str) -> None:
        """Drop an unfilled reservation."""
        await self._db.run(
            lambda db: (
                db.execute(
                    "DELETE FROM usage WHERE question = ? AND done = 0", (question,)
                ).rowcount
            )
        )

    async def spent(self, *, who: Who, id: int, since: float) -> Tokens:
        """Tokens recorded for one user or chat since `since`."""
        row = await self._db.run(
            lambda db: db.execute(
                "SELECT coalesce(sum(prompt_tokens), 0), coalesce(sum(cached_tokens), 0), "
                f"coalesce(sum(completion_tokens), 0), {_ESTIMATED}, "
                "coalesce(sum(image_tokens), 0) FROM usage "
                f"WHERE {_COLUMN[who]} = ? AND at >= ? AND done = 1",
                (id, since),
            ).fetchone()
        )
        return Tokens(int(row[0]), int(row[1]), int(row[2]), int(row[3]), int(row[4]))

    async def sums(self, since: float, *, utc_offset_s: float = 0.0) -> list[UsageSum]:
        """Recorded use since `since`, per user, chat, model, kind and day."""
        rows = await self._db.run(
            lambda db: db.execute(
                "SELECT user_id, chat_id, model, kind, CAST((at + ?) / 86400 AS INTEGER) AS day, "
                f"sum(prompt_tokens), sum(cached_tokens), sum(completion_tokens), {_ESTIMATED}, "
                "thread_id, sum(image_tokens) FROM usage WHERE at >= ? AND done = 1 "
                "GROUP BY user_id, chat_id, thread_id, model, kind, day",
                (utc_offset_s, since),
            ).fetchall()
        )
        return [
            UsageSum(u, c, str(m), k, int(d), Tokens(int(p), int(ca), int(co), int(e), int(i)), t)
            for u, c, m, k, d, p, ca, co, e, t, i in rows
        ]

    async def claim_warning(self, subject: str, period: str) -> bool:
        """Insert the warning's row; True when it was not there yet."""
        now = self._clock()
        return await self._db.run(
            lambda db: (
                db.execute(
                    "INSERT INTO usage_warnings (subject, period, at) VALUES (?, ?, ?) "
                    "ON CONFLICT DO NOTHING",
                    (subject, period, now),
                ).rowcount
                == 1
            )
        )

    async def delete_older(self, cutoff: float) -> int:
        """Delete uses and warnings before `cutoff`; how many uses."""
        return await self._db.run(lambda db: _delete_older(db, cutoff))

    async def close(self) -> None:
        """Close the database; work already asked for finishes first."""
        await self._db.close()


def _reserve(
    db: sqlite3.Connection,
    question: str,
    *,
    user_id: int,
    chat_id: int,
    allowances: Sequence[Allowance],
    now: float,
) -> Refusal | None:
    with transaction(db):
        if db.execute("SELECT 1 FROM usage WHERE question = ?", (question,)).fetchone():
            return None
        for allowance in allowances:
            column = _COLUMN[allowance.who]
            used, in_flight = db.execute(
                "SELECT coalesce(sum(CASE WHEN done = 1 AND at >= ? "
                "THEN prompt_tokens + completion_tokens ELSE 0 END), 0), "
                "coalesce(sum(CASE WHEN done = 0 AND at >= ? THEN 1 ELSE 0 END), 0) "
                f"FROM usage WHERE {column} = ?",
                (allowance.since, now - STALE_AFTER_S, allowance.id),
            ).fetchone()
            if used >= allowance.tokens:
                return Refusal(allowance)
            if in_flight and used >= allowance.near:
                return Refusal(allowance, busy=True)
        db.execute(
            "INSERT INTO usage (question, user_id, chat_id, model, kind, prompt_tokens, "
            "cached_tokens, completion_tokens, at, done) "
            "VALUES (?, ?, ?, '', 'answer', 0, 0, 0, ?, 0)",
            (question, user_id, chat_id, now),
        )
        return None


def _record(db: sqlite3.Connection, use: Use, now: float) -> bool:
    tokens = use.tokens
    values = (
        use.model,
        use.kind,
        tokens.prompt,
        tokens.cached,
        tokens.completion,
        int(use.estimated),
        now,
        tokens.images,
    )
    with transaction(db):
        if use.question is not None:
            filled = db.execute(
                "UPDATE usage SET model = ?, kind = ?, prompt_tokens = ?, cached_tokens = ?, "
                "completion_tokens = ?, estimated = ?, at = ?, image_tokens = ?, done = 1, "
                "thread_id = ? WHERE question = ? AND done = 0",
                (*values, use.thread_id, use.question),
            ).rowcount
            if filled:
                return True
        added = db.execute(
            "INSERT INTO usage (model, kind, prompt_tokens, cached_tokens, completion_tokens, "
            "estimated, at, image_tokens, question, user_id, chat_id, done, thread_id) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?) ON CONFLICT DO NOTHING",
            (*values, use.question, use.user_id, use.chat_id, use.thread_id),
        ).rowcount
        return bool(added)


def _delete_older(db: sqlite3.Connection, cutoff: float) -> int:
    with transaction(db):
        db.execute("DELETE FROM usage_warnings WHERE at < ?", (cutoff,))
        return int(db.execute("DELETE FROM usage WHERE at < ?", (cutoff,)).rowcount)
