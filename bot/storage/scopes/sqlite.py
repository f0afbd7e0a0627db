"""`ScopeStore` in one SQLite file in DATA_DIR, on the storage's one SQLite thread, in the
order the work was asked for, so the event loop never waits for the disk."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bot.storage.scopes import ChatOverride, dump_scope, load_scope
from bot.storage.sqlite_thread import SqliteThread
from tools.jail.scope import Scope

_SCHEMA = """
CREATE TABLE IF NOT EXISTS chat_scopes (
    chat_id INTEGER PRIMARY KEY,
    folders TEXT NOT NULL,
    set_by INTEGER NOT NULL,
    set_by_name TEXT NOT NULL DEFAULT '',
    set_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS topic_scopes (
    chat_id INTEGER NOT NULL,
    thread_id INTEGER NOT NULL,
    folders TEXT NOT NULL,
    set_by INTEGER NOT NULL,
    set_by_name TEXT NOT NULL DEFAULT '',
    set_at REAL NOT NULL,
    PRIMARY KEY (chat_id, thread_id)
);
CREATE TABLE IF NOT EXISTS conversation_scopes (
    conversation TEXT PRIMARY KEY,
    folders TEXT NOT NULL
);
"""

_COLUMNS = "chat_id, folders, set_by, set_by_name, set_at"
_CHAT = f"{_COLUMNS}, NULL"
_TOPIC = f"{_COLUMNS}, thread_id"


class SqliteScopeStore:
    """`ScopeStore` in one SQLite file; it opens on first use."""

    def __init__(self, path: Path) -> None:
        self._db = SqliteThread(path, _SCHEMA, name="scopes database")

    async def chat_override(
        self, chat_id: int, thread_id: int | None = None
    ) -> ChatOverride | None:
        args: tuple[int, ...]
        if thread_id is None:
            sql, args = f"SELECT {_CHAT} FROM chat_scopes WHERE chat_id = ?", (chat_id,)
        else:
            sql = f"SELECT {_TOPIC} FROM topic_scopes WHERE chat_id = ? AND thread_id = ?"
            args = (chat_id, thread_id)
        rows = await self._db.run(lambda db: db.execute(sql, args).fetchall())
        return _override(rows[0]) if rows else None

    async def chat_overrides(self) -> list[ChatOverride]:
        rows = await self._db.run(
            lambda db: db.execute(
                f"SELECT {_CHAT} FROM chat_scopes UNION ALL SELECT {_TOPIC} FROM topic_scopes "
                "ORDER BY set_at DESC"
            ).fetchall()
        )
        return [_override(row) for row in rows]

    async def set_chat(self, override: ChatOverride) -> None:
        values: tuple[object, ...] = (
            override.chat_id,
            dump_scope(override.scope),
            override.set_by,
            override.set_by_name,
            override.set_at,
        )
        if override.thread_id is None:
            sql = f"INSERT OR REPLACE INTO chat_scopes ({_COLUMNS}) VALUES (?, ?, ?, ?, ?)"
        else:
            sql = f"INSERT OR REPLACE INTO topic_scopes ({_TOPIC}) VALUES (?, ?, ?, ?, ?, ?)"
            values = (*values, override.thread_id)
        await self._db.run(lambda db: db.execute(sql, values))

    async def clear_chat(self, chat_id: int, thread_id: int | None = None) -> bool:
        args: tuple[int, ...]
        if thread_id is None:
            sql, args = "DELETE FROM chat_scopes WHERE chat_id = ?", (chat_id,)
        else:
            sql = "DELETE FROM topic_scopes WHERE chat_id = ? AND thread_id = ?"
            args = (chat_id, thread_id)
        cursor = await self._db.run(lambda db: db.execute(sql, args))
        return cursor.rowcount > 0

    async def swap_conversation_scope(self, conversation: str, scope: Scope | None) -> str | None:
        text = dump_scope(scope)

        def swap(db: sqlite3.Connection) -> str | None:
            # A plain read, and a write only when the scope changed: a bot without scopes
            # never writes here. One conversation asks one question at a time, so nothing
            # comes between the two.
            row = db.execute(
                "SELECT folders FROM conversation_scopes WHERE conversation = ?",
                (conversation,),
            ).fetchone()
            before = None if row is None else str(row[0])
            if (before is not None or scope is not None) and before != text:
                db.execute(
                    "INSERT OR REPLACE INTO conversation_scopes (conversation, folders) "
                    "VALUES (?, ?)",
                    (conversation, text),
                )
            return before

        return await self._db.run(swap)

    async def close(self) -> None:
        await self._db.close()


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
