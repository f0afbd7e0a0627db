"""Conversations in PostgreSQL, shared by every worker: the same log as `HistoryStore`.

Same rules as the SQLite log (sqlite.py): a question is a turn, only `done` turns are
sent to the model again, only `forget_user` and `delete_older` delete. Each write is one
statement, so a turn is never half-made. With several workers, a turn still `open` is not
necessarily cut off: it may be another worker's question in progress. So every turn names its
owner (the worker's name, see `PostgresDatabase.owner`), and at start only the open turns of
owners that are gone — whose identity lock nobody holds any more — are marked `interrupted`.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict

import asyncpg

from bot.storage.history import HistoryUnavailable, Message, Usage, own_conversation_keys
from bot.storage.postgres import PostgresDatabase

log = logging.getLogger(__name__)

_CURRENT = "(SELECT id FROM conversations WHERE key = $1 ORDER BY id DESC LIMIT 1)"


class PostgresHistory:
    """The conversation log in the shared database; `clock` gives Unix time."""

    def __init__(
        self, database: PostgresDatabase, *, clock: Callable[[], float] = time.time
    ) -> None:
        self._database = database
        self._pool = database.pool
        self._owner = database.owner
        self._clock = clock

    @classmethod
    async def open(
        cls, database: PostgresDatabase, *, clock: Callable[[], float] = time.time
    ) -> PostgresHistory:
        """The log on `database`, with the questions of workers that died marked interrupted."""
        history = cls(database, clock=clock)
        interrupted = await history.interrupt_orphans()
        if interrupted:
            log.warning(
                "%d question(s) were cut off when a worker stopped; left out of history",
                interrupted,
            )
        return history

    async def interrupt_orphans(self) -> int:
        """Mark `interrupted` the open turns whose worker is gone; how many there were."""
        owners = await self._pool.fetch("SELECT DISTINCT owner FROM turns WHERE state = 'open'")
        gone = [row["owner"] for row in owners if not await self._database.alive(row["owner"])]
        if not gone:
            return 0
        status = await self._pool.execute(
            "UPDATE turns SET state = 'interrupted', ended_at = $1 "
            "WHERE state = 'open' AND owner = ANY($2::text[])",
            self._clock(),
            gone,
        )
        return int(status.rsplit(" ", 1)[-1])

    async def close(self) -> None:
        """Nothing of its own: the database is closed by whoever opened it."""

    async def ping(self) -> None:
        """Raise `HistoryUnavailable` unless the database answers a trivial query."""
        try:
            await self._pool.fetchval("SELECT 1 FROM conversations LIMIT 1")
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            msg = f"the history database does not answer: {exc}"
            raise HistoryUnavailable(msg) from exc

    # --- writing -------------------------------------------------------------------------------

    async def begin_turn(self, key: str, question: Message) -> int:
        """Start a turn in the key's current conversation with the user's message; its id."""
        turn = await self._pool.fetchval(
            f"""
            WITH current AS {_CURRENT},
            made AS (
                INSERT INTO conversations (key, started_at)
                SELECT $1, $2 WHERE NOT EXISTS (SELECT 1 FROM current)
                RETURNING id
            ),
            conversation AS (SELECT id FROM current UNION ALL SELECT id FROM made),
            turn AS (
                INSERT INTO turns (conversation_id, state, owner, started_at)
                SELECT id, 'open', $3, $2 FROM conversation
                RETURNING id
            ),
            message AS (
                INSERT INTO messages (turn_id, body, created_at) SELECT id, $4, $2 FROM turn
            )
            SELECT id FROM turn
            """,
            key,
            self._clock(),
            self._owner,
            _body(question),
        )
        return int(turn)

    async def append(self, turn: int, messages: Sequence[Message]) -> None:
        """Add messages to an open turn, in order."""
        if not messages:
            return
        await self._pool.execute(
            "INSERT INTO messages (turn_id, body, created_at) "
            "SELECT $1, body, $2 FROM unnest($3::text[]) WITH ORDINALITY AS m (body, n) "
            "ORDER BY n",
            turn,
            self._clock(),
            [_body(m) for m in messages],
        )

    async def finish_turn(self, turn: int, *, done: bool, usage: Usage | None = None) -> None:
        """Close a turn: `done` turns are sent to the model later, failed ones never."""
        await self._pool.execute(
            "UPDATE turns SET state = $1, ended_at = $2, usage = $3 "
            "WHERE id = $4 AND state = 'open'",
            "done" if done else "failed",
            self._clock(),
            json.dumps(asdict(usage)) if usage is not None else None,
            turn,
        )

    async def rewrite_question(self, turn: int, question: Message) -> None:
        """Replace an open turn's first message, the user's."""
        await self._pool.execute(
            "UPDATE messages SET body = $1 WHERE id = "
            "(SELECT min(id) FROM messages WHERE turn_id = $2) "
            "AND turn_id IN (SELECT id FROM turns WHERE id = $2 AND state = 'open')",
            _body(question),
            turn,
        )

    async def reset(self, key: str) -> None:
        """Start a new, empty conversation under `key`; the old one stays."""
        await self._pool.execute(
            "INSERT INTO conversations (key, started_at) VALUES ($1, $2)", key, self._clock()
        )

    # --- reading -------------------------------------------------------------------------------

    async def load_turns(self, key: str, limit: int) -> list[list[Message]]:
        """The last `limit` finished turns of the key's current conversation, oldest first."""
        rows = await self._pool.fetch(
            f"""
            SELECT m.turn_id, m.body FROM messages AS m
            WHERE m.turn_id IN (
                SELECT id FROM turns WHERE conversation_id = {_CURRENT} AND state = 'done'
                ORDER BY id DESC LIMIT $2
            )
            ORDER BY m.turn_id, m.id
            """,
            key,
            limit,
        )
        turns: dict[int, list[Message]] = {}
        for row in rows:
            turns.setdefault(row["turn_id"], []).append(json.loads(row["body"]))
        return list(turns.values())

    async def last_usage(self, key: str) -> Usage | None:
        """The accounting of the key's last finished question, if any."""
        text = await self._pool.fetchval(
            f"SELECT usage FROM turns WHERE conversation_id = {_CURRENT} AND state = 'done' "
            "AND usage IS NOT NULL ORDER BY id DESC LIMIT 1",
            key,
        )
        return Usage(**json.loads(text)) if text is not None else None

    async def turn_states(self, key: str) -> list[str]:
        """The state of every turn in the key's current conversation, oldest first."""
        rows = await self._pool.fetch(
            f"SELECT state FROM turns WHERE conversation_id = {_CURRENT} ORDER BY id", key
        )
        return [row["state"] for row in rows]

    async def conversation_count(self, key: str) -> int:
        """How many conversations (the current one and the reset ones) the key has."""
        count = await self._pool.fetchval("SELECT count(*) FROM conversations WHERE key = $1", key)
        return int(count)

    # --- deleting ------------------------------------------------------------------------------

    async def forget_user(self, user_id: int) -> int:
        """Delete every conversation of one person (`chat:<id>`, its topics, and
        `chat:<group>:user:<id>`); how many were deleted."""
        gone = "SELECT id FROM conversations WHERE key = $1 OR key LIKE $2 OR key LIKE $3"
        turns = f"SELECT id FROM turns WHERE conversation_id IN ({gone})"
        keys = own_conversation_keys(user_id)
        async with self._pool.acquire() as connection, connection.transaction():
            await connection.execute(f"DELETE FROM messages WHERE turn_id IN ({turns})", *keys)
            await connection.execute(f"DELETE FROM turns WHERE id IN ({turns})", *keys)
            status = await connection.execute(
                f"DELETE FROM conversations WHERE id IN ({gone})", *keys
            )
        return int(status.rsplit(" ", 1)[-1])

    async def delete_older(self, cutoff: float) -> int:
        """Delete turns begun before `cutoff` (Unix time), and conversations left with nothing
        newer; a question still running is kept. How many turns were deleted."""
        old = "SELECT id FROM turns WHERE started_at < $1 AND state != 'open'"
        async with self._pool.acquire() as connection, connection.transaction():
            await connection.execute(f"DELETE FROM messages WHERE turn_id IN ({old})", cutoff)
            status = await connection.execute(f"DELETE FROM turns WHERE id IN ({old})", cutoff)
            await connection.execute(
                "DELETE FROM conversations AS c WHERE c.started_at < $1 AND NOT EXISTS "
                "(SELECT 1 FROM turns AS t WHERE t.conversation_id = c.id)",
                cutoff,
            )
        return int(status.rsplit(" ", 1)[-1])


def _body(message: Message) -> str:
    return json.dumps(message, ensure_ascii=False)
