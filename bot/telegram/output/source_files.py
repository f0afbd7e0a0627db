"""Sending one source document to the chat whose user pressed its button.

The document is found again through the jail at every press (`Sandbox.resolve`): a file that
was deleted, moved, or replaced by a link leading outside the documents folder since the
answer is not sent. A file within Telegram's upload limit for bots (50 MB; 2000 MB through a
local Bot API server) goes as a document, read from disk. A larger one cannot be sent; its
first page, as the read_file tool returns it (the page the answer was built from), goes as
text after a line saying why, split to fit Telegram's messages.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError, TelegramForbiddenError, TelegramRetryAfter
from aiogram.types import FSInputFile

from bot.telegram.output.delivery import Chunk, Delivery, Renderable
from bot.telegram.output.pacing import ChatPlace
from bot.telegram.render.markup import Span
from bot.telegram.render.split import split_spans
from bot.telegram.texts import Texts
from bot.telegram.texts.names import visible
from bot.telegram.tuning import Tuning
from tools import Sandbox, Toolbox
from tools.errors import SandboxError
from tools.jail.scope import Scope
from tools.reading import BEGIN, END

log = logging.getLogger(__name__)

MB = 1024 * 1024
UPLOAD_LIMIT_MB = 50
LOCAL_UPLOAD_LIMIT_MB = 2000
UPLOAD_TIMEOUT_S = 300
MAX_PAGE_CHARS = 16_000
_CAPTION_CHARS = 200
_MESSAGE_LIMIT = 4096
_LINE_NUMBER = re.compile(r"^ *\d+\| ?")


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A source found inside the documents folder: its relative path, real path and size."""

    rel: str
    real: Path
    size: int

    @property
    def name(self) -> str:
        """The file's own name, as the document is called in the chat."""
        return PurePosixPath(self.rel).name or self.rel


def locate(sandbox: Sandbox, rel: str) -> SourceFile | None:
    """The source at `rel` if it is still a regular file inside the folder (blocking)."""
    try:
        real = sandbox.resolve(rel)
        info = os.stat(real)
    except (SandboxError, OSError) as exc:
        log.info("source %r is not available: %s", rel, exc)
        return None
    if not stat.S_ISREG(info.st_mode):
        log.info("source %r is no longer a regular file", rel)
        return None
    return SourceFile(rel, real, info.st_size)


async def within_scope(
    toolbox: Toolbox, scope: Scope | None, rel: str
) -> SourceFile | Literal["outside", "gone"]:
    """The source at `rel` as someone working within `scope` may have it sent now: "outside"
    when the scope does not admit it, "gone" when it is no longer a file in the folder."""
    jail = toolbox.sandbox.within(scope)
    if not await asyncio.to_thread(jail.admits_file, rel):
        return "outside"
    source = await asyncio.to_thread(locate, jail, rel)
    return "gone" if source is None else source


class SourceSender:
    """Sends sources to one chat place; failures are told there in a short line."""

    def __init__(
        self, bot: Bot, place: ChatPlace, texts: Texts, tuning: Tuning, *, local_api: bool
    ) -> None:
        self._bot = bot
        self._place = place
        self._texts = texts
        self._tuning = tuning
        self._limit_mb = LOCAL_UPLOAD_LIMIT_MB if local_api else UPLOAD_LIMIT_MB

    async def send(
        self, source: SourceFile, toolbox: Toolbox, *, scope: Scope | None = None
    ) -> None:
        """The document itself, or its first page as text when it is too large to send; the
        page is read within the tapper's `scope`."""
        if source.size <= self._limit_mb * MB:
            await self._document(source)
            return
        page = await quoted_page(toolbox, source.rel, scope=scope)
        size_mb = source.size / MB
        if page is None:
            notice = self._texts.source_unreadable_reply(source.name, size_mb)
            await self._deliver([Chunk.from_html(notice)])
            return
        notice = self._texts.source_too_big_reply(source.name, size_mb, self._limit_mb)
        pieces = split_spans([Span(page)], _MESSAGE_LIMIT)
        await self._deliver([Chunk.from_html(notice), *(Chunk(h, p) for h, p in pieces)])

    async def _document(self, source: SourceFile) -> None:
        """Upload the file; flood control is waited out once, within the waiting budget."""
        for attempt in range(2):
            try:
                await self._upload(source)
            except TelegramRetryAfter as exc:
                wait = float(exc.retry_after)
                if attempt == 0 and wait <= self._tuning.retry_wait_cap_s:
                    await self._tuning.sleep(wait)
                    continue
                log.warning("source %r not sent: %s", source.rel, exc)
            except TelegramForbiddenError as exc:
                log.info("chat %d is closed to the bot: %s", self._place.chat_id, exc)
                return
            except TelegramAPIError as exc:
                log.warning(
                    "source %r not sent to chat %d: %s", source.rel, self._place.chat_id, exc
                )
            else:
                log.info("sent source %r to chat %d", source.rel, self._place.chat_id)
                return
            break
        await self._deliver([Chunk.from_html(self._texts.source_send_failed_reply(source.name))])

    async def _upload(self, source: SourceFile) -> None:
        caption = visible(source.rel)
        if len(caption) > _CAPTION_CHARS:
            caption = "…" + caption[-(_CAPTION_CHARS - 1) :]
        await self._bot.send_document(
            chat_id=self._place.chat_id,
            document=FSInputFile(source.real, filename=source.name),
            caption=caption,
            parse_mode=None,
            message_thread_id=self._place.thread_id,
            reply_parameters=self._place.reply_parameters(),
            request_timeout=UPLOAD_TIMEOUT_S,
        )

    async def _deliver(self, parts: list[Renderable]) -> None:
        delivery = Delivery(
            self._bot,
            self._place,
            retry_wait_cap_s=self._tuning.retry_wait_cap_s,
            sleep=self._tuning.sleep,
        )
        await delivery.send(parts)


async def quoted_page(toolbox: Toolbox, rel: str, *, scope: Scope | None = None) -> str | None:
    """The first page read_file gives of `rel` (within `scope`), as plain lines; None when it
    cannot be read."""
    result = await toolbox.execute("read_file", {"path": rel}, scope=scope)
    if result.error is not None:
        log.info("source %r cannot be read: %s", rel, result.error)
        return None
    try:
        document = json.loads(result.text)["document"]
    except (ValueError, KeyError, TypeError) as exc:
        log.warning("read_file gave %r no page: %s", rel, exc)
        return None
    lines = [
        _LINE_NUMBER.sub("", line, count=1)
        for line in str(document).split("\n")
        if line not in (BEGIN, END)
    ]
    page = "\n".join(lines).strip()
    if len(page) > MAX_PAGE_CHARS:
        page = page[: MAX_PAGE_CHARS - 1].rstrip() + "…"
    return page or None
