"""Sending an answer's parts to Telegram so that none is lost or doubled.

The first part replaces the status message when there is one (or is sent), the rest follow in
order. Flood control is waited out within a bounded budget; a part Telegram refuses is resent
as plain text, and if even that fails it is skipped, the rest still go, and one short notice
says something is missing. An edit that cannot happen becomes a new message; a user who
blocked the bot is logged and left alone.

Retries: edits are idempotent and retried on network errors and 5xx. A new message is resent
only when the connection was never made; after a read timeout or a dropped connection it may
already be in the chat, and a duplicate part is worse than a logged, possibly missing one.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from html import unescape
from typing import Protocol

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

log = logging.getLogger(__name__)

_NOT_MODIFIED = "message is not modified"
_EDIT_IMPOSSIBLE = (
    "message to edit not found",
    "message can't be edited",
    "message_id_invalid",
)
_NETWORK_RETRIES = 2
_NO_PREVIEW = LinkPreviewOptions(is_disabled=True)


class Renderable(Protocol):
    """One message's worth of answer: Telegram HTML and the same text without markup."""

    @property
    def html(self) -> str: ...

    @property
    def plain(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Chunk:
    """A part built from the bot's own texts (which are short and valid HTML)."""

    html: str
    plain: str

    @classmethod
    def from_html(cls, html: str) -> Chunk:
        """Derive the plain fallback by dropping tags from our own simple markup."""
        return cls(html=html, plain=unescape(re.sub(r"<[^>]+>", "", html)))


class _Blocked(Exception):
    """The user blocked the bot or left the chat: nothing more can be sent there."""


class _GaveUp(Exception):
    """Flood control or the network kept refusing beyond the waiting budget."""


class _Skipped(Exception):
    """Telegram refused this one part even as plain text; later parts may still go."""


class _Unsure(Exception):
    """The request may have reached Telegram (a read timeout): resending could duplicate it."""


def _maybe_posted(exc: TelegramNetworkError | TelegramServerError, *, editing: bool) -> bool:
    """Whether resending could post the same message twice.

    Edits are idempotent. A 5xx is Telegram (or its front) saying it did not take the request.
    aiogram wraps the aiohttp error as the cause of a network error: only a failed connect
    surely never sent anything; a read timeout or a dropped connection may come after
    Telegram already posted the message, so those are not resent.
    """
    if editing or isinstance(exc, TelegramServerError):
        return False
    return not isinstance(exc.__cause__, aiohttp.ClientConnectorError)


@dataclass(frozen=True, slots=True)
class Delivered:
    """What reached the chat: message ids in order, and whether the chat is closed to us."""

    message_ids: tuple[int, ...]
    complete: bool
    blocked: bool = False


class Delivery:
    """Sends parts to one chat place, reusing the status message for the first part."""

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

    async def send(
        self,
        parts: Sequence[Renderable],
        *,
        status_message_id: int | None = None,
        failure_notice: str | None = None,
        new_message: bool = False,
        reply_markup: InlineKeyboardMarkup | None = None,
        reuse: Sequence[int] = (),
    ) -> Delivered:
        """Deliver every part in order; returns what arrived.

        The first part is edited into the status message, unless `new_message` asks for a
        fresh message (edits do not notify; after a long wait the user should hear the answer
        arrive), in which case the status message is deleted once the answer is out.

        `reuse` lists messages that already show the beginning of this answer (it was shown
        as it was written): the first parts are edited into them in order, one left over is
        deleted, and so is the status message when it is not among them.

        A part Telegram refuses even as plain text is skipped and the rest still go. When
        anything was lost, `failure_notice` (plain text) is sent once; a status message that
        never became part of the answer is turned into that notice or removed, so a progress
        line never stays forever.

        `reply_markup` (buttons) goes under the last part, kept on every retry and on the
        plain-text resend; it is lost only with that part.
        """
        ids: list[int] = []
        status = [] if status_message_id is None else [status_message_id]
        editable = list(reuse) or ([] if new_message else status)
        # messages on screen not (yet) turned into the answer
        leftover = [*reuse, *(s for s in status if s not in reuse)]
        lost = False
        for index, part in enumerate(parts):
            markup = reply_markup if index == len(parts) - 1 else None
            edit_id = editable[0] if editable else None
            try:
                ids.append(await self._one(part, edit_id=edit_id, reply=index == 0, markup=markup))
            except _Blocked:
                log.info("chat %d blocked the bot; answer dropped", self._place.chat_id)
                return Delivered(tuple(ids), complete=False, blocked=True)
            except _Unsure as exc:
                log.warning(
                    "answer part %d/%d to chat %d may not have arrived (not resent, to avoid a "
                    "duplicate): %s",
                    index + 1,
                    len(parts),
                    self._place.chat_id,
                    exc,
                )
                continue
            except _Skipped as exc:
                log.error("answer part %d/%d refused by Telegram: %s", index + 1, len(parts), exc)
                lost = True
                continue
            except (_GaveUp, TelegramAPIError) as exc:
                log.error(
                    "answer part %d/%d not delivered to chat %d: %s",
                    index + 1,
                    len(parts),
                    self._place.chat_id,
                    exc,
                )
                lost = True
                break
            if edit_id is not None:  # edited, or replaced and already deleted by `_one`
                editable.remove(edit_id)
                leftover.remove(edit_id)
        if lost:
            await self._own_up(failure_notice, leftover[0] if leftover else None)
            leftover = leftover[1:]
        for message_id in leftover:
            await self._forget(message_id)
        return Delivered(tuple(ids), complete=not lost)

    async def _own_up(self, notice: str | None, status: int | None) -> None:
        """One best-effort line saying part of the answer is missing; no retries."""
        try:
            if notice is None:
                if status is not None:
                    await self._forget(status)
                return
            if status is not None:
                await self._bot.edit_message_text(
                    text=notice, chat_id=self._place.chat_id, message_id=status
                )
                return
            await self._bot.send_message(
                chat_id=self._place.chat_id,
                text=notice,
                message_thread_id=self._place.thread_id,
                reply_parameters=self._place.reply_parameters(),
            )
        except TelegramAPIError as exc:
            log.info("could not tell chat %d about the lost part: %s", self._place.chat_id, exc)
            if status is not None:
                await self._forget(status)

    async def _one(
        self,
        part: Renderable,
        *,
        edit_id: int | None,
        reply: bool,
        markup: InlineKeyboardMarkup | None = None,
    ) -> int:
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
                    return edit_id  # the status already shows exactly this text
                if edit_id is not None and any(s in problem for s in _EDIT_IMPOSSIBLE):
                    log.info("status message not editable (%s); sending a new message", exc)
                    await self._forget(edit_id)
                    edit_id = None
                elif not as_html:
                    raise _Skipped(str(exc)) from exc
                else:
                    log.warning("Telegram refused the part (%s); resending it as plain text", exc)
                    as_html = False
            except TelegramForbiddenError as exc:
                raise _Blocked from exc
            except (TelegramNetworkError, TelegramServerError) as exc:
                # An edit is safe to repeat; a new message only when it surely never left.
                if _maybe_posted(exc, editing=edit_id is not None):
                    raise _Unsure(str(exc)) from exc
                network_failures += 1
                if network_failures > _NETWORK_RETRIES:
                    raise _GaveUp(str(exc)) from exc
                await self._wait_flood(float(network_failures))

    async def _post(
        self,
        text: str,
        mode: str | None,
        *,
        edit_id: int | None,
        reply: bool,
        markup: InlineKeyboardMarkup | None = None,
    ) -> int:
        """Edit the status message into `text`, or send `text` as a new message."""
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
            raise _GaveUp(msg)
        self._budget -= seconds
        log.info(
            "Telegram asked to wait %.0f s before writing to chat %d", seconds, self._place.chat_id
        )
        if self._pacer is not None:
            self._pacer.back_off(self._place.chat_id, seconds)
        await self._sleep(seconds)

    async def _forget(self, message_id: int) -> None:
        """Remove a stale status message; harmless if it is already gone."""
        try:
            await self._bot.delete_message(chat_id=self._place.chat_id, message_id=message_id)
        except TelegramAPIError as exc:
            log.debug("could not delete status message %d: %s", message_id, exc)
