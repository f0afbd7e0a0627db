"""A tap is obeyed only on the message its button was made for.

Telegram does not sign a button's data: a client may send any data together with any message
id it sees, so "Ask an expert" from one answer could be pressed on another person's message,
in another chat. Every router's taps pass here first: the data must be one the bot put on that
very message (`bot.storage.buttons`, recorded by `bot.telegram.button_records`). Otherwise the
tap gets a short answer and nothing else happens: a message the bot kept no buttons for (sent
before they were recorded, or long ago) says the button is outdated; data made for another
message says it does not belong here. The handlers behind go on checking who may press what.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware
from aiogram.exceptions import TelegramAPIError
from aiogram.types import CallbackQuery, TelegramObject

from bot.storage.buttons import Buttons, Match
from bot.telegram.context import ChatContext
from bot.telegram.texts import Texts, texts_for

log = logging.getLogger(__name__)

Handler = Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]]


class BoundButtons(BaseMiddleware):
    """Outer callback-query middleware: lets through only taps on the message their data is
    kept for."""

    def __init__(self, buttons: Buttons) -> None:
        self._buttons = buttons

    async def __call__(self, handler: Handler, event: TelegramObject, data: dict[str, Any]) -> Any:
        assert isinstance(event, CallbackQuery)  # registered on callback queries only
        match = await self._match(event)
        if match == "bound":
            return await handler(event, data)
        context = data.get("chat_context")
        texts = (
            context.texts
            if isinstance(context, ChatContext)
            else texts_for(event.from_user.language_code)
        )
        await _refuse(event, texts, match)
        return None

    async def _match(self, query: CallbackQuery) -> Match | None:
        """What the tap's data is to its message; None when the record cannot be read."""
        pressed = query.message
        if pressed is None or query.data is None:  # an inline message's: none carries ours
            return "unknown"
        try:
            return await self._buttons.match(pressed.chat.id, pressed.message_id, query.data)
        except Exception as exc:  # either backend's failure: refuse rather than obey unchecked
            log.warning("a tap could not be checked against its message's buttons: %s", exc)
            return None


async def _refuse(query: CallbackQuery, texts: Texts, match: Match | None) -> None:
    """A short answer to a tap that is not obeyed; a stale query is only logged."""
    pressed = query.message
    log.info(
        "refused a tap by user %d on message %s in chat %s: %s (data %r)",
        query.from_user.id,
        pressed.message_id if pressed is not None else "-",
        pressed.chat.id if pressed is not None else "-",
        match or "unchecked",
        (query.data or "").split(":", 1)[0][:16],
    )
    text = {"other": texts.button_not_here, "unknown": texts.button_outdated}.get(
        match or "", texts.error_generic
    )
    try:
        await query.answer(text, show_alert=True)
    except TelegramAPIError as exc:
        log.info("could not answer the tap of user %d: %s", query.from_user.id, exc)
