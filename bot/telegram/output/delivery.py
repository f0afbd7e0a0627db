"""Sending an answer's parts to Telegram so that none is lost or doubled.

The first part replaces the status message when there is one (or is sent), the rest follow in
order (`part_sender` puts each one in, with its retries; a part whose send had an unclear result
goes into a fresh message by an edit, so a dropped connection never loses it). A part Telegram
refuses even as plain text is skipped, the rest still go, and one short notice says something
is missing; a user who blocked the bot is logged and left alone.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError
from aiogram.types import InlineKeyboardMarkup

from bot.telegram.output.pacing import ChatPlace, EditPacer
from bot.telegram.output.part_sender import Blocked, GaveUp, PartSender, Skipped, Unclear
from bot.telegram.output.parts import Chunk, Renderable

__all__ = ["Chunk", "Delivered", "Delivery", "Renderable"]

log = logging.getLogger(__name__)


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
        self._place = place
        self._sender = PartSender(
            bot, place, pacer=pacer, retry_wait_cap_s=retry_wait_cap_s, sleep=sleep
        )

    async def send(
        self,
        parts: Sequence[Renderable],
        *,
        status_message_id: int | None = None,
        failure_notice: str | None = None,
        new_message: bool = False,
        reply_markup: InlineKeyboardMarkup | None = None,
        reuse: Sequence[int] = (),
        replace_draft: bool = False,
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

        `replace_draft`: a message draft may be showing. A draft stays on screen for up to
        30 s unless a new message from the bot takes its place, so the last part is then
        always sent as a new message, never edited into one of `reuse` (which is deleted).

        `reply_markup` (buttons) goes under the last part, kept on every retry and on the
        plain-text resend; it is lost only with that part.
        """
        ids: list[int] = []
        status = [] if status_message_id is None else [status_message_id]
        editable = list(reuse) or ([] if new_message else status)
        if replace_draft:
            editable = editable[: len(parts) - 1]
        # messages on screen not (yet) turned into the answer
        leftover = [*reuse, *(s for s in status if s not in reuse)]
        lost = False
        for index, part in enumerate(parts):
            markup = reply_markup if index == len(parts) - 1 else None
            edit_id = editable[0] if editable else None
            try:
                ids.append(
                    await self._sender.put(part, edit_id=edit_id, reply=index == 0, markup=markup)
                )
            except Blocked:
                log.info("chat %d blocked the bot; answer dropped", self._place.chat_id)
                return Delivered(tuple(ids), complete=False, blocked=True)
            except Unclear as exc:  # sent, then sent again by edit, and never a clear answer
                log.warning(
                    "answer part %d/%d to chat %d may not have arrived (Telegram kept failing "
                    "to answer): %s",
                    index + 1,
                    len(parts),
                    self._place.chat_id,
                    exc,
                )
                continue
            except Skipped as exc:
                log.error("answer part %d/%d refused by Telegram: %s", index + 1, len(parts), exc)
                lost = True
                continue
            except (GaveUp, TelegramAPIError) as exc:
                log.error(
                    "answer part %d/%d not delivered to chat %d: %s",
                    index + 1,
                    len(parts),
                    self._place.chat_id,
                    exc,
                )
                lost = True
                break
            if edit_id is not None:  # edited, or replaced and already deleted by the sender
                editable.remove(edit_id)
                leftover.remove(edit_id)
        if lost:
            await self._own_up(failure_notice, leftover[0] if leftover else None)
            leftover = leftover[1:]
        for message_id in leftover:
            await self._sender.forget(message_id)
        return Delivered(tuple(ids), complete=not lost)

    async def _own_up(self, notice: str | None, status: int | None) -> None:
        """One best-effort line saying part of the answer is missing; no retries."""
        try:
            if notice is None:
                if status is not None:
                    await self._sender.forget(status)
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
                await self._sender.forget(status)
