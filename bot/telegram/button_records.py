"""Recording which message carries which button data, where every request passes: a middleware
of the Bot session.

Answers, confirmations, access requests, expert notes: each feature sends its buttons its own
way, but all of them go through the session, which sees the keyboard going out and the message
it landed on. So one middleware keeps every inline button's data under the message's chat and
id (`bot.storage.buttons`), and `middlewares.bound_buttons` obeys a tap only when its data is
kept under the message it came from. A keyboard whose record cannot be written costs only its
buttons (a tap then says they are outdated), never the message.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from aiogram.client.session.middlewares.base import BaseRequestMiddleware
from aiogram.types import InlineKeyboardMarkup, Message

from bot.storage.buttons import Buttons

if TYPE_CHECKING:
    from aiogram import Bot
    from aiogram.client.session.middlewares.base import NextRequestMiddlewareType
    from aiogram.methods import TelegramMethod
    from aiogram.methods.base import Response, TelegramType

log = logging.getLogger(__name__)


def button_data(markup: object) -> list[str]:
    """The callback data of an inline keyboard's buttons, in order; none for anything else."""
    if not isinstance(markup, InlineKeyboardMarkup):
        return []
    return [b.callback_data for row in markup.inline_keyboard for b in row if b.callback_data]


def landed_on(method: TelegramMethod[Any], result: object) -> tuple[int, int] | None:
    """The chat and message id a sent or edited message has: the message Telegram answered
    with, or for an edit answered with `True`, the one it named; None for an inline message."""
    if isinstance(result, Message):
        return result.chat.id, result.message_id
    chat_id = getattr(method, "chat_id", None)
    message_id = getattr(method, "message_id", None)
    if result is True and isinstance(chat_id, int) and isinstance(message_id, int):
        return chat_id, message_id
    return None


class ButtonRecorder(BaseRequestMiddleware):
    """Keeps the data of every inline keyboard the bot sends, under the message it is on."""

    def __init__(self, buttons: Buttons) -> None:
        self._buttons = buttons

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        result = await make_request(bot, method)
        data = button_data(getattr(method, "reply_markup", None))
        where = landed_on(method, result) if data else None
        if where is not None:
            try:
                await self._buttons.keep(*where, data)
            except Exception as exc:  # either backend's failure; the message is out already
                log.warning(
                    "the buttons of message %d in chat %d were not recorded, so they will not "
                    "work: %s",
                    where[1],
                    where[0],
                    exc,
                )
        return result


async def record_buttons(bot: Bot, buttons: Buttons) -> None:
    """Record into `buttons` what the bot's session sends (a dispatcher start-up hook, so the
    Bot it records for is the one that runs); a recorder an earlier start left goes."""
    await stop_recording(bot)
    bot.session.middleware(ButtonRecorder(buttons))


async def stop_recording(bot: Bot) -> None:
    """Detach the session's recorder (a shutdown hook: its store closes after this)."""
    for middleware in [m for m in bot.session.middleware if isinstance(m, ButtonRecorder)]:
        bot.session.middleware.unregister(middleware)
