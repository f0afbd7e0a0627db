"""The admins' audit log: who changed the documents or the access to the bot, what, and when.

Every admin action that changes what the bot holds or who may use it is one entry: an upload,
a move, a deletion to the trash, a restore, a mirrored source's mass deletion confirmed, a
change of a chat's scope, access granted or taken away. Entries are only added, never edited,
and kept across restarts; `/audit` shows the last ones. The log holds ids, names and paths,
never document text.

`AuditLog` is the narrow seam the rest of the bot writes through: `SqliteAuditLog` (sqlite.py)
keeps it in one small SQLite file in DATA_DIR, `PostgresAuditLog` (postgres.py) in the shared
database; `record_scope_change` writes a chat's new scope in one form for both. No aiogram
here: the Telegram wing and the access policy both record through it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

Action = Literal["upload", "move", "delete", "restore", "confirm", "scope", "grant", "revoke"]
"""What an admin did: the first four to documents, `confirm` a source's held-back deletions in
its folder (the subject), `scope` to a chat's folders, the last two to a person's access."""

SHOWN = 20
"""Entries `/audit` shows."""
SCOPE_RESET = "SCOPES_FILE"
"""A scope entry's detail when a chat went back to SCOPES_FILE (it names no folder)."""


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """One admin action."""

    at: float
    """Unix time."""
    actor_id: int | None
    """The admin's Telegram id; None for the bot itself (for example a pairing code)."""
    actor_name: str
    action: Action
    subject: str
    """What was acted on: a path inside the documents folder, a user's or a chat's id."""
    detail: str = ""
    """The rest: a move's target, a scope's folders, a role."""


class AuditLog(Protocol):
    """Where admin actions are written and read back, newest last."""

    async def record(
        self,
        action: Action,
        subject: str,
        *,
        actor_id: int | None,
        actor_name: str = "",
        detail: str = "",
    ) -> None:
        """Add one entry, stamped now."""

    async def recent(self, limit: int = SHOWN) -> list[AuditEntry]:
        """The last `limit` entries, oldest first."""

    async def close(self) -> None:
        """Finish the writes asked for and release the storage."""


async def record_scope_change(
    audit: AuditLog,
    chat_id: int | str,
    folders: Sequence[str],
    *,
    actor_id: int,
    actor_name: str = "",
) -> None:
    """An admin set the folders a chat (a forum topic, `-100123/7`, or a user) may see: the
    chat's id is the subject, its folders the detail, in one form whichever backend keeps the
    log."""
    await audit.record(
        "scope", str(chat_id), actor_id=actor_id, actor_name=actor_name, detail=", ".join(folders)
    )
