"""Admins manage documents from Telegram: `/rm PATH`, `/mv FROM TO`, `/trash`.

Nothing changes on the command itself: the bot checks the paths (through the same jail the
model's tools use), names what would happen, and waits for a tap on "Yes" by the same admin in
the same chat. The button carries a short id (`bot.storage.confirmations`), never a path. `/trash`
lists what can be restored, one button per item carrying the trash's own short id. Every change
is written to the audit log. All of it works in private chats only, so document names never
land in a group, and within the scope an admin's question there would have (SCOPES_FILE,
`/scope`): what lies outside is "not there".
"""

from __future__ import annotations

import logging
import shlex
import sqlite3
from html import escape

from aiogram import Bot, F, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.filters import Command, CommandObject, MagicData
from aiogram.filters.callback_data import CallbackData
from aiogram.types import (
    CallbackQuery,
    InaccessibleMessage,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
    User,
)

from bot.config import Settings
from bot.documents import DocumentError, Documents, is_trash_id
from bot.scopes import Scopes
from bot.storage.audit import AuditLog
from bot.storage.confirmations import Confirmations, Pending
from bot.telegram.context import ChatContext
from bot.telegram.handlers.replies import say
from bot.telegram.texts import Texts
from bot.telegram.texts.people import when
from bot.telegram.tuning import Tuning
from tools.scope import Scope

log = logging.getLogger(__name__)

TRASH_SHOWN = 20
_BUTTON_PATH = 40


class DocumentAction(CallbackData, prefix="doc"):
    """A confirm button: `doc:y:<id>` does the action kept under the id, `doc:n:<id>` drops it."""

    answer: str
    confirm_id: str


class RestoreItem(CallbackData, prefix="restore"):
    """A restore button under `/trash`: the trash item's id."""

    item_id: str


def make_router() -> Router:
    """Admin-only commands and their buttons; others' commands fall through to the notice."""
    router = Router(name="documents")
    router.callback_query.register(on_confirm, DocumentAction.filter())
    router.callback_query.register(on_restore, RestoreItem.filter())
    router.message.filter(MagicData(F.is_admin))
    router.message.register(on_rm, Command("rm"))
    router.message.register(on_mv, Command("mv"))
    router.message.register(on_trash, Command("trash"))
    return router


def split_paths(text: str) -> list[str]:
    """The paths after a command; quotes keep spaces in one path, a lone quote is literal."""
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


async def on_rm(
    message: Message,
    command: CommandObject,
    *,
    bot: Bot,
    documents: Documents,
    confirmations: Confirmations,
    settings: Settings,
    tuning: Tuning,
    chat_context: ChatContext,
    scopes: Scopes | None = None,
) -> None:
    """Check the path and ask for a tap before it goes to the trash."""
    texts = chat_context.texts
    if chat_context.is_group:
        await say(bot, chat_context, texts.manage_in_private, tuning)
        return
    raw = (command.args or "").strip()
    parts = split_paths(raw)
    path = parts[0] if len(parts) == 1 else raw
    if not path or message.from_user is None:
        await say(bot, chat_context, texts.rm_usage, tuning)
        return
    try:
        scope = await _scope(scopes, message.chat.id, message.from_user.id)
        rel = await documents.existing(path, scope)
    except DocumentError as exc:
        await say(bot, chat_context, texts.path_problem(exc.problem, exc.path), tuning)
        return
    question = texts.rm_confirm.format(
        path=f"<code>{escape(rel)}</code>", days=texts.number(settings.trash_days)
    )
    pending = Pending(message.from_user.id, message.chat.id, "rm", (rel,))
    await _ask(
        bot, message, question=question, pending=pending, confirmations=confirmations, texts=texts
    )


