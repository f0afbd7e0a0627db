"""Commands and buttons that work in private chats only, and the one answer they get elsewhere.

Document management, access lists and the audit log name people and paths, so they never
answer in a group; `/start` in a group explains how the bot is used there instead. Rather than
each handler asking "is this a group?", the routers register such handlers with `in_private`
and, after them, a `reply_with` handler for the same commands that says where they work.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from aiogram import Bot
from aiogram.types import CallbackQuery, Message, TelegramObject

from bot.telegram.context import ChatContext
from bot.telegram.handlers.replies import pop_up, say
from bot.telegram.texts import Texts
from bot.telegram.tuning import Tuning

Notice = Callable[..., Awaitable[None]]


async def in_private(event: TelegramObject, chat_context: ChatContext | None = None) -> bool:
    """The update comes from a private chat (a tap: from under a message in one)."""
    return chat_context is not None and not chat_context.is_group


def reply_with(text_of: Callable[[Texts], str]) -> Notice:
    """A handler that only answers with one of the bot's texts: a message is answered in its
    chat, a tap with a pop-up."""

    async def reply(
        event: Message | CallbackQuery, *, bot: Bot, tuning: Tuning, chat_context: ChatContext
    ) -> None:
        text = text_of(chat_context.texts)
        if isinstance(event, CallbackQuery):
            await pop_up(event, text)
        else:
            await say(bot, chat_context, text, tuning)

    return reply
