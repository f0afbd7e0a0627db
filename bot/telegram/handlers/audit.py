"""`/audit`: the last admin actions, for admins, in a private chat (it names people and paths).

An admin with a scope sees only the entries about what lies within it: a path inside their
folders (a move's both ends), a chat given folders all inside them (or sent back to the file),
and people's access, which names no path. The Mini App's audit tab shows the same entries.
"""

from __future__ import annotations

from aiogram import Bot, F, Router
from aiogram.filters import Command, MagicData
from aiogram.types import Message

from bot.settings.scopes import Scopes
from bot.settings.scopes.viewer import sees, sees_folders
from bot.storage.audit import SCOPE_RESET, SHOWN, AuditEntry, AuditLog
from bot.telegram.context import ChatContext
from bot.telegram.handlers.private import in_private, reply_with
from bot.telegram.handlers.replies import say
from bot.telegram.texts import Texts
from bot.telegram.texts.people import when, who
from bot.telegram.tuning import Tuning
from tools.jail.scope import Scope

LOOKED_AT = 500
"""The latest entries read to find the `SHOWN` a scoped admin may see."""


def make_router() -> Router:
    """Admins only; anyone else's `/audit` falls through to the admin-only notice."""
    router = Router(name="audit")
    router.message.filter(MagicData(F.is_admin))
    router.message.register(on_audit, Command("audit"), in_private)
    router.message.register(reply_with(lambda t: t.access_in_private), Command("audit"))
    return router


async def on_audit(
    message: Message,
    *,
    bot: Bot,
    audit: AuditLog,
    scopes: Scopes,
    tuning: Tuning,
    chat_context: ChatContext,
) -> None:
    """The last `SHOWN` entries the admin may see, oldest first, newest at the bottom."""
    if message.from_user is None:
        return
    entries = await seen_entries(audit, await scopes.of_viewer(message.from_user.id))
    await say(bot, chat_context, audit_text(chat_context.texts, entries), tuning)


async def seen_entries(
    audit: AuditLog, viewer: Scope | None, limit: int = SHOWN
) -> list[AuditEntry]:
    """The last `limit` entries the viewer may see, oldest first."""
    if viewer is None:
        return await audit.recent(limit)
    seen = [e for e in await audit.recent(LOOKED_AT) if entry_seen(viewer, e)]
    return seen[-limit:]


def entry_seen(viewer: Scope | None, entry: AuditEntry) -> bool:
    """Whether the entry names only what the viewer may see."""
    if entry.action in ("upload", "delete", "restore", "confirm"):
        return sees(viewer, entry.subject)
    if entry.action == "move":
        return sees(viewer, entry.subject) and sees(viewer, entry.detail)
    if entry.action == "scope":
        if entry.detail == SCOPE_RESET:
            return True
        folders = entry.detail.split(", ") if entry.detail else []
        return sees_folders(viewer, folders)
    return True


def audit_text(texts: Texts, entries: list[AuditEntry]) -> str:
    """The entries as `/audit` shows them."""
    return texts.audit_listing(
        [
            (
                when(entry.at),
                who(entry.actor_name, None, entry.actor_id) if entry.actor_id is not None else "—",
                entry.action,
                entry.subject,
                entry.detail,
            )
            for entry in entries
        ]
    )
