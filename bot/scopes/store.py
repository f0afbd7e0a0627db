"""Where the scope changes admins make from Telegram are kept, behind one small interface.

`ScopeStore` is what the rest of the bot uses; `SqliteScopeStore` keeps it in
`DATA_DIR/scopes.sqlite3`. Two things are stored: a chat's scope set with `/scope` (it
overrides SCOPES_FILE for that chat until reset), and the scope each conversation last ran
under, so a conversation whose scope narrowed starts afresh instead of carrying text from
outside its new scope. A scope is stored as its folder list, `["*"]` for everything.

All database work runs on one worker thread, in the order it was asked for, so the event loop
never waits for the disk.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from bot.storage.sqlite_thread import SqliteThread
from tools.scope import EVERYTHING, Scope

_SCHEMA = """
CREATE TABLE IF NOT EXISTS chat_scopes (
    chat_id INTEGER PRIMARY KEY,
    folders TEXT NOT NULL,
    set_by INTEGER NOT NULL,
    set_by_name TEXT NOT NULL DEFAULT '',
    set_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS conversation_scopes (
    conversation TEXT PRIMARY KEY,
    folders TEXT NOT NULL
);
"""


def dump_scope(scope: Scope | None) -> str:
    """A scope as stored: its folders as a JSON list, `["*"]` for everything."""
    return json.dumps([EVERYTHING] if scope is None else list(scope.folders), ensure_ascii=False)


def load_scope(text: str) -> Scope | None:
    """A stored scope back; a row that cannot be read counts as no folders (the safe side)."""
    try:
        folders = json.loads(text)
        return Scope.of(folders) if isinstance(folders, list) else Scope(())
    except (ValueError, TypeError):
        return Scope(())


@dataclass(frozen=True, slots=True)
class ChatOverride:
    """A chat's scope set from Telegram: what, by whom, when (Unix time)."""

    chat_id: int
    scope: Scope | None
    set_by: int
    set_by_name: str
    set_at: float


class ScopeStore(Protocol):
    """The scope changes made from Telegram and each conversation's last scope."""

    async def chat_override(self, chat_id: int) -> ChatOverride | None:
        """The scope set for this chat from Telegram, if any."""
        ...

    async def chat_overrides(self) -> list[ChatOverride]:
        """Every chat's scope set from Telegram, newest first."""
        ...

    async def set_chat(self, override: ChatOverride) -> None:
        """Set (or replace) a chat's scope."""
        ...

    async def clear_chat(self, chat_id: int) -> bool:
        """Go back to SCOPES_FILE for this chat; False when nothing was set."""
        ...

    async def swap_conversation_scope(self, conversation: str, scope: Scope | None) -> str | None:
        """Record the scope a conversation runs under now; the stored text of the one it ran
        under before (None when none was recorded: it ran with no scope). A conversation that
        never had a scope and still has none is not written down."""
        ...

    async def close(self) -> None:
        """Close the store; work already asked for finishes first."""
        ...


class SqliteScopeStore:
    """`ScopeStore` in one SQLite file; it opens on first use."""

    def __init__(self, path: Path) -> None:
        self._db = SqliteThread(path, _SCHEMA, name="scopes database")

    async def chat_override(self, chat_id: int) -> ChatOverride | None:
        rows = await self._db.run(
            lambda db: db.execute(
                "SELECT chat_id, folders, set_by, set_by_name, set_at FROM chat_scopes "
                "WHERE chat_id = ?",
                (chat_id,),
            ).fetchall()
        )
        return _override(rows[0]) if rows else None

    async def chat_overrides(self) -> list[ChatOverride]:
        rows = await self._db.run(
            lambda db: db.execute(
                "SELECT chat_id, folders, set_by, set_by_name, set_at FROM chat_scopes "
                "ORDER BY set_at DESC"
            ).fetchall()
        )
        return [_override(row) for row in rows]

    async def set_chat(self, override: ChatOverride) -> None:
        await self._db.run(
            lambda db: db.execute(
                "INSERT OR REPLACE INTO chat_scopes (chat_id, folders, set_by, set_by_name, "
                "set_at) VALUES (?, ?, ?, ?, ?)",
                (
                    override.chat_id,
                    dump_scope(override.scope),
                    override.set_by,
                    override.set_by_name,
                    override.set_at,
                ),
            )
        )

    async def clear_chat(self, chat_id: int) -> bool:
        cursor = await self._db.run(
            lambda db: db.execute("DELETE FROM chat_scopes WHERE chat_id = ?", (chat_id,))
        )
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
    chat_id, folders, set_by, name, set_at = row
    return ChatOverride(
        chat_id=int(str(chat_id)),
        scope=load_scope(str(folders)),
        set_by=int(str(set_by)),
        set_by_name=str(name),
        set_at=float(str(set_at)),
    )