async def on_mv(
    message: Message,
    command: CommandObject,
    *,
    bot: Bot,
    documents: Documents,
    confirmations: Confirmations,
    tuning: Tuning,
    chat_context: ChatContext,
    scopes: Scopes | None = None,
) -> None:
    """Check both paths and ask for a tap before anything moves."""
    texts = chat_context.texts
    if chat_context.is_group:
        await say(bot, chat_context, texts.manage_in_private, tuning)
        return
    parts = split_paths((command.args or "").strip())
    if len(parts) != 2 or message.from_user is None:
        await say(bot, chat_context, texts.mv_usage, tuning)
        return
    try:
        scope = await _scope(scopes, message.chat.id, message.from_user.id)
        plan = await documents.move_target(parts[0], parts[1], scope)
    except DocumentError as exc:
        await say(bot, chat_context, texts.path_problem(exc.problem, exc.path), tuning)
        return
    question = texts.mv_confirm.format(
        source=f"<code>{escape(plan.source)}</code>", target=f"<code>{escape(plan.target)}</code>"
    )
    pending = Pending(message.from_user.id, message.chat.id, "mv", (plan.source, plan.target))
    await _ask(
        bot, message, question=question, pending=pending, confirmations=confirmations, texts=texts
    )


async def on_trash(
    message: Message,
    *,
    bot: Bot,
    documents: Documents,
    settings: Settings,
    tuning: Tuning,
    chat_context: ChatContext,
    scopes: Scopes | None = None,
) -> None:
    """What is in the trash, newest first, each with a restore button."""
    texts = chat_context.texts
    if chat_context.is_group:
        await say(bot, chat_context, texts.manage_in_private, tuning)
        return
    asker = message.from_user.id if message.from_user is not None else None
    scope = await _scope(scopes, message.chat.id, asker)
    items = (await documents.trashed(scope))[:TRASH_SHOWN]
    text = texts.trash_listing(
        [(item.path, when(item.deleted_at)) for item in items], settings.trash_days
    )
    if not items:
        await say(bot, chat_context, text, tuning)
        return
    rows = [
        [
            InlineKeyboardButton(
                text=texts.restore_button.format(n=n, path=_short(item.path)),
                callback_data=RestoreItem(item_id=item.item_id).pack(),
            )
        ]
        for n, item in enumerate(items, start=1)
    ]
    await bot.send_message(
        message.chat.id,
        text,
        parse_mode="HTML",
        reply_markup=InlineKeyboardMarkup(inline_keyboard=rows),
    )


async def on_confirm(
    query: CallbackQuery,
    callback_data: DocumentAction,
    *,
    bot: Bot,
    is_admin: bool,
    documents: Documents,
    confirmations: Confirmations,
    audit: AuditLog,
    chat_context: ChatContext,
    scopes: Scopes | None = None,
) -> None:
    """A tap on "Yes" or "Cancel" under `/rm` or `/mv`: only its admin, only once."""
    texts = chat_context.texts
    pressed = query.message
    if pressed is None or isinstance(pressed, InaccessibleMessage):
        await _pop_up(query, texts.confirm_expired)
        return
    pending = await confirmations.take(
        callback_data.confirm_id, user_id=query.from_user.id, chat_id=pressed.chat.id
    )
    if pending is None or pending.action not in {"rm", "mv"}:
        await _pop_up(query, texts.confirm_expired)
        return
    if not is_admin:
        await _pop_up(query, texts.admin_only)
        return
    await _pop_up(query, None)
    if callback_data.answer != "y":
        await _replace(bot, pressed, texts.cancelled)
        return
    try:
        scope = await _scope(scopes, pressed.chat.id, query.from_user.id)
        reply = await _do(
            pending,
            documents=documents,
            audit=audit,
            user=query.from_user,
            texts=texts,
            scope=scope,
        )
    except DocumentError as exc:  # the folder changed since the question was asked
        reply = texts.path_problem(exc.problem, exc.path)
    except (OSError, sqlite3.Error):
        log.exception("%s of %s failed", pending.action, pending.args)
        reply = texts.change_failed
    await _replace(bot, pressed, reply)


