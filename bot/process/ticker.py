"""A background loop that runs one step now and again after a wait or on request, until stopped.

The digest of unanswered questions, the change notices and the retention sweeps each do their work
in a step that tests call directly (with a clock they move); this is the loop around such a step in
the running bot: the step at `start` (what came due while the bot was down goes out), then again
whenever the wait the owner gives has passed or `wake` was called, until `stop`. A step must not
raise: the owner logs its own failures, so the loop never dies of one.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable


class Ticker:
    """Runs `step` at start, then after each `wait_s()` seconds or a `wake`, until `stop`."""

    def __init__(
        self, step: Callable[[], Awaitable[None]], wait_s: Callable[[], float], *, name: str
    ) -> None:
        self._step = step
        self._wait_s = wait_s
        self._name = name
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Run the step now, then in the background; nothing when already running."""
        if self._task is not None:
            return
        await self._step()
        self._task = asyncio.create_task(self._run(), name=self._name)

    def wake(self) -> None:
        """Run the step again now, instead of after the wait."""
        self._wake.set()

    async def stop(self) -> None:
        """Stop the background steps."""
        if self._task is None:
            return
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        self._task = None

    async def _run(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self._wait_s())
            self._wake.clear()
            await self._step()
