"""The status message and typing action shown while the agent works on a question.

Everything here is cosmetic: a failed or slow call is logged and skipped, never awaited by the
question itself. Agent events only record the newest status text; a background task edits the
message no faster than the per-chat pace allows (and slower after a 429), so a burst of tool
calls costs one edit a second at most.
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import suppress
from types import TracebackType

from aiogram import Bot
from aiogram.exceptions import TelegramForbiddenError, TelegramRetryAfter
from aiogram.types import LinkPreviewOptions

from bot.agent.types import AgentEvent, ToolStarted
from bot.pacing import ChatPlace, EditPacer
from bot.texts import Texts

log = logging.getLogger(__name__)

_MAX_BACKOFF_S = 60.0


def describe_event(event: AgentEvent, texts: Texts) -> str | None:
    """The status line for an agent event, or None when the event changes nothing visible."""
    if not isinstance(event, ToolStarted):
        return None
    args = event.arguments
    key = {"search_files": "query", "read_file": "path", "list_files": "path"}.get(event.name)
    value = args.get(key, "") if key else ""
    return texts.progress_for_tool(event.name, str(value) if value is not None else "")


class Progress:
    """Typing action plus (optionally) one status message that the answer later replaces.

    Use as `async with Progress(...) as progress:` and pass `progress.on_event` to the agent;
    after the block `status_message_id` is the message to edit into the answer, if any.
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
        first_send_grace_s: float = 2.0,
    ) -> None:
        self._bot = bot
        self._place = place
        self._texts = texts
        self._pacer = pacer
        self._show_status = show_status
        self._typing_interval = typing_interval_s
        self._first_send_grace = first_send_grace_s
        self._pending: str | None = None
        self._shown: str | None = None
        self._wake = asyncio.Event()
        self._sent = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self.status_message_id: int | None = None

    async def __aenter__(self) -> Progress:
        self._tasks.append(asyncio.create_task(self._keep_typing()))
        if self._show_status:
            self._tasks.append(asyncio.create_task(self._show()))
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    async def on_event(self, event: AgentEvent) -> None:
        """Agent event handler: remembers the newest status line; never waits on Telegram."""
        text = describe_event(event, self._texts)
        if text is not None and self._show_status:
            self._pending = text
            self._wake.set()

    async def stop(self) -> None:
        """Stop typing and editing; waits briefly for a status message still being sent."""
        if self._show_status and not self._sent.is_set() and self._tasks:
            with suppress(TimeoutError):
                await asyncio.wait_for(self._sent.wait(), self._first_send_grace)
        tasks, self._tasks = self._tasks, []
        for task in tasks:
            task.cancel()
        for task in tasks:
            with suppress(asyncio.CancelledError):
                await task

    async def _keep_typing(self) -> None:
        while True:
            try:
                await self._bot.send_chat_action(
                    chat_id=self._place.chat_id,
                    action="typing",
                    message_thread_id=self._place.thread_id,
                )
            except TelegramRetryAfter as exc:
                await asyncio.sleep(min(float(exc.retry_after), _MAX_BACKOFF_S))
                continue
            except TelegramForbiddenError:
                return
            except Exception as exc:  # noqa: BLE001 - cosmetic: any failure is only logged
                log.debug("typing action failed in chat %d: %s", self._place.chat_id, exc)
            await asyncio.sleep(self._typing_interval)

    async def _show(self) -> None:
        try:
            await self._send_first()
        finally:
            self._sent.set()
        if self.status_message_id is None:
            return
        while True:
            await self._wake.wait()
            self._wake.clear()
            delay = self._pacer.delay(self._place.chat_id)
            if delay > 0:
                await asyncio.sleep(delay)
            text = self._pending
            if text is None or text == self._shown:
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
            )
        except Exception as exc:  # noqa: BLE001 - cosmetic: the answer is sent anyway
            log.info("status message not sent in chat %d: %s", self._place.chat_id, exc)
            return
        self.status_message_id = message.message_id
        self._shown = text
        self._pacer.used(self._place.chat_id)

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
        except Exception as exc:  # noqa: BLE001 - cosmetic: the answer is sent anyway
            log.debug("status edit failed in chat %d: %s", self._place.chat_id, exc)
            return True
        self._shown = text
        self._pacer.used(self._place.chat_id)
        return True
