"""The handler tasks running right now, so shutdown can let them finish before stores close."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from contextlib import suppress
from typing import Any

log = logging.getLogger(__name__)

CLEANUP_S = 5.0
"""How long a cancelled handler may take to tell its user and tidy up."""


class InFlight:
    """The handler tasks running right now, so shutdown can wait for them."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self._idle = asyncio.Event()
        self._idle.set()
        self._grew = asyncio.Event()
        self.closing = False

    def __len__(self) -> int:
        return len(self._tasks)

    async def track(self, work: Callable[[], Awaitable[Any]]) -> Any:
        """Run `work` as part of the current task, remembered until it ends."""
        task = asyncio.current_task()
        if task is None or task in self._tasks:
            return await work()
        self._tasks.add(task)
        self._idle.clear()
        self._grew.set()
        try:
            return await work()
        finally:
            self._tasks.discard(task)
            if not self._tasks:
                self._idle.set()

    async def wait_until_running(self, count: int) -> None:
        """Wait until at least `count` handlers run or wait at once (for monitoring and tests)."""
        while len(self._tasks) < count:
            self._grew.clear()
            await self._grew.wait()

    async def drain(self, grace_s: float, cleanup_s: float = CLEANUP_S) -> None:
        """Wait up to `grace_s` for running handlers, then cancel the rest and wait for them.

        A cancelled handler still tells its user the bot is restarting and forgets its status
        message (a few seconds at most), so it gets `cleanup_s` for that however short the
        grace was: the stores close only after. From here on `closing` is set, so nothing new
        is admitted.
        """
        self.closing = True
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
            await asyncio.wait(left, timeout=max(grace_s, cleanup_s))