async def on_restore(
    query: CallbackQuery,
    callback_data: RestoreItem,
    *,
    bot: Bot,
    is_admin: bool,
    documents: Documents,
    audit: AuditLog,
    tuning: Tuning,
    chat_context: ChatContext,
    scopes: Scopes | None = None,
) -> None:
    """A tap on an item under `/trash`: it goes back where it was, unless something is there."""
    texts = chat_context.texts
    if not is_admin or chat_context.is_group:
        await _pop_up(query, texts.admin_only)
        return
    if not is_trash_id(callback_data.item_id):
        await _pop_up(query, texts.restore_gone)
        return
    try:
        scope = await _scope(scopes, chat_context.place.chat_id, query.from_user.id)
        item = await documents.restore(callback_data.item_id, scope)
    except DocumentError as exc:
        await _pop_up(query, None)
        if exc.problem == "exists":
            reply = texts.restore_conflict.format(path=f"<code>{escape(exc.path)}</code>")
        else:
            reply = texts.path_problem(exc.problem, exc.path)
        await say(bot, chat_context, reply, tuning)
        return
    except OSError:
        log.exception("restoring trash item %s failed", callback_data.item_id)
        await _pop_up(query, None)
        await say(bot, chat_context, texts.change_failed, tuning)
        return
    if item is None:
        await _pop_up(query, texts.restore_gone)
        return
    await _pop_up(query, None)
    await audit.record(
        "restore", item.path, actor_id=query.from_user.id, actor_name=query.from_user.full_name
    )
    await say(
        bot,
        chat_context,
        texts.restore_done.format(path=f"<code>{escape(item.path)}</code>"),
        tuning,
    )


async def _do(
    pending: Pending,
    *,
    documents: Documents,
    audit: AuditLog,
    user: User,
    texts: Texts,
    scope: Scope | None,
) -> str:
    """Carry out a confirmed action, record it, and say what was done."""
    if pending.action == "rm":
        (path,) = pending.args
        item = await documents.delete(path, by=user.id, scope=scope)
        await audit.record("delete", item.path, actor_id=user.id, actor_name=user.full_name)
        return texts.rm_done.format(path=f"<code>{escape(item.path)}</code>")
    source, target = pending.args
    moved = await documents.move(source, target, scope)
    await audit.record(
        "move", moved.source, detail=moved.target, actor_id=user.id, actor_name=user.full_name
    )
    return texts.mv_done.format(
        source=f"<code>{escape(moved.source)}</code>",
        target=f"<code>{escape(moved.target)}</code>",
    )


async def _ask(
    bot: Bot,
    message: Message,
    *,
    question: str,
    pending: Pending,
    confirmations: Confirmations,
    texts: Texts,
) -> None:
    """Keep the action under a new id and send the question with its two buttons."""
    confirm_id = await confirmations.ask(pending)
    buttons = InlineKeyboardMarkup(
        inline_keyboard=[
            [
                InlineKeyboardButton(
                    text=texts.confirm_button,
                    callback_data=DocumentAction(answer="y", confirm_id=confirm_id).pack(),
                ),
                InlineKeyboardButton(
                    text=texts.cancel_button,
                    callback_data=DocumentAction(answer="n", confirm_id=confirm_id).pack(),
                ),
            ]
        ]
    )
    await bot.send_message(message.chat.id, question, parse_mode="HTML", reply_markup=buttons)


async def _scope(scopes: Scopes | None, chat_id: int, user_id: int | None) -> Scope | None:
    """The scope the admin works within in this chat; None for the whole folder."""
    if scopes is None:
        return None
    return await scopes.for_question(chat_id, user_id)


async def _replace(bot: Bot, pressed: Message, html: str) -> None:
    """The question becomes its outcome, and its buttons go away."""
    try:
        await bot.edit_message_text(
            text=html, chat_id=pressed.chat.id, message_id=pressed.message_id, parse_mode="HTML"
        )
    except TelegramAPIError as exc:  # deleted meanwhile: say it anew instead
        log.info("confirm message %d not edited: %s", pressed.message_id, exc)
        await bot.send_message(pressed.chat.id, html, parse_mode="HTML")


async def _pop_up(query: CallbackQuery, text: str | None) -> None:
    """Answer the tap (a pop-up when there is something to say); a stale query is only logged."""
    try:
        await query.answer(text, show_alert=text is not None)
    except TelegramAPIError as exc:
        log.info("could not answer a button tap: %s", exc)


def _short(path: str) -> str:
    """A path short enough for a button, its end kept (the name matters most)."""
    return path if len(path) <= _BUTTON_PATH else "…" + path[-(_BUTTON_PATH - 1) :]
