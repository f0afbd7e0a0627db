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
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

from aiogram import BaseMiddleware
from aiogram.exceptions import TelegramAPIError
from aiogram.types import Message, TelegramObject, User

from bot.handlers.addressing import conversation_key
from bot.middlewares.notices import NoticeCooldown
from bot.texts import texts_for

log = logging.getLogger(__name__)

Handler = Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]]

# Set in the handler data when a message was turned away as "busy", so the rate limit (which
# runs earlier) does not count a question that was never asked.
TURNED_AWAY = "turned_away_busy"


@dataclass
class _Slot:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0


class KeyedLocks:
    """A lock per key, created on first use and dropped when nobody holds or waits for it."""

    def __init__(self) -> None:
        self._slots: dict[str, _Slot] = {}

    def __len__(self) -> int:
        return len(self._slots)

    def waiting(self, key: str) -> int:
        """How many handlers hold or wait for `key`."""
        slot = self._slots.get(key)
        return slot.users if slot else 0

    async def run(self, key: str, work: Callable[[], Awaitable[Any]]) -> Any:
        """Run `work` while holding the lock for `key`."""
        slot = self._slots.setdefault(key, _Slot())
        slot.users += 1
        try:
            async with slot.lock:
                return await work()
        finally:
            slot.users -= 1
            if slot.users == 0:
                del self._slots[key]


class InFlight:
    """The handler tasks running right now, so shutdown can wait for them."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self._idle = asyncio.Event()
        self._idle.set()

    def __len__(self) -> int:
        return len(self._tasks)

    async def track(self, work: Callable[[], Awaitable[Any]]) -> Any:
        """Run `work` as part of the current task, remembered until it ends."""
        task = asyncio.current_task()
        if task is None or task in self._tasks:
            return await work()
        self._tasks.add(task)
        self._idle.clear()
        try:
            return await work()
        finally:
            self._tasks.discard(task)
            if not self._tasks:
                self._idle.set()

    async def drain(self, grace_s: float) -> None:
        """Wait up to `grace_s` for running handlers, then cancel the rest and wait for them."""
        if not self._tasks:
            return
        log.info("waiting up to %.0f s for %d running question(s)", grace_s, len(self._tasks))
        with suppress(TimeoutError):
            await asyncio.wait_for(self._idle.wait(), grace_s)
        left = [t for t in self._tasks if not t.done()]
        if left:
            log.warning("cancelling %d question(s) still running at shutdown", len(left))
            for task in left:
                task.cancel()
            await asyncio.wait(left, timeout=grace_s)


class ConversationOrderMiddleware(BaseMiddleware):
    """Inner message middleware: handlers of one conversation run one after another.

    More than `max_waiting` messages queued for one conversation are refused politely, so a
    flood (with the rate limit off) never builds an endless queue.
    """

    def __init__(self, in_flight: InFlight, *, max_waiting: int = 10) -> None:
        self._locks = KeyedLocks()
        self._in_flight = in_flight
        self._max_waiting = max_waiting
        self._notices = NoticeCooldown(30.0)

    async def __call__(self, handler: Handler, event: TelegramObject, data: dict[str, Any]) -> Any:
        if not isinstance(event, Message):
            return await self._in_flight.track(lambda: handler(event, data))
        key = conversation_key(event)
        if self._locks.waiting(key) >= self._max_waiting:
            log.info("conversation %s has too many waiting messages", key)
            data[TURNED_AWAY] = True
            if self._notices.allow(event.chat.id):
                await self._refuse(event, data.get("event_from_user"))
            return None
        return await self._in_flight.track(
            lambda: self._locks.run(key, lambda: handler(event, data))
        )

    @staticmethod
    async def _refuse(message: Message, user: User | None) -> None:
        try:
            await message.reply(texts_for(user.language_code if user else None).chat_busy)
        except TelegramAPIError as exc:
            log.info("could not send the busy notice: %s", exc)
