"""Filters shared by routers."""

from __future__ import annotations

from aiogram import Bot
from aiogram.types import Message

from bot.handlers.addressing import addressed_to_bot


async def addressed(message: Message, bot: Bot) -> bool:
    """In groups: only messages that mention or reply to the bot; private chats always."""
    return addressed_to_bot(message, await bot.me())
