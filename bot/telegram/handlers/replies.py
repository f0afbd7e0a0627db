"""The one way handlers send the bot's own texts: in the place the update's context names, or
as the answer to a button tap."""

from __future__ import annotations

import logging

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError
from aiogram.types import CallbackQuery

from bot.telegram.context import ChatContext
from bot.telegram.output.delivery import Chunk, Delivered, Delivery
from bot.telegram.tuning import Tuning

log = logging.getLogger(__name__)


async def say(bot: Bot, chat_context: ChatContext, html: str, tuning: Tuning) -> Delivered:
    """Send one of the bot's own HTML texts with the full delivery safety net."""
    delivery = Delivery(
        bot, chat_context.place, retry_wait_cap_s=tuning.retry_wait_cap_s, sleep=tuning.sleep
    )
    return await delivery.send([Chunk.from_html(html)])


async def pop_up(query: CallbackQuery, text: str | None) -> None:
    """Answer the tap (a pop-up when there is something to say); a stale query is only logged."""
    try:
        await query.answer(text, show_alert=text is not None)
    except TelegramAPIError as exc:
        log.info("could not answer a button tap: %s", exc)
