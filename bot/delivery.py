"""Sending an answer's parts to Telegram so that none is lost.

The first part replaces the status message when there is one (or is sent), the rest follow in
order. Flood control is waited out within a bounded budget; rejected markup is resent as plain
text; an edit that cannot happen becomes a new message; a user who blocked the bot is logged and
left alone.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from html import unescape
from typing import Protocol

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

from bot.pacing import ChatPlace, EditPacer

log = logging.getLogger(__name__)

_MARKUP_REJECTED = ("can't parse entities", "unsupported start tag", "can't find end tag")
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
        self, parts: Sequence[Renderable], *, status_message_id: int | None = None
    ) -> Delivered:
        """Deliver every part in order; returns what arrived."""
        ids: list[int] = []
        for index, part in enumerate(parts):
            edit_id = status_message_id if index == 0 else None
            reply = index == 0
            try:
                ids.append(await self._one(part, edit_id=edit_id, reply=reply))
            except _Blocked:
                log.info("chat %d blocked the bot; answer dropped", self._place.chat_id)
                return Delivered(tuple(ids), complete=False, blocked=True)
            except (_GaveUp, TelegramAPIError) as exc:
                log.error(
                    "answer part %d/%d not delivered to chat %d: %s",
                    index + 1,
                    len(parts),
                    self._place.chat_id,
                    exc,
                )
                return Delivered(tuple(ids), complete=False)
        return Delivered(tuple(ids), complete=True)

    async def _one(self, part: Renderable, *, edit_id: int | None, reply: bool) -> int:
        as_html = True
        network_failures = 0
        while True:
            text, mode = (part.html, "HTML") if as_html else (part.plain, None)
            try:
                if edit_id is not None:
                    await self._wait_pace()
                    await self._bot.edit_message_text(
                        text=text,
                        chat_id=self._place.chat_id,
                        message_id=edit_id,
                        parse_mode=mode,
                        link_preview_options=_NO_PREVIEW,
                    )
                    return edit_id
                message = await self._bot.send_message(
                    chat_id=self._place.chat_id,
                    text=text,
                    parse_mode=mode,
                    message_thread_id=self._place.thread_id,
                    reply_parameters=self._place.reply_parameters() if reply else None,
                    link_preview_options=_NO_PREVIEW,
                )
            except TelegramRetryAfter as exc:
                await self._wait_flood(float(exc.retry_after))
            except TelegramBadRequest as exc:
                problem = exc.message.lower()
                if edit_id is not None and _NOT_MODIFIED in problem:
                    return edit_id  # the status already shows exactly this text
                if as_html and any(s in problem for s in _MARKUP_REJECTED):
                    log.warning("Telegram rejected the markup (%s); resending as plain text", exc)
                    as_html = False
                elif edit_id is not None and any(s in problem for s in _EDIT_IMPOSSIBLE):
                    log.info("status message not editable (%s); sending a new message", exc)
                    await self._forget(edit_id)
                    edit_id = None
                else:
                    raise
            except TelegramForbiddenError as exc:
                raise _Blocked from exc
            except (TelegramNetworkError, TelegramServerError) as exc:
                network_failures += 1
                if network_failures > _NETWORK_RETRIES:
                    raise _GaveUp(str(exc)) from exc
                await self._wait_flood(float(network_failures))
            else:
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
