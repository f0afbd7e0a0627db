"""The Bot API calls that show an answer while it is written: paced, HTML first, plain text
if Telegram cannot parse it, and never a piece of the answer in a message of unknown id.

A message the display creates starts as a bare cursor (`PLACEHOLDER`), and answer text
reaches it only by edits of its id, once Telegram has told it. The reason is the send whose
result is unclear: a read timeout or a dropped connection after the request left may come
after Telegram posted the message. The Bot API cannot list a chat's messages, so such a
message can be neither found nor deleted (guessing its id could touch someone else's), and
had it carried answer text, the final delivery could only repeat that text below it or risk
losing it. Carrying only the cursor, the worst an unclear send leaves is one stray cursor; the
display then stops and the final delivery sends everything not surely on screen, exactly once.
Edits are safe to repeat, so their failures only skip an update.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

import aiohttp
from aiogram import Bot
from aiogram.exceptions import (
    TelegramAPIError,
    TelegramBadRequest,
    TelegramForbiddenError,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramServerError,
)
from aiogram.types import LinkPreviewOptions

from bot.telegram.output.pacing import ChatPlace, EditPacer
from bot.telegram.output.parts import Chunk, Renderable

log = logging.getLogger(__name__)

CURSOR = " ▌"
PLACEHOLDER = CURSOR.strip()
"""What a message the display creates shows until its first edit."""

_NOT_MODIFIED = "message is not modified"
_CANNOT_PARSE = "can't parse entities"
_GONE = ("message to edit not found", "message can't be edited", "message_id_invalid")
_NO_PREVIEW = LinkPreviewOptions(is_disabled=True)
_T = TypeVar("_T")
Post = Callable[[str, str | None], Awaitable[_T]]


class ScreenClosed(Exception):
    """The chat takes no more messages from the bot (blocked, left): stop showing."""


class Unsure(Exception):
    """A new message may or may not have arrived: stop showing, delivery decides."""


class Gone(Exception):
    """The message showing the answer can no longer be edited (deleted meanwhile)."""


class ScreenCalls:
    """One chat's display calls, at the pace of `pacer`."""

    def __init__(self, bot: Bot, place: ChatPlace, pacer: EditPacer) -> None:
        self.bot = bot
        self.place = place
        self.pacer = pacer

    def delay(self) -> float:
        """Seconds until the chat's pace allows the next call."""
        return self.pacer.delay(self.place.chat_id)

    async def post(self, post: Post[_T], part: Renderable, *, new: bool = False) -> _T | None:
        """The call's result; None when this update is skipped (flood control, a failure
        that says nothing was changed). Other refusals are the caller's to read."""
        chat_id = self.place.chat_id
        for text, mode in ((part.html, "HTML"), (part.plain, None)):
            self.pacer.used(chat_id)
            try:
                return await post(text, mode)
            except TelegramRetryAfter as exc:
                self.pacer.back_off(chat_id, float(exc.retry_after))
                return None
            except TelegramForbiddenError as exc:
                raise ScreenClosed(str(exc)) from exc
            except TelegramBadRequest as exc:
                if mode is None or _CANNOT_PARSE not in exc.message.lower():
                    raise
                log.warning("Telegram refused a snapshot's HTML (%s); showing it as text", exc)
            except (TelegramNetworkError, TelegramServerError) as exc:
                if new and _maybe_posted(exc):
                    raise Unsure(str(exc)) from exc
                log.debug("display call failed in chat %d: %s", chat_id, exc)
                return None
        return None

    async def open(self, *, first: bool, notify: bool) -> int | None:
        """A new message showing only the placeholder: its id, or None when it surely was not
        sent. Raises `Unsure` when it may have been. The first message answers the question."""

        async def post(text: str, mode: str | None) -> int:
            message = await self.bot.send_message(
                chat_id=self.place.chat_id,
                text=text,
                parse_mode=mode,
                message_thread_id=self.place.thread_id,
                reply_parameters=self.place.reply_parameters() if first else None,
                link_preview_options=_NO_PREVIEW,
                disable_notification=not notify,
            )
            return message.message_id

        try:
            return await self.post(post, Chunk(PLACEHOLDER, PLACEHOLDER), new=True)
        except TelegramBadRequest as exc:
            log.info("a message for the answer was refused while streaming (%s)", exc)
            return None

    async def edit(self, message_id: int, part: Renderable) -> bool:
        """Show `part` in the message; False when this update was skipped. Raises `Gone`."""

        async def post(text: str, mode: str | None) -> bool:
            await self.bot.edit_message_text(
                text=text,
                chat_id=self.place.chat_id,
                message_id=message_id,
                parse_mode=mode,
                link_preview_options=_NO_PREVIEW,
            )
            return True

        try:
            return await self.post(post, part) is not None
        except TelegramBadRequest as exc:
            problem = exc.message.lower()
            if _NOT_MODIFIED in problem:
                return True
            if any(words in problem for words in _GONE):
                raise Gone(str(exc)) from exc
            log.debug("a snapshot was refused in chat %d: %s", self.place.chat_id, exc)
            return False

    async def forget(self, message_id: int) -> None:
        """Delete a message that shows what is no longer the answer."""
        try:
            await self.bot.delete_message(chat_id=self.place.chat_id, message_id=message_id)
        except TelegramAPIError as exc:
            log.debug("could not delete message %d: %s", message_id, exc)


def _maybe_posted(exc: TelegramNetworkError | TelegramServerError) -> bool:
    """A 5xx is Telegram not taking the request; only a failed connect surely sent nothing."""
    if isinstance(exc, TelegramServerError):
        return False
    return not isinstance(exc.__cause__, aiohttp.ClientConnectorError)
