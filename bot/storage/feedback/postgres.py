"""`FeedbackStore` in PostgreSQL, for several workers sharing DATABASE_URL: a tap on any worker
finds the answer another delivered. Each operation is one statement on the shared pool; the
table (`feedback`) comes with the schema's migrations (`bot.storage.migrations`)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from bot.storage.feedback import (
    COMMENT_CHARS,
    Answered,
    FeedbackRecord,
    Reason,
    Vote,
    is_answer_id,
)
from bot.storage.feedback.rows import COLUMNS, WRITTEN, record_of, vote_of, written

if TYPE_CHECKING:
    from bot.storage.postgres import PostgresDatabase


class PostgresFeedback:
    """Answers and their votes in the shared database; `clock` gives Unix time, the same the
    HISTORY_DAYS sweep compares with."""

    def __init__(
        self, database: PostgresDatabase, *, clock: Callable[[], float] = time.time
    ) -> None:
        self._pool = database.pool
        self._clock = clock

    async def record(self, answer_id: str, answered: Answered) -> None:
        """Write a delivered answer under `answer_id`, stamped now (text cut to the bounds)."""
        await self._pool.execute(
            f"INSERT INTO feedback ({WRITTEN}) "
            "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
            *written(answer_id, answered, self._clock()),
        )

    async def find(self, answer_id: str) -> FeedbackRecord | None:
        """The answer `answer_id` names; None when it is unknown, malformed or deleted."""
        if not is_answer_id(answer_id):
            return None
        row = await self._pool.fetchrow(f"SELECT {COLUMNS} FROM feedback WHERE id = $1", answer_id)
        return None if row is None else record_of(tuple(row))

    async def vote(self, answer_id: str, vote: Vote) -> FeedbackRecord | None:
        """Set (or change) the vote, stamped now; a 👍 drops a 👎's reason and comment."""
        if not is_answer_id(answer_id):
            return None
        row = await self._pool.fetchrow(
            "UPDATE feedback SET vote = $2, voted_at = $3, "
            "reason = CASE WHEN $2 = 'up' THEN NULL ELSE reason END, "
            "comment = CASE WHEN $2 = 'up' THEN '' ELSE comment END "
            f"WHERE id = $1 RETURNING {COLUMNS}",
            answer_id,
            vote,
            self._clock(),
        )
        return None if row is None else record_of(tuple(row))

    async def mark_asked(self, answer_id: str, prompt_message_id: int) -> bool:
        """Note the "what was wrong?" message; False when one was noted before."""
        status = await self._pool.execute(
            "UPDATE feedback SET prompt_message_id = $2 "
            "WHERE id = $1 AND prompt_message_id IS NULL",
            answer_id,
            prompt_message_id,
        )
        return _count(status) > 0

    async def set_reason(self, answer_id: str, reason: Reason) -> bool:
        """Set a 👎's reason; False unless the answer's vote is 👎."""
        status = await self._pool.execute(
            "UPDATE feedback SET reason = $2 WHERE id = $1 AND vote = 'down'", answer_id, reason
        )
        return _count(status) > 0

    async def by_prompt(self, chat_id: int, prompt_message_id: int) -> FeedbackRecord | None:
        """The answer whose "what was wrong?" message in `chat_id` is `prompt_message_id`."""
        row = await self._pool.fetchrow(
            f"SELECT {COLUMNS} FROM feedback WHERE chat_id = $1 AND prompt_message_id = $2",
            chat_id,
            prompt_message_id,
        )
        return None if row is None else record_of(tuple(row))

    async def set_comment(self, answer_id: str, comment: str) -> bool:
        """Set a 👎's comment (at most `COMMENT_CHARS`); False unless the vote is 👎."""
        status = await self._pool.execute(
            "UPDATE feedback SET comment = $2 WHERE id = $1 AND vote = 'down'",
            answer_id,
            comment[:COMMENT_CHARS],
        )
        return _count(status) > 0

    async def votes_since(self, cutoff: float) -> list[tuple[float, Vote]]:
        """When each vote given since `cutoff` was given, and which."""
        rows = await self._pool.fetch(
            "SELECT voted_at, vote FROM feedback WHERE vote IS NOT NULL AND voted_at >= $1",
            cutoff,
        )
        return [(float(row["voted_at"]), vote_of(row["vote"])) for row in rows]

    async def disliked(self, limit: int) -> list[FeedbackRecord]:
        """The last `limit` answers voted 👎, newest vote first."""
        rows = await self._pool.fetch(
            f"SELECT {COLUMNS} FROM feedback WHERE vote = 'down' "
            "ORDER BY voted_at DESC, created_at DESC LIMIT $1",
            limit,
        )
        return [record_of(tuple(row)) for row in rows]

    async def forget_user(self, user_id: int) -> int:
        """Delete every answer `user_id` asked for; how many."""
        return _count(await self._pool.execute("DELETE FROM feedback WHERE user_id = $1", user_id))

    async def delete_older(self, cutoff: float) -> int:
        """Delete answers delivered before `cutoff`; how many."""
        return _count(
            await self._pool.execute("DELETE FROM feedback WHERE created_at < $1", cutoff)
        )

    async def close(self) -> None:
        """Nothing of its own: the database's pool is closed by whoever opened it."""


def _count(status: str) -> int:
    """The rows a command's status (`UPDATE 1`, `DELETE 3`) says it touched."""
    return int(status.rsplit(" ", 1)[-1])
