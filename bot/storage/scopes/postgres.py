"""`ScopeStore` in PostgreSQL, for several workers sharing DATABASE_URL.

The tables (`chat_scopes`, `topic_scopes`, `conversation_scopes`) come with the schema's migrations
(`bot.storage.migrations`); each operation is one statement on the shared pool, or one
transaction where it reads before it writes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.storage.scopes import ChatOverride, dump_scope, load_scope
from tools.jail.scope import Scope

if TYPE_CHECKING:
    from bot.storage.postgres import PostgresDatabase

_COLUMNS = "chat_id, folders, set_by, set_by_name, set_at"
_CHAT = f"{_COLUMNS}, NULL::BIGINT"
_TOPIC = f"{_COLUMNS}, thread_id"


class PostgresScopeStore:
    """Chats' scopes and conversations' last scopes in the shared database."""

    def __init__(self, database: PostgresDatabase) -> None:
        self._pool = database.pool

    async def chat_override(
        self, chat_id: int, thread_id: int | None = None
    ) -> ChatOverride | None:
        if thread_id is None:
            row = await self._pool.fetchrow(
                f"SELECT {_CHAT} FROM chat_scopes WHERE chat_id = $1", chat_id
            )
        else:
            row = await self._pool.fetchrow(
                f"SELECT {_TOPIC} FROM topic_scopes WHERE chat_id = $1 AND thread_id = $2",
                chat_id,
                thread_id,
            )
        return _override(tuple(row)) if row is not None else None

    async def chat_overrides(self) -> list[ChatOverride]:
        rows = await self._pool.fetch(
            f"SELECT {_CHAT} FROM chat_scopes UNION ALL SELECT {_TOPIC} FROM topic_scopes "
            "ORDER BY set_at DESC"
        )
        return [_override(tuple(row)) for row in rows]

    async def set_chat(self, override: ChatOverride) -> None:
        values = (
            override.chat_id,
            dump_scope(override.scope),
            override.set_by,
            override.set_by_name,
            override.set_at,
        )
        update = (
            "DO UPDATE SET folders = excluded.folders, set_by = excluded.set_by, "
            "set_by_name = excluded.set_by_name, set_at = excluded.set_at"
        )
        if override.thread_id is None:
            await self._pool.execute(
                f"INSERT INTO chat_scopes ({_COLUMNS}) VALUES ($1, $2, $3, $4, $5) "
                f"ON CONFLICT (chat_id) {update}",
                *values,
            )
        else:
            await self._pool.execute(
                f"INSERT INTO topic_scopes ({_TOPIC}) VALUES ($1, $2, $3, $4, $5, $6) "
                f"ON CONFLICT (chat_id, thread_id) {update}",
                *values,
                override.thread_id,
            )

    async def clear_chat(self, chat_id: int, thread_id: int | None = None) -> bool:
        if thread_id is None:
            status = await self._pool.execute(
                "DELETE FROM chat_scopes WHERE chat_id = $1", chat_id
            )
        else:
            status = await self._pool.execute(
                "DELETE FROM topic_scopes WHERE chat_id = $1 AND thread_id = $2",
                chat_id,
                thread_id,
            )
        return bool(int(status.rsplit(" ", 1)[-1]))

    async def swap_conversation_scope(self, conversation: str, scope: Scope | None) -> str | None:
        text = dump_scope(scope)
        async with self._pool.acquire() as connection, connection.transaction():
            before = await connection.fetchval(
                "SELECT folders FROM conversation_scopes WHERE conversation = $1 FOR UPDATE",
                conversation,
            )
            if (before is not None or scope is not None) and before != text:
                await connection.execute(
                    "INSERT INTO conversation_scopes (conversation, folders) VALUES ($1, $2) "
                    "ON CONFLICT (conversation) DO UPDATE SET folders = excluded.folders",
                    conversation,
                    text,
                )
        return None if before is None else str(before)

    async def close(self) -> None:
        """Nothing of its own: the database's pool is closed by whoever opened it."""


def _override(row: tuple[object, ...]) -> ChatOverride:
    chat_id, folders, set_by, name, set_at, thread_id = row
    return ChatOverride(
        chat_id=int(str(chat_id)),
        scope=load_scope(str(folders)),
        set_by=int(str(set_by)),
        set_by_name=str(name),
        set_at=float(str(set_at)),
        thread_id=None if thread_id is None else int(str(thread_id)),
    )
