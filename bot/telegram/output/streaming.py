"""The answer shown while the model writes it, so nobody stares at a status line for long.

The agent reports the answer streamed so far (`AnswerDraft`, the whole text each time). Only
the newest text is kept; a background task shows it as fast as the chat's pace allows: its
settled beginning (`render.settled`, so an open `**` or table never flickers as raw markup),
rendered exactly as the finished answer will be, on a draft screen in private chats or by
editing a message elsewhere (`stream_screens`). A part that fills a message is finished and
the answer goes on below it. When the text shrinks back to nothing (the model was thinking
aloud before calling tools) what was shown is taken back and the status line returns.

The display never holds the question up: events only record text, and a slow or failing call
costs updates, not the answer. When the agent is done, `on_screen` tells delivery which
messages already show the beginning of the answer, so the final parts, exactly what a whole
answer would have been, are edited into them and the rest sent: nothing lost or shown twice.
Before that, `conclude` puts the last part in a draft that shows anything else (an error
replacing a half-written answer), so no stale text lingers beside the message.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from types import TracebackType

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError

from bot.agent.types import AgentEvent, AnswerDraft
from bot.telegram.output.drafts import Drafts
from bot.telegram.output.pacing import ChatPlace, EditPacer
from bot.telegram.output.parts import Renderable
from bot.telegram.output.progress import Progress
from bot.telegram.output.screen_calls import ScreenClosed, Unsure
from bot.telegram.output.stream_screens import DraftScreen, DraftsRefused, EditScreen
from bot.telegram.render import render_answer, settled

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class OnScreen:
    """What the display left in the chat when the answer was complete.

    `messages` show the beginning of the answer, in order (the last one may still be growing);
    `drafted`: a draft was shown, so the answer must arrive as new messages, which end it.
    """

    messages: tuple[int, ...] = ()
    drafted: bool = False


class AnswerStream:
    """Shows one answer as it is written; use as `async with AnswerStream(...) as stream:`
    and give `stream.on_event` to the agent (it passes tool events on to `progress`)."""

    def __init__(
        self,
        bot: Bot,
        place: ChatPlace,
        progress: Progress,
        *,
        pacer: EditPacer,
        drafts: Drafts | None,
        fresh: Callable[[], bool],
        settle_s: float = 2.0,
    ) -> None:
        self._bot = bot
        self._place = place
        self._progress = progress
        self._pacer = pacer
        self._fresh = fresh
        self._settle = settle_s
        self._screen: DraftScreen | EditScreen
        if drafts is not None and drafts.allowed(place.chat_id):
            self._screen = DraftScreen(bot, place, drafts)
        else:
            self._screen = self._edit_screen([])
        self._text = ""
        self._shown = ""
        self._wake = asyncio.Event()
        self._stopping = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> AnswerStream:
        self._task = asyncio.create_task(self._run())
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    async def on_event(self, event: AgentEvent) -> None:
        """Agent event handler: keeps the newest answer text; other events go to progress."""
        if isinstance(event, AnswerDraft):
            self._text = event.text
            self._progress.hold(bool(event.text.strip()))
            self._wake.set()
            return
        await self._progress.on_event(event)

    @property
    def on_screen(self) -> OnScreen:
        """The messages showing the answer so far, for delivery to finish."""
        screen = self._screen
        if isinstance(screen, DraftScreen):
            return OnScreen(tuple(screen.on_screen), drafted=screen.drafted)
        current = () if screen.current is None else (screen.current,)
        return OnScreen((*screen.messages, *current))

    async def conclude(self, last: Renderable) -> None:
        """The answer is complete and `last` is its last part. A draft that shows something
        else (the answer failed, and an error replaces it) is replaced by `last` at once:
        the message sent next takes a draft off the screen, but some apps let it fade for a
        while, and a stale half answer should not show beside the error meanwhile."""
        await self.stop()
        screen = self._screen
        if not isinstance(screen, DraftScreen) or not screen.drafted:
            return
        if screen.last_draft and last.plain.startswith(screen.last_draft):
            return
        delay = screen.delay()
        if delay > 0:
            await asyncio.sleep(delay)
        try:
            await screen.replace(last)
        except (ScreenClosed, Unsure, TelegramAPIError) as exc:  # cosmetic, like every draft
            log.debug("closing draft failed in chat %d: %s", self._place.chat_id, exc)

    async def stop(self) -> None:
        """Stop showing; a call already on its way gets `settle_s` to land."""
        self._stopping.set()
        self._wake.set()
        task, self._task = self._task, None
        if task is None:
            return
        with suppress(TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(task), self._settle)
        if not task.done():
            task.cancel()
            with suppress(asyncio.CancelledError):
                await task

    def _edit_screen(self, messages: list[int]) -> EditScreen:
        return EditScreen(
            self._bot,
            self._place,
            self._pacer,
            self._progress,
            fresh=self._fresh,
            messages=messages,
        )

    async def _run(self) -> None:
        try:
            await self._show_until_stopped()
        except Exception:  # the display is cosmetic: its failure must never cost the answer
            log.exception("answer display in chat %d failed", self._place.chat_id)

    async def _show_until_stopped(self) -> None:
        while True:
            await self._wake.wait()
            if self._stopping.is_set():
                return
            delay = self._screen.delay()
            if delay > 0:
                with suppress(TimeoutError):
                    await asyncio.wait_for(self._stopping.wait(), delay)
                if self._stopping.is_set():
                    return
            self._wake.clear()
            try:
                if not await self._update():
                    self._wake.set()  # try again once the pace allows
            except DraftsRefused:
                assert isinstance(self._screen, DraftScreen)
                self._screen = self._edit_screen(self._screen.messages)
                self._shown = ""  # the edited message starts from the whole snapshot
                self._wake.set()
            except (ScreenClosed, Unsure) as exc:
                log.info("answer display in chat %d stopped: %s", self._place.chat_id, exc)
                return
            except TelegramAPIError as exc:  # cosmetic: the answer is delivered anyway
                log.debug("answer display call failed in chat %d: %s", self._place.chat_id, exc)

    async def _update(self) -> bool:
        """Show the newest text; False when Telegram skipped it and it should be tried again."""
        text = self._text
        if self._shown and not text.startswith(self._shown):
            await self._screen.retract()  # not the answer after all: the model calls tools
            self._shown = ""
        snapshot = settled(text)
        if snapshot == self._shown or not snapshot.strip():
            return True
        parts = render_answer(snapshot)
        screen = self._screen
        while len(screen.messages) < len(parts) - 1:
            if not await screen.commit(parts[len(screen.messages)]):
                return False
        if len(parts) > len(screen.messages) and not await screen.show(parts[-1]):
            return False
        self._shown = snapshot
        return True
