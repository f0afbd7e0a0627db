"""Sending a page of a document, drawn as a picture, to the chat whose user pressed its button.

The picture goes as a photo (`sendPhoto`, which a phone shows inline and zooms) with the
file's name and the page as its caption, in the forum topic and as a reply to the answer, as
a source's document goes. Flood control is waited out once, within the waiting budget; any
other refusal is told in the chat in a short line, never raised.
"""

from __future__ import annotations

import logging
from html import escape
from pathlib import PurePosixPath

from aiogram import Bot
from aiogram.enums import ChatAction
from aiogram.exceptions import TelegramAPIError, TelegramForbiddenError, TelegramRetryAfter
from aiogram.types import BufferedInputFile

from bot.telegram.output.delivery import Chunk, Delivery
from bot.telegram.output.pacing import ChatPlace
from bot.telegram.texts import Texts
from bot.telegram.tuning import Tuning

log = logging.getLogger(__name__)

_CAPTION_CHARS = 200


class PagePhotos:
    """Pictures of pages, and lines about them, to one chat place."""

    def __init__(self, bot: Bot, place: ChatPlace, texts: Texts, tuning: Tuning) -> None:
        self._bot = bot
        self._place = place
        self._texts = texts
        self._tuning = tuning

    async def uploading(self) -> None:
        """Show "sending a photo…" while the page is drawn (best effort)."""
        try:
            await self._bot.send_chat_action(
                chat_id=self._place.chat_id,
                action=ChatAction.UPLOAD_PHOTO,
                message_thread_id=self._place.thread_id,
            )
        except TelegramAPIError as exc:
            log.debug("could not show upload_photo in chat %d: %s", self._place.chat_id, exc)

    async def send(self, rel: str, page: int, picture: bytes) -> None:
        """The picture of page `page` of the document at `rel`, captioned with its name."""
        name = PurePosixPath(rel).name or rel
        for attempt in range(2):
            try:
                await self._photo(name, page, picture)
            except TelegramRetryAfter as exc:
                wait = float(exc.retry_after)
                if attempt == 0 and wait <= self._tuning.retry_wait_cap_s:
                    await self._tuning.sleep(wait)
                    continue
                log.warning("page %d of %r not sent: %s", page, rel, exc)
            except TelegramForbiddenError as exc:
                log.info("chat %d is closed to the bot: %s", self._place.chat_id, exc)
                return
            except TelegramAPIError as exc:
                log.warning(
                    "page %d of %r not sent to chat %d: %s", page, rel, self._place.chat_id, exc
                )
            else:
                log.info("sent page %d of %r to chat %d", page, rel, self._place.chat_id)
                return
            break
        await self.tell(self._texts.source_send_failed_reply(name), html=True)

    async def tell(self, text: str, *, html: bool = False) -> None:
        """One short line in the chat, e.g. why a page could not be shown (`text` is plain
        unless `html`)."""
        delivery = Delivery(
            self._bot,
            self._place,
            retry_wait_cap_s=self._tuning.retry_wait_cap_s,
            sleep=self._tuning.sleep,
        )
        await delivery.send([Chunk.from_html(text if html else escape(text))])

    async def _photo(self, name: str, page: int, picture: bytes) -> None:
        caption = self._texts.page_caption_text(name, page)
        if len(caption) > _CAPTION_CHARS:
            caption = "…" + caption[-(_CAPTION_CHARS - 1) :]
        stem = PurePosixPath(name).stem or "page"
        await self._bot.send_photo(
            chat_id=self._place.chat_id,
            photo=BufferedInputFile(picture, filename=f"{stem}-{page}.jpg"),
            caption=caption,
            parse_mode=None,
            message_thread_id=self._place.thread_id,
            reply_parameters=self._place.reply_parameters(),
        )
