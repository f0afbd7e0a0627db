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
from aiogram.filters import Command, CommandObject, MagicData
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message, User

from bot.documents.manager import DocumentError, Documents
from bot.documents.trash import is_trash_id
from bot.settings.model import Settings
from bot.storage.audit import AuditLog
from bot.storage.confirmations import Confirmations, Pending
from bot.telegram.context import ChatContext
from bot.telegram.handlers.confirm import Confirm, ConfirmButton
from bot.telegram.handlers.private import in_private, reply_with
from bot.telegram.handlers.replies import pop_up, say
from bot.telegram.texts import Texts
from bot.telegram.texts.names import tail
from bot.telegram.texts.people import when
from bot.telegram.tuning import Tuning
from tools.jail.scope import Scope

log = logging.getLogger(__name__)

TRASH_SHOWN = 20
_BUTTON_PATH = 40


class DocumentAction(ConfirmButton, prefix="doc"):
    """A confirm button: `doc:y:<id>` does the action kept under the id, `doc:n:<id>` drops it."""


class RestoreItem(CallbackData, prefix="restore"):
    """A restore button under `/trash`: the trash item's id."""

    item_id: str


CHANGE = Confirm(DocumentAction, actions={"rm", "mv"}, yes=lambda texts: texts.confirm_button)


def make_router() -> Router:
    """Admin-only commands and their buttons, in private chats; others' commands fall through
    to the notice."""
    router = Router(name="documents")
    router.callback_query.register(on_confirm, CHANGE.filter())
    router.callback_query.register(
        on_restore, RestoreItem.filter(), in_private, MagicData(F.is_admin)
    )
    router.callback_query.register(reply_with(lambda t: t.admin_only), RestoreItem.filter())
    router.message.filter(MagicData(F.is_admin))
    router.message.register(on_rm, Command("rm"), in_private)
    router.message.register(on_mv, Command("mv"), in_private)
    router.message.register(on_trash, Command("trash"), in_private)
    router.message.register(
        reply_with(lambda t: t.manage_in_private), Command("rm", "mv", "trash")
    )
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
) -> None:
    """Check the path and ask for a tap before it goes to the trash."""
    texts = chat_context.texts
    raw = (command.args or "").strip()
    parts = split_paths(raw)
    path = parts[0] if len(parts) == 1 else raw
    if not path or message.from_user is None:
        await say(bot, chat_context, texts.rm_usage, tuning)
        return
    try:
        rel = await documents.existing(path, await chat_context.scope())
    except DocumentError as exc:
        await say(bot, chat_context, texts.path_problem(exc.problem, exc.path), tuning)
        return
    question = texts.rm_confirm.format(path=_code(rel), days=texts.number(settings.trash_days))
    pending = Pending(message.from_user.id, message.chat.id, "rm", (rel,))
    await CHANGE.ask(bot, chat_context, pending, question, confirmations=confirmations)


async def on_mv(
    message: Message,
    command: CommandObject,
    *,
    bot: Bot,
    documents: Documents,
    confirmations: Confirmations,
    tuning: Tuning,
    chat_context: ChatContext,
) -> None:
    """Check both paths and ask for a tap before anything moves."""
    texts = chat_context.texts
    parts = split_paths((command.args or "").strip())
    if len(parts) != 2 or message.from_user is None:
        await say(bot, chat_context, texts.mv_usage, tuning)
        return
    try:
        plan = await documents.move_target(parts[0], parts[1], await chat_context.scope())
    except DocumentError as exc:
        await say(bot, chat_context, texts.path_problem(exc.problem, exc.path), tuning)
        return
    question = texts.mv_confirm.format(source=_code(plan.source), target=_code(plan.target))
    pending = Pending(message.from_user.id, message.chat.id, "mv", (plan.source, plan.target))
    await CHANGE.ask(bot, chat_context, pending, question, confirmations=confirmations)


async def on_trash(
    message: Message,
    *,
    bot: Bot,
    documents: Documents,
    settings: Settings,
    tuning: Tuning,
    chat_context: ChatContext,
) -> None:
    """What is in the trash, newest first, each with a restore button."""
    texts = chat_context.texts
    items = (await documents.trashed(await chat_context.scope()))[:TRASH_SHOWN]
    text = texts.trash_listing(
        [(item.path, when(item.deleted_at)) for item in items], settings.trash_days
    )
    if not items:
        await say(bot, chat_context, text, tuning)
        return
    rows = [
        [
            InlineKeyboardButton(
                text=texts.restore_button.format(n=n, path=tail(item.path, _BUTTON_PATH)),
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
) -> None:
    """A tap on "Yes" or "Cancel" under `/rm` or `/mv`: only its admin, only once."""
    texts = chat_context.texts

    async def change(pending: Pending) -> str:
        try:
            scope = await chat_context.scope()
            return await _do(
                pending,
                documents=documents,
                audit=audit,
                user=query.from_user,
                texts=texts,
                scope=scope,
            )
        except DocumentError as exc:  # the folder changed since the question was asked
            return texts.path_problem(exc.problem, exc.path)
        except (OSError, sqlite3.Error):
            log.exception("%s of %s failed", pending.action, pending.args)
            return texts.change_failed

    await CHANGE.settle(
        query,
        callback_data,
        bot=bot,
        texts=texts,
        confirmations=confirmations,
        carry_out=change,
        refusal=None if is_admin else texts.admin_only,
    )


async def on_restore(
    query: CallbackQuery,
    callback_data: RestoreItem,
    *,
    bot: Bot,
    documents: Documents,
    audit: AuditLog,
    tuning: Tuning,
    chat_context: ChatContext,
) -> None:
    """A tap on an item under `/trash`: it goes back where it was, unless something is there."""
    texts = chat_context.texts
    if not is_trash_id(callback_data.item_id):
        await pop_up(query, texts.restore_gone)
        return
    try:
        item = await documents.restore(callback_data.item_id, await chat_context.scope())
    except DocumentError as exc:
        await pop_up(query, None)
        if exc.problem == "exists":
            reply = texts.restore_conflict.format(path=_code(exc.path))
        else:
            reply = texts.path_problem(exc.problem, exc.path)
        await say(bot, chat_context, reply, tuning)
        return
    except OSError:
        log.exception("restoring trash item %s failed", callback_data.item_id)
        await pop_up(query, None)
        await say(bot, chat_context, texts.change_failed, tuning)
        return
    if item is None:
        await pop_up(query, texts.restore_gone)
        return
    await pop_up(query, None)
    await audit.record(
        "restore", item.path, actor_id=query.from_user.id, actor_name=query.from_user.full_name
    )
    await say(bot, chat_context, texts.restore_done.format(path=_code(item.path)), tuning)


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
        return texts.rm_done.format(path=_code(item.path))
    source, target = pending.args
    moved = await documents.move(source, target, scope)
    await audit.record(
        "move", moved.source, detail=moved.target, actor_id=user.id, actor_name=user.full_name
    )
    return texts.mv_done.format(source=_code(moved.source), target=_code(moved.target))


def _code(path: str) -> str:
    """A path as the bot's HTML shows it."""
    return f"<code>{escape(path)}</code>"
