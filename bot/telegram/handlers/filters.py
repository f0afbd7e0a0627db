"""Filters shared by routers.

Every filter here is a coroutine: aiogram runs a synchronous filter (a bare `F.text` among
them) in a worker thread, a thread hand-off for each filter of each update that reaches it.
"""

from __future__ import annotations

from typing import Any

from aiogram import Bot
from aiogram.filters import Filter
from aiogram.types import Message, TelegramObject
from aiogram.utils.magic_filter import MagicFilter

from bot.telegram.addressing import addressed_to_bot, parse_command


class Matches(Filter):
    """A magic filter (`Matches(F.text)`) checked on the event loop instead of in a thread.

    It only reads the event's attributes, so there is nothing to keep off the loop.
    """

    def __init__(self, magic: MagicFilter) -> None:
        self.magic = magic

    async def __call__(self, event: TelegramObject, **_: Any) -> bool:
        return bool(self.magic.resolve(event))


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
