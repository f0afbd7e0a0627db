"""`/sources` for admins, and the buttons of the mirrored sources: "Sync now", and "Delete them"
or "Keep" under a held-back mass deletion.

`/sources` works in private chats only, like `/trash` and `/gaps`: one block per source whose
folder lies within the admin's folders (a source outside is not mentioned), never an address or
a credential. A button carries a short key of the source's name and, for a deletion, the set's
token (`Sources.confirm` accepts exactly that set, so a tap on an old question cannot delete a
newer set). The tap must come from an admin who may see the source's folder now; the message it
is on is checked by `middlewares.bound_buttons` before it gets here. A confirmation is written
to the audit log by the admin who gave it; the deletion itself is done by the source's next
pass, woken at once, and logged as the source's, each file to the trash.
"""

from __future__ import annotations

import hashlib
import logging
from html import escape

from aiogram import Bot, F, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.filters import Command, MagicData
from aiogram.filters.callback_data import CallbackData
from aiogram.types import (
    CallbackQuery,
    InaccessibleMessage,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
)

from bot.documents.sources.runner import Confirmed, Sources, SourceStatus
from bot.settings.scopes.viewer import sees
from bot.storage.audit import AuditLog
from bot.telegram.context import ChatContext
from bot.telegram.handlers.private import in_private, reply_with
from bot.telegram.handlers.replies import pop_up
from bot.telegram.texts.sources import SourcesTexts, sources_texts
from bot.telegram.tuning import Tuning
from tools.jail.scope import Scope

log = logging.getLogger(__name__)

NO_TOKEN = "-"


class SourceTap(CallbackData, prefix="mirror"):
    """`mirror:y:<key>:<token>` confirms a deletion, `mirror:n:…` keeps the files,
    `mirror:s:<key>:-` syncs now. `key` is `source_key` of the name (a name may be too long
    for Telegram's 64 bytes of button data)."""

    act: str
    key: str
    token: str


def source_key(name: str) -> str:
    """A short key for a source's name, the same in every process."""
    return hashlib.blake2b(name.encode(), digest_size=4).hexdigest()


def make_router() -> Router:
    """Admins only, in private chats; others' `/sources` falls through to the notice."""
    router = Router(name="source_sync")
    router.callback_query.register(on_tap, SourceTap.filter(), MagicData(F.is_admin))
    router.callback_query.register(reply_with(lambda t: t.admin_only), SourceTap.filter())
    router.message.filter(MagicData(F.is_admin))
    router.message.register(on_sources, Command("sources"), in_private)
    router.message.register(reply_with(lambda t: t.access_in_private), Command("sources"))
    return router


async def seen_statuses(sources: Sources, viewer: Scope | None) -> list[SourceStatus]:
    """The statuses of the sources whose folders the viewer may see, in the file's order."""
    return [status for status in await sources.statuses() if sees(viewer, status.folder)]


async def on_sources(
    message: Message,
    *,
    bot: Bot,
    sources: Sources,
    tuning: Tuning,
    chat_context: ChatContext,
) -> None:
    """Every source the admin may see: last success, last pass, a held-back deletion."""
    del message
    texts = sources_texts(chat_context.language)
    text, buttons = await _listing(sources, texts, await chat_context.scope(), tuning)
    place = chat_context.place
    await bot.send_message(
        place.chat_id,
        text,
        parse_mode="HTML",
        reply_markup=buttons,
        message_thread_id=place.thread_id,
    )


async def on_tap(
    query: CallbackQuery,
    callback_data: SourceTap,
    *,
    bot: Bot,
    sources: Sources,
    audit: AuditLog,
    tuning: Tuning,
    chat_context: ChatContext,
) -> None:
    """A tap on "Delete them", "Keep" or "Sync now"."""
    texts = sources_texts(chat_context.language)
    pressed = query.message
    if pressed is None or isinstance(pressed, InaccessibleMessage):
        await pop_up(query, chat_context.texts.confirm_expired)
        return
    name = next((n for n in sources.names if source_key(n) == callback_data.key), None)
    if name is None:
        await pop_up(query, None)
        await _edit(bot, pressed, texts.unknown)
        return
    status = await sources.status(name)
    if not sees(await chat_context.scope(), status.folder):
        await pop_up(query, texts.not_seen)
        return
    await pop_up(query, None)
    if callback_data.act == "s":
        await _sync(
            bot,
            pressed,
            name,
            sources=sources,
            texts=texts,
            chat_context=chat_context,
            tuning=tuning,
        )
        return
    head = _head(status)
    if callback_data.act != "y":
        log.info("source %s: admin %d kept the held-back files", name, query.from_user.id)
        await _edit(bot, pressed, f"{head}\n{texts.kept}")
        return
    user = query.from_user
    outcome = await confirm_deletion(
        sources,
        status,
        callback_data.token,
        audit=audit,
        actor_id=user.id,
        actor_name=user.full_name,
    )
    said = {"confirmed": texts.confirmed, "stale": texts.stale, "unknown": texts.unknown}
    await _edit(bot, pressed, f"{head}\n{said[outcome]}")


