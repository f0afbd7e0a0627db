"""Albums of pictures: Telegram sends each picture of a media group as a message of its own.

Answering each picture on its own would ask the model several times about one thing. The first
picture of an album opens a short window; further pictures of the same album join it, each
keeping it open `window_s` longer. Then one message goes on, the one carrying the caption (in
a group the caption is what mentions the bot), with every picture of the album, in the order
sent, under `ALBUM`. This runs before the routers' filters, so a group's addressing rules see
the caption wherever in the album it was.

Only pictures that will be questions are gathered: photos, and image documents from people who
are not admins (an admin's documents are uploads, each saved on its own). With several webhook
workers the pictures of one album may reach different workers, and each then asks about the
pictures it has.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from aiogram import BaseMiddleware
from aiogram.types import Message, TelegramObject

from bot.telegram.picture_files import is_image_document

log = logging.getLogger(__name__)

Handler = Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]]

ALBUM = "album"


@dataclass
class _Album:
    items: list[Message]
    arrived: asyncio.Event = field(default_factory=asyncio.Event)


def gathers(message: Message, data: dict[str, Any]) -> bool:
    """Whether the message is a picture of an album that becomes a question."""
    if message.media_group_id is None:
        return False
    if message.photo:
        return True
    document = message.document
    return document is not None and not data.get("is_admin") and is_image_document(document)


class AlbumJoiner(BaseMiddleware):
    """Outer message middleware: the pictures of one album reach the handlers as one message."""

    def __init__(self, window_s: float = 1.0) -> None:
        self._window = window_s
        self._open: dict[str, _Album] = {}

    async def __call__(self, handler: Handler, event: TelegramObject, data: dict[str, Any]) -> Any:
        if not isinstance(event, Message) or not gathers(event, data):
            return await handler(event, data)
        key = f"{event.chat.id}:{event.media_group_id}"
        album = self._open.get(key)
        if album is not None:
            album.items.append(event)
            album.arrived.set()
            return None
        album = self._open[key] = _Album([event])
        try:
            await self._collect(album)
        finally:
            del self._open[key]
        items = tuple(sorted(album.items, key=lambda item: item.message_id))
        carrier = next((item for item in items if item.caption), items[0])
        log.info("album %s: %d picture(s) in one question", key, len(items))
        data[ALBUM] = items
        return await handler(carrier, data)

    async def _collect(self, album: _Album) -> None:
        """Wait for more pictures until none has come for `window_s`."""
        while True:
            album.arrived.clear()
            try:
                await asyncio.wait_for(album.arrived.wait(), self._window)
            except TimeoutError:
                return
