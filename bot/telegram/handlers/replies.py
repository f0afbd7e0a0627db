"""The one way handlers send the bot's own texts: in the place the update's context names."""

from __future__ import annotations

from aiogram import Bot

from bot.telegram.context import ChatContext
from bot.telegram.output.delivery import Chunk, Delivered, Delivery
from bot.telegram.tuning import Tuning


async def say(bot: Bot, chat_context: ChatContext, html: str, tuning: Tuning) -> Delivered:
    """Send one of the bot's own HTML texts with the full delivery safety net."""
    delivery = Delivery(
        bot, chat_context.place, retry_wait_cap_s=tuning.retry_wait_cap_s, sleep=tuning.sleep
    )
    return await delivery.send([Chunk.from_html(html)])
