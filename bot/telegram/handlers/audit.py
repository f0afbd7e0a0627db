"""`/audit`: the last admin actions, for admins, in a private chat (it names people and paths)."""

from __future__ import annotations

from aiogram import Bot, F, Router
from aiogram.filters import Command, MagicData
from aiogram.types import Message

from bot.storage.audit import SHOWN, AuditEntry, AuditLog
from bot.telegram.context import ChatContext
from bot.telegram.handlers.private import in_private, reply_with
from bot.telegram.handlers.replies import say
from bot.telegram.texts import Texts
from bot.telegram.texts.people import when, who
from bot.telegram.tuning import Tuning


def make_router() -> Router:
    """Admins only; anyone else's `/audit` falls through to the admin-only notice."""
    router = Router(name="audit")
    router.message.filter(MagicData(F.is_admin))
    router.message.register(on_audit, Command("audit"), in_private)
    router.message.register(reply_with(lambda t: t.access_in_private), Command("audit"))
    return router


async def on_audit(
    message: Message, *, bot: Bot, audit: AuditLog, tuning: Tuning, chat_context: ChatContext
) -> None:
    """The last `SHOWN` entries, oldest first, newest at the bottom."""
    entries = await audit.recent(SHOWN)
    await say(bot, chat_context, audit_text(chat_context.texts, entries), tuning)


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
