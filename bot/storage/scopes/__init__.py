"""Where the scope changes admins make from Telegram are kept, behind one small interface.

Two things are stored: a chat's scope set with `/scope` (it overrides SCOPES_FILE for that chat
until reset; set inside a forum topic, for that topic alone, in a table of its own), and the
scope each conversation last ran under, so a conversation whose scope narrowed starts afresh
instead of carrying text from outside its new scope. A scope is stored as its folder list,
`["*"]` for everything. `ScopeStore` is what bot.settings.scopes uses; `SqliteScopeStore`
(sqlite.py) keeps it in `DATA_DIR/scopes.sqlite3`, `PostgresScopeStore` (postgres.py) in the
shared database.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Protocol

from tools.jail.scope import EVERYTHING, Scope


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
    """A chat's (or one forum topic's) scope set from Telegram: what, by whom, when (Unix
    time)."""

    chat_id: int
    scope: Scope | None
    set_by: int
    set_by_name: str
    set_at: float
    thread_id: int | None = None
    """The forum topic it was set in; None for the whole chat."""


class ScopeStore(Protocol):
    """The scope changes made from Telegram and each conversation's last scope."""

    async def chat_override(
        self, chat_id: int, thread_id: int | None = None
    ) -> ChatOverride | None:
        """The scope set for this chat (or this forum topic of it) from Telegram, if any."""
        ...

    async def chat_overrides(self) -> list[ChatOverride]:
        """Every chat's and topic's scope set from Telegram, newest first."""
        ...

    async def set_chat(self, override: ChatOverride) -> None:
        """Set (or replace) a chat's scope, or its topic's (`override.thread_id`)."""
        ...

    async def clear_chat(self, chat_id: int, thread_id: int | None = None) -> bool:
        """Go back to SCOPES_FILE for this chat (or topic); False when nothing was set."""
        ...

    async def swap_conversation_scope(self, conversation: str, scope: Scope | None) -> str | None:
        """Record the scope a conversation runs under now; the stored text of the one it ran
        under before (None when none was recorded: it ran with no scope). A conversation that
        never had a scope and still has none is not written down."""
        ...

    async def close(self) -> None:
        """Close the store; work already asked for finishes first."""
        ...
