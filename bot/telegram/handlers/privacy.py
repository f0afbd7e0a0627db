"""`/forget`: anyone deletes their own conversations with the bot, for good, after a tap.

"Their conversations" are the ones keyed by them: their private chat with the bot
(`chat:<id>`) and their own questions and the bot's answers in groups (`chat:<group>:user:<id>`,
as each member has a conversation of their own there). Other members' conversations in the same
group are theirs and stay. With them go the ids behind source buttons in their private chat,
their access request and what it noted (their access itself stays), and any other confirm
button they left waiting. The admins' audit log is not touched: it is the record of what admins
did, not of anyone's questions.
"""

from __future__ import annotations

import logging
import sqlite3
from typing import Protocol

from aiogram import Bot, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.filters import Command
from aiogram.filters.callback_data import CallbackData
from aiogram.types import (
    CallbackQuery,
    InaccessibleMessage,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
)

from bot.access import AccessPolicy
from bot.agent import KeyedLocks
from bot.storage.confirmations import Confirmations, Pending
from bot.storage.source_links import SourceLinks
from bot.telegram.context import ChatContext

log = logging.getLogger(__name__)


class ConversationLog(Protocol):
    """What `/forget` needs of the history, whichever database keeps it."""

    async def forget_user(self, user_id: int) -> int:
        """Delete every conversation of one person; how many."""
        ...


class ForgetAnswer(CallbackData, prefix="forget"):
    """The buttons under `/forget`: `forget:y:<id>` deletes, `forget:n:<id>` cancels."""

    answer: str
    confirm_id: str


def make_router() -> Router:
    """`/forget` and its buttons, for everyone the bot serves."""
    router = Router(name="privacy")
    router.message.register(on_forget, Command("forget"))
    router.callback_query.register(on_forget_answer, ForgetAnswer.filter())
    return router


async def on_forget(
    message: Message, *, bot: Bot, confirmations: Confirmations, chat_context: ChatContext
) -> None:
    """Say what will be deleted, and that it is for good; nothing is deleted before the tap."""
    texts = chat_context.texts
    if message.from_user is None:
        return
    confirm_id = await confirmations.ask(
        Pending(message.from_user.id, message.chat.id, "forget", ())
    )
    buttons = InlineKeyboardMarkup(
        inline_keyboard=[
            [
                InlineKeyboardButton(
                    text=texts.forget_button,
                    callback_data=ForgetAnswer(answer="y", confirm_id=confirm_id).pack(),
                ),
                InlineKeyboardButton(
                    text=texts.cancel_button,
                    callback_data=ForgetAnswer(answer="n", confirm_id=confirm_id).pack(),
                ),
            ]
        ]
    )
    place = chat_context.place
    await bot.send_message(
        place.chat_id,
        texts.forget_confirm,
        parse_mode="HTML",
        reply_markup=buttons,
        message_thread_id=place.thread_id,
    )


async def on_forget_answer(
    query: CallbackQuery,
    callback_data: ForgetAnswer,
    *,
    bot: Bot,
    history: ConversationLog,
    locks: KeyedLocks,
    source_links: SourceLinks,
    access: AccessPolicy,
    confirmations: Confirmations,
    chat_context: ChatContext,
) -> None:
    """The tap of the person who asked: delete (or cancel), then say it is done."""
    texts = chat_context.texts
    pressed = query.message
    if pressed is None or isinstance(pressed, InaccessibleMessage):
        await _pop_up(query, texts.confirm_expired)
        return
    user_id = query.from_user.id
    pending = await confirmations.take(
        callback_data.confirm_id, user_id=user_id, chat_id=pressed.chat.id
    )
    if pending is None or pending.action != "forget":
        await _pop_up(query, texts.confirm_expired)
        return
    await _pop_up(query, None)
    if callback_data.answer != "y":
        await _replace(bot, pressed, texts.cancelled)
        return
    try:
        # Their private conversation waits for a question in flight to end, so no turn is
        # written after the deletion.
        async with locks.hold(f"chat:{user_id}"):
            deleted = await history.forget_user(user_id)
            await source_links.forget_chat(user_id)
            await access.forget(user_id)
            await confirmations.forget_user(user_id)
    except (sqlite3.Error, OSError):
        log.exception("forgetting user %d failed", user_id)
        await _replace(bot, pressed, texts.error_generic)
        return
    log.info("user %d had %d conversation(s) deleted at their request", user_id, deleted)
    await _replace(bot, pressed, texts.forget_done_reply(deleted))


async def _replace(bot: Bot, pressed: Message, html: str) -> None:
    """The question becomes its outcome, and its buttons go away."""
    try:
        await bot.edit_message_text(
            text=html, chat_id=pressed.chat.id, message_id=pressed.message_id, parse_mode="HTML"
        )
    except TelegramAPIError as exc:  # deleted meanwhile: say it anew instead
        log.info("forget message %d not edited: %s", pressed.message_id, exc)
        await bot.send_message(pressed.chat.id, html, parse_mode="HTML")


async def _pop_up(query: CallbackQuery, text: str | None) -> None:
    """Answer the tap (a pop-up when there is something to say); a stale query is only logged."""
    try:
        await query.answer(text, show_alert=text is not None)
    except TelegramAPIError as exc:
        log.info("could not answer a button tap: %s", exc)
