"""The two ways an answer is shown while it is written: a message draft, or a message edited.

A draft (`sendMessageDraft`, private chats) is Telegram's own preview of a message being typed;
it is ephemeral, so what must stay is sent as real messages. Elsewhere, or where drafts are
refused, one message is edited as the answer grows (the status message when it may be used),
with a cursor at its end. Either way a part that has filled a message is finished first: it
is sent (drafts) or edited into its final rendering (edits), and the answer goes on below it.

Every call here is cosmetic until the answer is delivered: a refused, throttled or failed call
skips one update and is tried again later. Only two failures end the display: the chat is
closed to the bot, or a new message may or may not have arrived (the final delivery then sends
everything not surely on screen, so nothing is lost).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import TypeVar

import aiohttp
from aiogram import Bot
from aiogram.exceptions import (
    TelegramAPIError,
    TelegramBadRequest,
    TelegramForbiddenError,
    TelegramNetworkError,
    TelegramNotFound,
    TelegramRetryAfter,
    TelegramServerError,
)
from aiogram.types import LinkPreviewOptions

from bot.telegram.output.delivery import Chunk, Renderable
from bot.telegram.output.drafts import Drafts
from bot.telegram.output.pacing import ChatPlace, EditPacer
from bot.telegram.output.progress import Progress
from bot.telegram.render import utf16_len

log = logging.getLogger(__name__)

CURSOR = " ▌"
MAX_UNITS = 4096
_NOT_MODIFIED = "message is not modified"
_CANNOT_PARSE = "can't parse entities"
_GONE = ("message to edit not found", "message can't be edited", "message_id_invalid")
_NO_PREVIEW = LinkPreviewOptions(is_disabled=True)
_T = TypeVar("_T")
Post = Callable[[str, str | None], Awaitable[_T]]


class ScreenClosed(Exception):
    """The chat takes no more messages from the bot (blocked, left): stop showing."""


class DraftsRefused(Exception):
    """Telegram refused a draft here: show the answer by editing a message instead."""


class Unsure(Exception):
    """A new message may or may not have arrived: stop showing, delivery decides."""


def with_cursor(part: Renderable) -> Renderable:
    """The part with a cursor at its end, when there is room for one."""
    html, plain = part.html + CURSOR, part.plain + CURSOR
    if utf16_len(html) > MAX_UNITS or utf16_len(plain) > MAX_UNITS:
        return part
    return Chunk(html, plain)


class _Calls:
    """One chat's display calls: HTML first, plain text if Telegram cannot parse it, paced."""

    def __init__(self, bot: Bot, place: ChatPlace, pacer: EditPacer) -> None:
        self.bot = bot
        self.place = place
        self.pacer = pacer

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

    async def send(self, part: Renderable, *, first: bool) -> int | None:
        """A new message with `part`; its id, or None when it surely was not sent."""

        async def post(text: str, mode: str | None) -> int:
            message = await self.bot.send_message(
                chat_id=self.place.chat_id,
                text=text,
                parse_mode=mode,
                message_thread_id=self.place.thread_id,
                reply_parameters=self.place.reply_parameters() if first else None,
                link_preview_options=_NO_PREVIEW,
            )
            return message.message_id

        return await self.post(post, part, new=True)

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


class DraftScreen:
    """Drafts show the growing part; finished parts are sent as messages above it."""

    def __init__(self, bot: Bot, place: ChatPlace, drafts: Drafts) -> None:
        self._calls = _Calls(bot, place, drafts.pacer)
        self._drafts = drafts
        self._draft_id = secrets.randbelow(2**31 - 1) + 1
        self.messages: list[int] = []
        self.drafted = False

    def delay(self) -> float:
        return self._drafts.pacer.delay(self._calls.place.chat_id)

    async def show(self, part: Renderable) -> bool:
        """Show `part` as the draft; raises `DraftsRefused` when Telegram will not have it."""
        place = self._calls.place

        async def post(text: str, mode: str | None) -> bool:
            return await self._calls.bot.send_message_draft(
                chat_id=place.chat_id,
                draft_id=self._draft_id,
                text=text,
                parse_mode=mode,
                message_thread_id=place.thread_id,
            )

        try:
            shown = await self._calls.post(post, part)
        except (TelegramBadRequest, TelegramNotFound) as exc:
            self._drafts.refused(place.chat_id, exc)
            raise DraftsRefused(str(exc)) from exc
        self.drafted = self.drafted or shown is not None
        return shown is not None

    async def commit(self, part: Renderable) -> bool:
        """Send a finished part as a message; the next draft starts below it."""
        try:
            sent = await self._calls.send(part, first=not self.messages)
        except TelegramBadRequest as exc:
            log.info("a finished part was refused while streaming (%s)", exc)
            sent = None
        if sent is None:
            return False
        self.messages.append(sent)
        self._draft_id = self._draft_id % (2**31 - 1) + 1  # a new draft, not an animation
        return True

    async def retract(self) -> None:
        """Take back what was shown: an empty draft, and the parts sent so far deleted."""
        empty = Chunk("", "")
        try:
            await self.show(empty)
        except DraftsRefused:
            log.debug("the empty draft was refused")
        for message_id in self.messages:
            await self._calls.forget(message_id)
        self.messages.clear()


class EditScreen:
    """One message edited as the answer grows; finished parts stay above the next one."""

    def __init__(
        self,
        bot: Bot,
        place: ChatPlace,
        pacer: EditPacer,
        progress: Progress,
        *,
        fresh: Callable[[], bool],
        messages: list[int] | None = None,
    ) -> None:
        self._calls = _Calls(bot, place, pacer)
        self._progress = progress
        self._fresh = fresh
        self.messages: list[int] = messages or []
        self.current: int | None = None
        self.borrowed: int | None = None  # the status message, lent by the progress display

    def delay(self) -> float:
        return self._calls.pacer.delay(self._calls.place.chat_id)

    async def show(self, part: Renderable) -> bool:
        """Show the growing part, with the cursor, in the current message."""
        return await self._put(with_cursor(part))

    async def commit(self, part: Renderable) -> bool:
        """Give the current message its final text; the next part gets a message of its own."""
        if not await self._put(part):
            return False
        assert self.current is not None
        self.messages.append(self.current)
        self.current = None
        return True

    async def retract(self) -> None:
        """Take back what was shown; a borrowed status message shows status lines again."""
        for message_id in [*self.messages, self.current]:
            if message_id is not None and message_id != self.borrowed:
                await self._calls.forget(message_id)
        self.messages.clear()
        self.current = None
        if self.borrowed is not None:
            self.borrowed = None
            self._progress.take_back()

    async def _put(self, part: Renderable) -> bool:
        if self.current is None:
            if not self.messages and self.borrowed is None and not self._fresh():
                self.borrowed = self.current = await self._progress.lend()
            if self.current is None:
                self.current = await self._calls.send(part, first=not self.messages)
                return self.current is not None
        message_id = self.current

        async def post(text: str, mode: str | None) -> bool:
            await self._calls.bot.edit_message_text(
                text=text,
                chat_id=self._calls.place.chat_id,
                message_id=message_id,
                parse_mode=mode,
                link_preview_options=_NO_PREVIEW,
            )
            return True

        try:
            return await self._calls.post(post, part) is not None
        except TelegramBadRequest as exc:
            problem = exc.message.lower()
            if _NOT_MODIFIED in problem:
                return True
            if any(words in problem for words in _GONE):
                log.info("the message showing the answer is gone (%s); starting another", exc)
                self.current = None
            else:
                log.debug("a snapshot was refused in chat %d: %s", self._calls.place.chat_id, exc)
            return False
