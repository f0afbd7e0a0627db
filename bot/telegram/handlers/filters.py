"""Filters shared by routers."""

from __future__ import annotations

from aiogram import Bot
from aiogram.types import Message

from bot.telegram.addressing import addressed_to_bot, parse_command


async def addressed(message: Message, bot: Bot) -> bool:
    """In groups: only messages that mention or reply to the bot; private chats always."""
    return addressed_to_bot(message, await bot.me())


async def bare_unknown_command(message: Message, bot: Bot) -> bool:
    """A command with nothing after it that reached the end of the known ones.

    `/usr/share где лежит?` carries more than a command, so it is left to the questions
    router; in groups only `/cmd@this_bot` or a reply to the bot counts.
    """
    call = parse_command(message.text)
    return call is not None and not call.rest and addressed_to_bot(message, await bot.me())
