"""`ExpertRequests` in PostgreSQL, for several workers sharing DATABASE_URL: an expert's reply
reaching any worker finds the request another one sent. Each operation is one statement on the
shared pool (a reply goes with its request by the table's `ON DELETE CASCADE`); the tables come
with the schema's migrations (`bot.storage.migrations`)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from bot.storage.experts import (
    QUESTION_CHARS,
    REPLY_CHARS,
    SAVING,
    Asked,
    ExpertReply,
    ExpertRequest,
)
from bot.storage.experts.rows import REPLY_COLUMNS, REQUEST_COLUMNS, reply_of, request_of

if TYPE_CHECKING:
    from bot.storage.postgres import PostgresDatabase


class PostgresExpertRequests:
    """Requests to the experts and their replies in the shared database; `clock` gives Unix
    time, the same the HISTORY_DAYS sweep compares with."""

    def __init__(
        self, database: PostgresDatabase, *, clock: Callable[[], float] = time.time
    ) -> None:
        self._pool = database.pool
        self._clock = clock

    async def start(self, request_id: str, asked: Asked) -> ExpertRequest:
        """The request: made now in `asking`, or the one made before."""
        row = await self._pool.fetchrow(
            "WITH made AS ("
            " INSERT INTO expert_requests (id, chat_id, user_id, question, language, thread_id,"
            " reply_to, state, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, 'asking', $8)"
            f" ON CONFLICT (id) DO NOTHING RETURNING {REQUEST_COLUMNS})"
            f" SELECT {REQUEST_COLUMNS} FROM made"
            f" UNION ALL SELECT {REQUEST_COLUMNS} FROM expert_requests WHERE id = $1"
            " LIMIT 1",
            request_id,
            asked.chat_id,
            asked.user_id,
            asked.question[:QUESTION_CHARS],
            asked.language,
            asked.thread_id,
            asked.reply_to,
            self._clock(),
        )
        assert row is not None  # made, or there before
        return request_of(tuple(row))

    async def find(self, request_id: str) -> ExpertRequest | None:
        """The request `request_id`; None when unknown or deleted."""
        row = await self._pool.fetchrow(
            f"SELECT {REQUEST_COLUMNS} FROM expert_requests WHERE id = $1", request_id
        )
        return None if row is None else request_of(tuple(row))

    async def claim(self, request_id: str, asker_name: str | None) -> bool:
        """`asking` → `sending` with the name to show; False for any other state."""
        status = await self._pool.execute(
            "UPDATE expert_requests SET state = 'sending', asker_name = $2 "
            "WHERE id = $1 AND state = 'asking'",
            request_id,
            asker_name,
        )
        return _count(status) > 0

    async def release(self, request_id: str) -> None:
        """A send that failed: back to `asking`."""
        await self._pool.execute(
            "UPDATE expert_requests SET state = 'asking', asker_name = NULL "
            "WHERE id = $1 AND state = 'sending'",
            request_id,
        )

    async def sent(self, request_id: str, experts_chat_id: int, experts_message_id: int) -> None:
        """The request's message is in the experts' chat."""
        await self._pool.execute(
            "UPDATE expert_requests SET state = 'sent', experts_chat_id = $2, "
            "experts_message_id = $3 WHERE id = $1",
            request_id,
            experts_chat_id,
            experts_message_id,
        )

    async def by_message(self, experts_chat_id: int, message_id: int) -> ExpertRequest | None:
        """The request whose message in the experts' chat is `message_id`."""
        row = await self._pool.fetchrow(
            f"SELECT {REQUEST_COLUMNS} FROM expert_requests "
            "WHERE experts_chat_id = $1 AND experts_message_id = $2",
            experts_chat_id,
            message_id,
        )
        return None if row is None else request_of(tuple(row))

    async def add_reply(self, reply: ExpertReply) -> None:
        """Keep an expert's reply, once (a reply to a deleted request is dropped)."""
        await self._pool.execute(
            f"INSERT INTO expert_replies ({REPLY_COLUMNS}) "
            "SELECT $1, $2, $3, $4, $5, $6, $7 WHERE EXISTS "
            "(SELECT 1 FROM expert_requests WHERE id = $1) ON CONFLICT DO NOTHING",
            reply.request_id,
            reply.message_id,
            reply.expert_id,
            reply.expert_name,
            reply.text[:REPLY_CHARS],
            reply.replied_at,
            reply.saved_as,
        )

    async def reply(self, request_id: str, message_id: int) -> ExpertReply | None:
        """The reply `message_id` to the request `request_id`."""
        row = await self._pool.fetchrow(
            f"SELECT {REPLY_COLUMNS} FROM expert_replies "
            "WHERE request_id = $1 AND message_id = $2",
            request_id,
            message_id,
        )
        return None if row is None else reply_of(tuple(row))

    async def claim_saving(self, request_id: str, message_id: int) -> bool:
        """Mark a reply as being saved; False when saved or being saved already."""
        status = await self._pool.execute(
            "UPDATE expert_replies SET saved_as = $3 "
            "WHERE request_id = $1 AND message_id = $2 AND saved_as IS NULL",
            request_id,
            message_id,
            SAVING,
        )
        return _count(status) > 0

    async def saved(self, request_id: str, message_id: int, path: str | None) -> None:
        """Saved as `path`, or (None) free to be tried again."""
        await self._pool.execute(
            "UPDATE expert_replies SET saved_as = $3 WHERE request_id = $1 AND message_id = $2",
            request_id,
            message_id,
            path,
        )

    async def forget_user(self, user_id: int) -> int:
        """Delete the requests `user_id` asked (with their replies) and their own replies."""
        row = await self._pool.fetchrow(
            "WITH requests AS (DELETE FROM expert_requests WHERE user_id = $1 RETURNING id), "
            "replies AS (DELETE FROM expert_replies WHERE expert_id = $1 "
            "OR request_id IN (SELECT id FROM requests) RETURNING 1) "
            "SELECT (SELECT count(*) FROM requests) + (SELECT count(*) FROM replies)",
            user_id,
        )
        return 0 if row is None else int(row[0])

    async def delete_older(self, cutoff: float) -> int:
        """Delete requests made before `cutoff`, with their replies; how many requests."""
        return _count(
            await self._pool.execute("DELETE FROM expert_requests WHERE created_at < $1", cutoff)
        )

    async def close(self) -> None:
        """Nothing of its own: the database's pool is closed by whoever opened it."""


def _count(status: str) -> int:
    """The rows a command's status (`UPDATE 1`, `DELETE 3`) says it touched."""
    return int(status.rsplit(" ", 1)[-1])
