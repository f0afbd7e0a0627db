"""`FeedbackStore` in one small SQLite file in DATA_DIR, on the storage's one SQLite thread, so
the event loop never waits for the disk."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bot.storage.feedback import (
    COMMENT_CHARS,
    Answered,
    FeedbackRecord,
    Reason,
    Vote,
    is_answer_id,
)
from bot.storage.feedback.rows import COLUMNS, WRITTEN, record_of, vote_of, written
from bot.storage.sqlite_thread import SqliteThread, erase

_SCHEMA = """
CREATE TABLE IF NOT EXISTS feedback (
    id TEXT PRIMARY KEY,
    chat_id INTEGER NOT NULL,
    user_id INTEGER NOT NULL,
    conversation TEXT NOT NULL,
    question TEXT NOT NULL,
    answer TEXT NOT NULL,
    files TEXT NOT NULL,
    model TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    seconds REAL NOT NULL,
    created_at REAL NOT NULL,
    vote TEXT CHECK (vote IN ('up', 'down')),
    voted_at REAL,
    reason TEXT,
    comment TEXT NOT NULL DEFAULT '',
    prompt_message_id INTEGER
);
CREATE INDEX IF NOT EXISTS feedback_by_user ON feedback (user_id);
CREATE INDEX IF NOT EXISTS feedback_by_created ON feedback (created_at);
CREATE INDEX IF NOT EXISTS feedback_by_vote ON feedback (vote, voted_at);
CREATE INDEX IF NOT EXISTS feedback_by_prompt ON feedback (chat_id, prompt_message_id);
"""


class SqliteFeedback:
    """Answers and their votes in one SQLite file; it opens on first use. `clock` gives Unix
    time (tests move it)."""

    def __init__(self, path: Path, *, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._db = SqliteThread(path, _SCHEMA, name="feedback database")

    @property
    def path(self) -> Path:
        """Where the database lives."""
        return self._db.path

    async def record(self, answer_id: str, answered: Answered) -> None:
        """Write a delivered answer under `answer_id`, stamped now (text cut to the bounds)."""
        row = written(answer_id, answered, self._clock())
        await self._db.run(
            lambda db: db.execute(
                f"INSERT INTO feedback ({WRITTEN}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                row,
            )
        )

    async def find(self, answer_id: str) -> FeedbackRecord | None:
        """The answer `answer_id` names; None when it is unknown, malformed or deleted."""
        if not is_answer_id(answer_id):
            return None
        return await self._db.run(lambda db: _one(db, "id = ?", (answer_id,)))

    async def vote(self, answer_id: str, vote: Vote) -> FeedbackRecord | None:
        """Set (or change) the vote, stamped now; a 👍 drops a 👎's reason and comment."""
        if not is_answer_id(answer_id):
            return None
        now = self._clock()

        def work(db: sqlite3.Connection) -> FeedbackRecord | None:
            db.execute(
                "UPDATE feedback SET vote = ?, voted_at = ?, "
                "reason = CASE WHEN ? = 'up' THEN NULL ELSE reason END, "
                "comment = CASE WHEN ? = 'up' THEN '' ELSE comment END WHERE id = ?",
                (vote, now, vote, vote, answer_id),
            )
            return _one(db, "id = ?", (answer_id,))

        return await self._db.run(work)

    async def mark_asked(self, answer_id: str, prompt_message_id: int) -> bool:
        """Note the "what was wrong?" message; False when one was noted before."""
        return await self._changed(
            "UPDATE feedback SET prompt_message_id = ? WHERE id = ? AND prompt_message_id IS NULL",
            (prompt_message_id, answer_id),
        )

    async def set_reason(self, answer_id: str, reason: Reason) -> bool:
        """Set a 👎's reason; False unless the answer's vote is 👎."""
        return await self._changed(
            "UPDATE feedback SET reason = ? WHERE id = ? AND vote = 'down'", (reason, answer_id)
        )

    async def by_prompt(self, chat_id: int, prompt_message_id: int) -> FeedbackRecord | None:
        """The answer whose "what was wrong?" message in `chat_id` is `prompt_message_id`."""
        return await self._db.run(
            lambda db: _one(
                db, "chat_id = ? AND prompt_message_id = ?", (chat_id, prompt_message_id)
            )
        )

    async def set_comment(self, answer_id: str, comment: str) -> bool:
        """Set a 👎's comment (at most `COMMENT_CHARS`); False unless the vote is 👎."""
        return await self._changed(
            "UPDATE feedback SET comment = ? WHERE id = ? AND vote = 'down'",
            (comment[:COMMENT_CHARS], answer_id),
        )

    async def votes_since(self, cutoff: float) -> list[tuple[float, Vote]]:
        """When each vote given since `cutoff` was given, and which."""
        rows = await self._db.run(
            lambda db: db.execute(
                "SELECT voted_at, vote FROM feedback WHERE vote IS NOT NULL AND voted_at >= ?",
                (cutoff,),
            ).fetchall()
        )
        return [(float(at), vote_of(vote)) for at, vote in rows]

    async def disliked(self, limit: int) -> list[FeedbackRecord]:
        """The last `limit` answers voted 👎, newest vote first."""
        return await self._db.run(
            lambda db: [
                record_of(row)
                for row in db.execute(
                    f"SELECT {COLUMNS} FROM feedback WHERE vote = 'down' "
                    "ORDER BY voted_at DESC, rowid DESC LIMIT ?",
                    (limit,),
                )
            ]
        )

    async def forget_user(self, user_id: int) -> int:
        """Delete every answer `user_id` asked for; how many."""
        return await self._db.run(
            lambda db: erase(db, "DELETE FROM feedback WHERE user_id = ?", (user_id,))
        )

    async def delete_older(self, cutoff: float) -> int:
        """Delete answers delivered before `cutoff`; how many."""
        return await self._db.run(
            lambda db: db.execute("DELETE FROM feedback WHERE created_at < ?", (cutoff,)).rowcount
        )

    async def close(self) -> None:
        """Close the database; work already asked for finishes first."""
        await self._db.close()

    async def _changed(self, statement: str, args: Sequence[object]) -> bool:
        return bool(await self._db.run(lambda db: db.execute(statement, args).rowcount))


def _one(db: sqlite3.Connection, where: str, args: Sequence[object]) -> FeedbackRecord | None:
    row = db.execute(f"SELECT {COLUMNS} FROM feedback WHERE {where}", args).fetchone()
    return None if row is None else record_of(row)
