"""The two ways an answer is shown while it is written: a message draft, or a message edited.

A draft (`sendMessageDraft`, private chats) is Telegram's own preview of a message being typed;
it is ephemeral, so what must stay is sent as real messages. Elsewhere, or where drafts are
refused, one message is edited as the answer grows (the status message when it may be used),
with a cursor at its end. Either way a part that has filled a message is finished first (its
message gets its final rendering) and the answer goes on below it.

Every call here is cosmetic until the answer is delivered: a refused, throttled or failed call
skips one update and is tried again later. Only two failures end the display: the chat is
closed to the bot, or a new message may or may not have arrived (`screen_calls` explains why
that can leave at most a stray cursor, and the final delivery sends the rest).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable

from aiogram import Bot
from aiogram.exceptions import TelegramBadRequest, TelegramNotFound

from bot.telegram.output.drafts import Drafts
from bot.telegram.output.pacing import ChatPlace, EditPacer
from bot.telegram.output.parts import Chunk, Renderable
from bot.telegram.output.progress import Progress
from bot.telegram.output.screen_calls import CURSOR, Gone, ScreenCalls
from bot.telegram.render import utf16_len

log = logging.getLogger(__name__)

MAX_UNITS = 4096


class DraftsRefused(Exception):
    """Telegram refused a draft here: show the answer by editing a message instead."""


def with_cursor(part: Renderable) -> Renderable:
    """The part with a cursor at its end, when there is room for one."""
    html, plain = part.html + CURSOR, part.plain + CURSOR
    if utf16_len(html) > MAX_UNITS or utf16_len(plain) > MAX_UNITS:
        return part
    return Chunk(html, plain)


class DraftScreen:
    """Drafts show the growing part; finished parts become messages above it."""

    def __init__(self, bot: Bot, place: ChatPlace, drafts: Drafts) -> None:
        self._calls = ScreenCalls(bot, place, drafts.pacer)
        self._drafts = drafts
        self._draft_id = secrets.randbelow(2**31 - 1) + 1
        self._opened: int | None = None  # a message for the next finished part, still empty
        self.messages: list[int] = []
        self.drafted = False
        self.last_draft: str | None = None

    @property
    def on_screen(self) -> list[int]:
        """The finished parts' messages, and one made for the next part, in order."""
        opened = [] if self._opened is None else [self._opened]
        return [*self.messages, *opened]

    def delay(self) -> float:
        return self._calls.delay()

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
        # even a call that failed on its way back may have shown the draft: the answer must
        # then arrive as a new message, which is what takes a draft off the screen
        self.drafted = True
        self.last_draft = part.plain
        return shown is not None

    async def commit(self, part: Renderable) -> bool:
        """Make a finished part a message; the next draft starts below it."""
        if self._opened is None:
            self._opened = await self._calls.open(first=not self.messages, notify=False)
            if self._opened is None or self.delay() > 0:
                return False  # its text follows once the pace allows
        try:
            if not await self._calls.edit(self._opened, part):
                return False
        except Gone as exc:
            log.info("the message for a finished part is gone (%s); making another", exc)
            self._opened = None
            return False
        self.messages.append(self._opened)
        self._opened = None
        self._draft_id = self._draft_id % (2**31 - 1) + 1  # a new draft, not an animation
        return True

    async def retract(self) -> None:
        """Take back what was shown: an empty draft, and the parts' messages deleted."""
        empty = Chunk("", "")
        try:
            await self.show(empty)
        except DraftsRefused:
            log.debug("the empty draft was refused")
        for message_id in self.on_screen:
            await self._calls.forget(message_id)
        self.messages.clear()
        self._opened = None

    async def replace(self, part: Renderable) -> None:
        """One last draft with `part`, once the pace allows: the message that follows says
        the same, so no stale snapshot shows beside it while the draft fades."""
        try:
            await self.show(part)
        except DraftsRefused:
            log.debug("the closing draft was refused")


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
        self._calls = ScreenCalls(bot, place, pacer)
        self._progress = progress
        self._fresh = fresh
        self.messages: list[int] = messages or []
        self.current: int | None = None
        self.borrowed: int | None = None  # the status message, lent by the progress display

    def delay(self) -> float:
        return self._calls.delay()

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
                first = not self.messages
                self.current = await self._calls.open(first=first, notify=first)
                if self.current is None or self.delay() > 0:
                    return False  # its text follows once the pace allows
        try:
            return await self._calls.edit(self.current, part)
        except Gone as exc:
            log.info("the message showing the answer is gone (%s); starting another", exc)
            self.current = None
            return False
