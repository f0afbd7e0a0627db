"""Per-conversation order: one handler at a time per conversation, conversations in parallel.

aiogram runs every update as its own task, so two quick messages in one chat would otherwise be
answered at the same time and in either order. A lock per conversation key keeps them in
order; the lock table only holds keys someone is using or waiting for. `InFlight` remembers
running handlers so shutdown can let them finish (or cancel them) before stores close.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware
from aiogram.dispatcher.flags import get_flag
from aiogram.exceptions import TelegramAPIError
from aiogram.types import Message, TelegramObject

from bot.agent import KeyedLocks
from bot.monitoring import Metrics
from bot.telegram.context import CHAT_CONTEXT, ChatContext
from bot.telegram.middlewares.in_flight import InFlight
from bot.telegram.middlewares.notices import NoticeCooldown
from bot.telegram.texts import Texts

log = logging.getLogger(__name__)

Handler = Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]]

# Set in the handler data when a message was turned away as "busy", so the rate limit (which
# runs earlier) does not count a question that was never asked.
TURNED_AWAY = "turned_away_busy"
_NOTICE_TIMEOUT_S = 3.0


class ConversationOrderMiddleware(BaseMiddleware):
    """Inner message middleware: handlers of one conversation run one after another.

    More than `max_waiting` messages queued for one conversation are refused politely, so a
    flood (with the rate limit off) never builds an endless queue. At shutdown, messages still
    queued (and any arriving late) are told the bot is restarting rather than dropped.
    """

    def __init__(
        self,
        in_flight: InFlight,
        locks: KeyedLocks,
        *,
        max_waiting: int = 10,
        metrics: Metrics | None = None,
    ) -> None:
        self._locks = locks
        self._in_flight = in_flight
        self._max_waiting = max_waiting
        self._notices = NoticeCooldown(30.0)
        self._metrics = metrics

    async def __call__(self, handler: Handler, event: TelegramObject, data: dict[str, Any]) -> Any:
        assert isinstance(event, Message)  # registered on messages only
        context: ChatContext = data[CHAT_CONTEXT]
        if self._in_flight.closing:
            log.info("message in chat %d arrived during shutdown", event.chat.id)
            self._count_refusal(data, "stopping")
            await self._tell(event, context.texts, stopping=True)
            return None
        key = context.conversation
        if self._locks.waiting(key) >= self._max_waiting:
            log.info("conversation %s has too many waiting messages", key)
            data[TURNED_AWAY] = True
            self._count_refusal(data, "busy")
            if self._notices.allow(event.chat.id):
                await self._tell(event, context.texts, stopping=False)
            return None
        started = False

        async def work() -> Any:
            nonlocal started
            async with self._locks.hold(key):
                started = True
                return await handler(event, data)

        try:
            return await self._in_flight.track(work)
        except asyncio.CancelledError:
            if not started:  # cancelled while queued: the handler never got to say anything
                self._count_refusal(data, "stopping")
                await self._tell(event, context.texts, stopping=True)
            raise

    def _count_refusal(self, data: dict[str, Any], reason: str) -> None:
        """A question (not a command) turned away counts among the refused ones."""
        if self._metrics is not None and get_flag(data, "question"):
            self._metrics.question_refused(reason)

    @staticmethod
    async def _tell(message: Message, texts: Texts, *, stopping: bool) -> None:
        try:
            text = texts.error_interrupted if stopping else texts.chat_busy
            await asyncio.wait_for(message.reply(text), _NOTICE_TIMEOUT_S)
        except (TelegramAPIError, TimeoutError) as exc:
            log.info("could not send the notice: %s", exc)
