"""Delivering progress events, and one-question-at-a-time per conversation."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from bot.agent.types import AgentEvent, EventHandler

logger = logging.getLogger(__name__)


async def emit(handler: EventHandler | None, event: AgentEvent) -> None:
    """Call the handler; its failure is logged and never ends the question."""
    if handler is None:
        return
    try:
        await handler(event)
    except Exception:  # progress display is cosmetic: a broken handler must not cost the answer
        logger.exception("event handler failed on %s", type(event).__name__)


class KeyedLocks:
    """One lock per key, forgotten as soon as nobody holds or waits for it."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    def __len__(self) -> int:
        return len(self._locks)

    @asynccontextmanager
    async def hold(self, key: str) -> AsyncIterator[None]:
        """Wait for the key's lock and hold it for the `async with` body."""
        lock, users = self._locks.get(key, (asyncio.Lock(), 0))
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[key]
            if users <= 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock, users - 1)