async def confirm_deletion(
    sources: Sources,
    status: SourceStatus,
    token: str,
    *,
    audit: AuditLog,
    actor_id: int,
    actor_name: str,
) -> Confirmed:
    """An admin's confirmation of the held-back set `token` names (from a button or the Mini
    App): accepted by the source, then written to the audit log as that admin's."""
    pending = status.pending
    outcome = await sources.confirm(status.name, token)
    if outcome == "confirmed" and pending is not None:
        await audit.record(
            "confirm",
            status.folder,
            actor_id=actor_id,
            actor_name=actor_name,
            detail=f"source {status.name}: delete {pending.count} of {pending.total} files",
        )
        log.info(
            "source %s: admin %d confirmed deleting %d files", status.name, actor_id, pending.count
        )
    return outcome


async def _sync(
    bot: Bot,
    pressed: Message,
    name: str,
    *,
    sources: Sources,
    texts: SourcesTexts,
    chat_context: ChatContext,
    tuning: Tuning,
) -> None:
    """One pass now; the message becomes the listing again, the pass's result on top."""
    try:
        outcome = await sources.sync(name)
    except Exception:  # a kind's or the disk's failure: its text may name an address
        log.exception("source %s: the pass asked for in Telegram failed", name)
        result = texts.sync_error.format(name=escape(name))
    else:
        if outcome is None:
            result = texts.sync_busy.format(name=escape(name))
        elif outcome.report.ok:
            result = texts.sync_done.format(name=escape(name), tally=texts.tally(outcome.report))
        else:
            error = outcome.report.error or outcome.report.problem or ""
            result = texts.sync_failed.format(name=escape(name), error=escape(error))
    text, buttons = await _listing(sources, texts, await chat_context.scope(), tuning)
    await _edit(bot, pressed, f"{result}\n\n{text}", buttons)


async def _listing(
    sources: Sources, texts: SourcesTexts, viewer: Scope | None, tuning: Tuning
) -> tuple[str, InlineKeyboardMarkup | None]:
    """The listing the viewer may see and its buttons: a sync per source, and a confirmation
    per held-back deletion."""
    statuses = await seen_statuses(sources, viewer)
    text = texts.listing(statuses, now=tuning.wall_clock(), configured=bool(sources.names))
    rows: list[list[InlineKeyboardButton]] = []
    for status in statuses:
        key = source_key(status.name)
        row = [
            InlineKeyboardButton(
                text=texts.sync_button.format(name=status.name),
                callback_data=SourceTap(act="s", key=key, token=NO_TOKEN).pack(),
            )
        ]
        if status.pending is not None:
            row.append(
                InlineKeyboardButton(
                    text=f"{texts.confirm_button} ({status.name}: {status.pending.count})",
                    callback_data=SourceTap(act="y", key=key, token=status.pending.token).pack(),
                )
            )
        rows.append(row)
    return text, InlineKeyboardMarkup(inline_keyboard=rows) if rows else None


def _head(status: SourceStatus) -> str:
    """The source a settled question was about."""
    return f"<b>{escape(status.name)}</b> (<code>{escape(status.folder)}/</code>)"


async def _edit(
    bot: Bot, pressed: Message, html: str, buttons: InlineKeyboardMarkup | None = None
) -> None:
    """The message becomes `html` (its buttons go, or become `buttons`)."""
    try:
        await bot.edit_message_text(
            text=html,
            chat_id=pressed.chat.id,
            message_id=pressed.message_id,
            parse_mode="HTML",
            reply_markup=buttons,
        )
    except TelegramAPIError as exc:  # deleted meanwhile, or unchanged
        log.info("source message %d not edited: %s", pressed.message_id, exc)
