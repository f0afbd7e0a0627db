"""Long pastes: Telegram splits a text over 4096 characters into several messages.

Answering each piece on its own wastes rounds and confuses the model. A long piece opens a
short window; further pieces from the same conversation are appended to it, and the window
closes as soon as a short piece (the tail of the paste) arrives, or after `window_s`.
Only the first piece reaches the handler, carrying the whole text as `joined_text`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from aiogram import BaseMiddleware
from aiogram.dispatcher.flags import get_flag
from aiogram.types import Message, TelegramObject

from bot.telegram.context import CHAT_CONTEXT, ChatContext
from bot.telegram.middlewares.order import TURNED_AWAY

log = logging.getLogger(__name__)

Handler = Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]]

JOINED_TEXT = "joined_text"
# Clients split at 4096 UTF-16 units, on a word boundary where they can.
LONG_PIECE_UNITS = 3500


def _units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


@dataclass
class _Paste:
    pieces: list[str]
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    tail_seen: bool = False


class PasteJoiner(BaseMiddleware):
    """Inner message middleware before the per-conversation order: joins split pastes."""

    def __init__(self, window_s: float = 1.5) -> None:
        self._window = window_s
        self._open: dict[str, _Paste] = {}

    async def __call__(self, handler: Handler, event: TelegramObject, data: dict[str, Any]) -> Any:
        if not isinstance(event, Message) or not event.text or not get_flag(data, "question"):
            return await handler(event, data)
        context: ChatContext = data[CHAT_CONTEXT]
        key = context.conversation
        paste = self._open.get(key)
        if paste is not None:
            paste.pieces.append(event.text)
            paste.tail_seen = _units(event.text) < LONG_PIECE_UNITS
            paste.arrived.set()
            data[TURNED_AWAY] = True  # part of a question already counted
            return None
        if _units(event.text) < LONG_PIECE_UNITS:
            return await handler(event, data)
        paste = self._open[key] = _Paste([event.text])
        try:
            await self._collect(paste)
        finally:
            del self._open[key]
        if len(paste.pieces) > 1:
            log.info("joined %d pieces of a long paste in %s", len(paste.pieces), key)
            data[JOINED_TEXT] = "\n".join(paste.pieces)
        return await handler(event, data)

    async def _collect(self, paste: _Paste) -> None:
        """Wait for more pieces until a short one ends the paste or none comes in time."""
        while not paste.tail_seen:
            paste.arrived.clear()
            try:
                await asyncio.wait_for(paste.arrived.wait(), self._window)
            except TimeoutError:
                return
