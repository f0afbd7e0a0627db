"""`ScopeStore` in PostgreSQL, for several workers sharing DATABASE_URL.

The tables (`chat_scopes`, `conversation_scopes`) come with the schema's migrations
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


class PostgresScopeStore:
    """Chats' scopes and conversations' last scopes in the shared database."""

    def __init__(self, database: PostgresDatabase) -> None:
        self._pool = database.pool

    async def chat_override(self, chat_id: int) -> ChatOverride | None:
        row = await self._pool.fetchrow(
            f"SELECT {_COLUMNS} FROM chat_scopes WHERE chat_id = $1", chat_id
        )
        return _override(tuple(row)) if row is not None else None

    async def chat_overrides(self) -> list[ChatOverride]:
        rows = await self._pool.fetch(f"SELECT {_COLUMNS} FROM chat_scopes ORDER BY set_at DESC")
        return [_override(tuple(row)) for row in rows]

    async def set_chat(self, override: ChatOverride) -> None:
        await self._pool.execute(
            f"INSERT INTO chat_scopes ({_COLUMNS}) VALUES ($1, $2, $3, $4, $5) "
            "ON CONFLICT (chat_id) DO UPDATE SET folders = excluded.folders, "
            "set_by = excluded.set_by, set_by_name = excluded.set_by_name, "
            "set_at = excluded.set_at",
            override.chat_id,
            dump_scope(override.scope),
            override.set_by,
            override.set_by_name,
            override.set_at,
        )

    async def clear_chat(self, chat_id: int) -> bool:
        status = await self._pool.execute("DELETE FROM chat_scopes WHERE chat_id = $1", chat_id)
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
    chat_id, folders, set_by, name, set_at = row
    return ChatOverride(
        chat_id=int(str(chat_id)),
        scope=load_scope(str(folders)),
        set_by=int(str(set_by)),
        set_by_name=str(name),
        set_at=float(str(set_at)),
    )
