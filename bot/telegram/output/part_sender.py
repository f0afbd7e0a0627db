"""One part of an answer into the chat, edited into a message or sent, with bounded retries.

Flood control is waited out within a budget shared by the whole answer; a part Telegram
refuses as HTML is resent as plain text; an edit that cannot happen becomes a new message.
Each outcome that the caller must handle differently is its own exception.

Retries: edits are idempotent and retried on network errors and 5xx. A new message is resent
only when the connection was never made; after a read timeout or a dropped connection it may
already be in the chat, and a duplicate part is worse than a logged, possibly missing one.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

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
from aiogram.types import InlineKeyboardMarkup, LinkPreviewOptions

from bot.telegram.output.pacing import ChatPlace, EditPacer
from bot.telegram.output.parts import Renderable

log = logging.getLogger(__name__)

_NOT_MODIFIED = "message is not modified"
_EDIT_IMPOSSIBLE = (
    "message to edit not found",
    "message can't be edited",
    "message_id_invalid",
)
_NETWORK_RETRIES = 2
_NO_PREVIEW = LinkPreviewOptions(is_disabled=True)


class Blocked(Exception):
    """The user blocked the bot or left the chat: nothing more can be sent there."""


class GaveUp(Exception):
    """Flood control or the network kept refusing beyond the waiting budget."""


class Skipped(Exception):
    """Telegram refused this one part even as plain text; later parts may still go."""


class Unclear(Exception):
    """The request may have reached Telegram (a read timeout): resending could duplicate it."""


def maybe_posted(exc: TelegramNetworkError | TelegramServerError, *, editing: bool) -> bool:
    """Whether resending could post the same message twice.

    Edits are idempotent. A 5xx is Telegram (or its front) saying it did not take the request.
    aiogram wraps the aiohttp error as the cause of a network error: only a failed connect
    surely never sent anything; a read timeout or a dropped connection may come after
    Telegram already posted the message, so those are not resent.
    """
    if editing or isinstance(exc, TelegramServerError):
        return False
    return not isinstance(exc.__cause__, aiohttp.ClientConnectorError)


class PartSender:
    """Puts parts into one chat place; `retry_wait_cap_s` bounds all waiting it does."""

    def __init__(
        self,
        bot: Bot,
        place: ChatPlace,
        *,
        pacer: EditPacer | None = None,
        retry_wait_cap_s: float = 60.0,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self._bot = bot
        self._sleep = sleep
        self._place = place
        self._pacer = pacer
        self._budget = retry_wait_cap_s

    async def put(
        self,
        part: Renderable,
        *,
        edit_id: int | None,
        reply: bool,
        markup: InlineKeyboardMarkup | None = None,
    ) -> int:
        """Edit `part` into `edit_id` (or send it as a new message); the id that shows it.

        Raises `Blocked`, `GaveUp`, `Skipped`, `Unclear` or another `TelegramAPIError`.
        """
        as_html = True
        network_failures = 0
        while True:
            text, mode = (part.html, "HTML") if as_html else (part.plain, None)
            try:
                return await self._post(text, mode, edit_id=edit_id, reply=reply, markup=markup)
            except TelegramRetryAfter as exc:
                await self._wait_flood(float(exc.retry_after))
            except TelegramBadRequest as exc:
                problem = exc.message.lower()
                if edit_id is not None and _NOT_MODIFIED in problem:
                    return edit_id  # the message already shows exactly this text
                if edit_id is not None and any(s in problem for s in _EDIT_IMPOSSIBLE):
                    log.info("message %d not editable (%s); sending a new message", edit_id, exc)
                    await self.forget(edit_id)
                    edit_id = None
                elif not as_html:
                    raise Skipped(str(exc)) from exc
                else:
                    log.warning("Telegram refused the part (%s); resending it as plain text", exc)
                    as_html = False
            except TelegramForbiddenError as exc:
                raise Blocked from exc
            except (TelegramNetworkError, TelegramServerError) as exc:
                # An edit is safe to repeat; a new message only when it surely never left.
                if maybe_posted(exc, editing=edit_id is not None):
                    raise Unclear(str(exc)) from exc
                network_failures += 1
                if network_failures > _NETWORK_RETRIES:
                    raise GaveUp(str(exc)) from exc
                await self._wait_flood(float(network_failures))

    async def forget(self, message_id: int) -> None:
        """Remove a message that is not (or no longer) part of the answer; harmless if gone."""
        try:
            await self._bot.delete_message(chat_id=self._place.chat_id, message_id=message_id)
        except TelegramAPIError as exc:
            log.debug("could not delete message %d: %s", message_id, exc)

    async def _post(
        self,
        text: str,
        mode: str | None,
        *,
        edit_id: int | None,
        reply: bool,
        markup: InlineKeyboardMarkup | None = None,
    ) -> int:
        """Edit `edit_id` into `text`, or send `text` as a new message."""
        if edit_id is not None:
            await self._wait_pace()
            await self._bot.edit_message_text(
                text=text,
                chat_id=self._place.chat_id,
                message_id=edit_id,
                parse_mode=mode,
                link_preview_options=_NO_PREVIEW,
                reply_markup=markup,
            )
            return edit_id
        message = await self._bot.send_message(
            chat_id=self._place.chat_id,
            text=text,
            parse_mode=mode,
            message_thread_id=self._place.thread_id,
            reply_parameters=self._place.reply_parameters() if reply else None,
            link_preview_options=_NO_PREVIEW,
            reply_markup=markup,
        )
        return message.message_id

    async def _wait_pace(self) -> None:
        if self._pacer is not None:
            delay = min(self._pacer.delay(self._place.chat_id), self._budget)
            if delay > 0:
                await self._sleep(delay)

    async def _wait_flood(self, seconds: float) -> None:
        if seconds > self._budget:
            msg = f"asked to wait {seconds:.0f} s, more than the {self._budget:.0f} s left"
            raise GaveUp(msg)
        self._budget -= seconds
        log.info(
            "Telegram asked to wait %.0f s before writing to chat %d", seconds, self._place.chat_id
        )
        if self._pacer is not None:
            self._pacer.back_off(self._place.chat_id, seconds)
        await self._sleep(seconds)
