"""One part of an answer into the chat, edited into a message or sent, with bounded retries.

Flood control is waited out within a budget shared by the whole answer; a part Telegram
refuses as HTML is resent as plain text; an edit that cannot happen becomes a new message.
Each outcome that the caller must handle differently is its own exception.

Retries: edits are idempotent and retried on network errors and 5xx; so is a new message whose
connection was never made, or that Telegram answered with a 5xx (it did not take it). A clear
refusal (400, 403) is the caller's: nothing arrived. What remains is the unclear send: a read
timeout or a dropped connection after the request left. The message may be in the chat or not,
and the Bot API can neither tell which nor list a chat's messages, so its id stays unknown.

Such a part is not dropped (a dropped connection on a reused idle connection, the common case,
often means Telegram never saw it) and not simply sent again (a second unclear send could
leave it a third time). It goes into a new message that shows only the cursor (`PLACEHOLDER`,
silent) and gets the text by an edit of its now known id: edits are safe to repeat, and a
cursor whose own send is unclear is sent again, at worst leaving a stray cursor. So the part
arrives, and the one copy it may show too many is the unclear send's own, right above it.
Showing every part exactly once even then would take the cursor first for every new message:
a second call per message, and a notification that shows the cursor instead of the answer;
failures are rare enough that the common case keeps one call.
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
from bot.telegram.output.screen_calls import PLACEHOLDER

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
    """Even the cursor for an unclear send kept failing unclearly: the part may be missing."""


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
        opened = 0
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
                    log.warning(
                        "a part sent to chat %d may or may not have arrived (%s); it goes "
                        "into a new message by an edit",
                        self._place.chat_id,
                        exc,
                    )
                    opened += 1
                    if opened > _NETWORK_RETRIES:  # its placeholders keep vanishing
                        raise Unclear(str(exc)) from exc
                    edit_id = await self._open(reply=reply)
                    continue
                network_failures += 1
                if network_failures > _NETWORK_RETRIES:
                    raise GaveUp(str(exc)) from exc
                await self._wait_flood(float(network_failures))

    async def _open(self, *, reply: bool) -> int:
        """A new silent message showing only the placeholder, and its id; its own unclear
        sends are repeated (each leaves at most a stray placeholder), within the retries."""
        unclear = 0
        failures = 0
        while True:
            try:
                return await self._post(PLACEHOLDER, None, edit_id=None, reply=reply, notify=False)
            except TelegramRetryAfter as exc:
                await self._wait_flood(float(exc.retry_after))
            except TelegramForbiddenError as exc:
                raise Blocked from exc
            except (TelegramNetworkError, TelegramServerError) as exc:
                if maybe_posted(exc, editing=False):
                    unclear += 1
                    if unclear > _NETWORK_RETRIES:
                        raise Unclear(str(exc)) from exc
                    continue
                failures += 1
                if failures > _NETWORK_RETRIES:
                    raise GaveUp(str(exc)) from exc
                await self._wait_flood(float(failures))

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
        notify: bool = True,
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
            disable_notification=None if notify else True,
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
