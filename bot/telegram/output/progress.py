"""The status message and typing action shown while the agent works on a question.

Everything here is cosmetic: a failed or slow call is logged and skipped, never awaited by the
question itself (only stopping waits, briefly, for a call already on its way). Agent events
only record the newest status text; a background task edits the message no faster than the
per-chat pace allows (and slower after a 429), so a burst of tool calls costs one edit a
second at most.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from contextlib import suppress
from types import TracebackType

from aiogram import Bot
from aiogram.exceptions import TelegramForbiddenError, TelegramRetryAfter
from aiogram.types import LinkPreviewOptions

from bot.agent.types import AgentEvent, ToolFinished, ToolStarted
from bot.storage.pending_status import PendingStatus, PendingStatusStore
from bot.telegram.output.pacing import ChatPlace, EditPacer
from bot.telegram.texts import Texts

log = logging.getLogger(__name__)

_MAX_BACKOFF_S = 60.0


def describe_event(event: AgentEvent, texts: Texts) -> str | None:
    """The status line for a tool that starts, or None when the event changes nothing visible."""
    if not isinstance(event, ToolStarted):
        return None
    return texts.progress_for_tool(event.name, event.subject)


class Progress:
    """Status message first (silent), then the typing action; the answer later replaces it.

    Use as `async with Progress(...) as progress:` and pass `progress.on_event` to the agent;
    after the block `status_message_id` is the message to edit into the answer, if any. An
    answer shown while it is written may borrow the status message (`lend`, `take_back`).
    Stopping never cuts a Telegram call in the middle: a status message or edit still on its
    way gets `settle_s` to land, so no orphan "Thinking…" or stale edit arrives after the answer.
    With `pending`, a sent status message is remembered on disk until the caller forgets it,
    so a restart after a crash can still replace it.
    """

    def __init__(
        self,
        bot: Bot,
        place: ChatPlace,
        texts: Texts,
        pacer: EditPacer,
        *,
        show_status: bool = True,
        typing_interval_s: float = 4.0,
        settle_s: float = 3.0,
        pending: PendingStatusStore | None = None,
    ) -> None:
        self._bot = bot
        self._place = place
        self._texts = texts
        self._pacer = pacer
        self._show_status = show_status
        self._typing_interval = typing_interval_s
        self._settle = settle_s
        self._pending_store = pending
        self._pending: str | None = None
        self._shown: str | None = None
        self._running_tools: set[str] = set()
        self._wake = asyncio.Event()
        self._stopping = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._remembered: asyncio.Future[None] | None = None
        self._editing = asyncio.Lock()
        self._lent = False
        self._held = False
        self.status_message_id: int | None = None

    async def __aenter__(self) -> Progress:
        self._tasks.append(asyncio.create_task(self._run()))
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    async def on_event(self, event: AgentEvent) -> None:
        """Agent event handler: remembers the newest status line; never waits on Telegram.

        When the last running tool finishes, the model is writing (or picking the next tool,
        which then replaces the line).
        """
        if isinstance(event, ToolStarted):
            self._running_tools.add(event.call_id)
        elif isinstance(event, ToolFinished):
            self._running_tools.discard(event.call_id)
            if not self._running_tools:
                self._set(self._texts.progress_writing)
            return
        text = describe_event(event, self._texts)
        if text is not None:
            self._set(text)

    def _set(self, text: str) -> None:
        if self._show_status:
            self._pending = text
            self._wake.set()

    async def lend(self) -> int | None:
        """Hand the status message to the answer being written, once an edit on its way has
        landed; status lines are kept, not shown, until `take_back`. None without one."""
        self._lent = True
        async with self._editing:
            return self.status_message_id

    def hold(self, answer_coming: bool) -> None:
        """Answer text is on its way (or, False, no longer): while it is, a status line is
        kept, not shown. The answer is about to take the status message's place, and an edit
        it would overwrite at once must not spend the chat's pace before it."""
        self._held = answer_coming
        if not answer_coming:
            self._wake.set()

    def take_back(self) -> None:
        """The status message shows no answer any more: show the newest status line again."""
        self._lent = False
        self._shown = None
        if self._pending is None:
            self._pending = self._texts.progress_thinking
        self._wake.set()

    async def stop(self) -> None:
        """Stop typing and editing; a call already on its way may finish within `settle_s`."""
        self._stopping.set()
        self._wake.set()
        tasks, self._tasks = self._tasks, []
        for task in tasks:
            with suppress(TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(task), self._settle)
            if not task.done():
                task.cancel()
                with suppress(asyncio.CancelledError):
                    await task
        await self._wait_remembered()

    async def _run(self) -> None:
        if self._show_status:
            await self._send_first()
        if self._stopping.is_set():
            return
        typing = asyncio.create_task(self._keep_typing())
        try:
            if self.status_message_id is not None:
                await self._keep_editing()
            else:
                await self._stopping.wait()
        finally:
            if self._stopping.is_set():  # let a typing call on its way land before the answer
                with suppress(TimeoutError, asyncio.CancelledError):
                    await asyncio.wait_for(asyncio.shield(typing), self._settle)
            typing.cancel()
            with suppress(asyncio.CancelledError):
                await typing

    async def _pause(self, seconds: float) -> None:
        """Sleep, but wake at once when stopping."""
        with suppress(TimeoutError):
            await asyncio.wait_for(self._stopping.wait(), seconds)

    async def _keep_typing(self) -> None:
        """Renew the typing action; cancelled only between calls, never during one."""
        while not self._stopping.is_set():
            try:
                await self._bot.send_chat_action(
                    chat_id=self._place.chat_id,
                    action="typing",
                    message_thread_id=self._place.thread_id,
                )
            except TelegramRetryAfter as exc:
                await self._pause(min(float(exc.retry_after), _MAX_BACKOFF_S))
                continue
            except TelegramForbiddenError:
                return
            except Exception as exc:  # cosmetic: any failure is only logged
                log.debug("typing action failed in chat %d: %s", self._place.chat_id, exc)
            await self._pause(self._typing_interval)

    async def _keep_editing(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            if self._stopping.is_set():
                return
            delay = self._pacer.delay(self._place.chat_id)
            if delay > 0:
                await self._pause(delay)
                if self._stopping.is_set():
                    return
            async with self._editing:
                text = self._pending
                if self._lent or self._held or text is None or text == self._shown:
                    continue
                if not await self._edit(text):
                    return

    async def _send_first(self) -> None:
        text = self._texts.progress_thinking
        try:
            message = await self._bot.send_message(
                chat_id=self._place.chat_id,
                text=text,
                message_thread_id=self._place.thread_id,
                reply_parameters=self._place.reply_parameters(),
                link_preview_options=LinkPreviewOptions(is_disabled=True),
                disable_notification=True,
            )
        except Exception as exc:  # cosmetic: the answer is sent anyway
            log.info("status message not sent in chat %d: %s", self._place.chat_id, exc)
            return
        self.status_message_id = message.message_id
        self._shown = text
        self._pacer.used(self._place.chat_id)
        self._remember(message.message_id)

    def _remember(self, message_id: int) -> None:
        """Queue the crash record without waiting for it: a slow disk must not hold back the
        status edits. `stop` waits for the write, so forgetting the record comes after it."""
        if self._pending_store is None:
            return
        status = PendingStatus(
            self._place.chat_id, message_id, self._texts.lang, self._place.thread_id
        )
        self._remembered = self._pending_store.add(status)

    async def _wait_remembered(self) -> None:
        """Wait for the crash record's write; a failure is logged once, whoever waits."""
        remembered = self._remembered
        if remembered is None:
            return
        with suppress(sqlite3.Error, OSError):
            await asyncio.shield(remembered)
        if self._remembered is remembered:
            self._remembered = None
            failure = remembered.exception()
            if failure is not None:
                log.warning(
                    "status message in chat %d not remembered: %s", self._place.chat_id, failure
                )

    async def _edit(self, text: str) -> bool:
        """One paced edit; False when the status message should no longer be touched."""
        assert self.status_message_id is not None
        try:
            await self._bot.edit_message_text(
                text=text,
                chat_id=self._place.chat_id,
                message_id=self.status_message_id,
                link_preview_options=LinkPreviewOptions(is_disabled=True),
            )
        except TelegramRetryAfter as exc:
            self._pacer.back_off(self._place.chat_id, float(exc.retry_after))
            self._wake.set()
            return True
        except TelegramForbiddenError:
            return False
        except Exception as exc:  # cosmetic: the answer is sent anyway
            log.debug("status edit failed in chat %d: %s", self._place.chat_id, exc)
            return True
        self._shown = text
        self._pacer.used(self._place.chat_id)
        return True
