"""A file the running bot touches every few seconds, for probes: a live bot from a stuck one.

The beat comes from a task on the bot's own event loop: while the file keeps getting fresh,
the loop turns and nothing blocks it. A process that is alive but stuck stops beating, which
a check that the process exists cannot see. `python -m bot.healthcheck` reads the file.

The write happens in a thread, like every other touch of the disk. A failed write is logged
once and tried again at the next beat; the file simply goes stale, which is what a probe
should see when DATA_DIR cannot be written. A clean stop removes the file.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType

log = logging.getLogger(__name__)

BEAT_EVERY_S = 10.0
STALE_AFTER_S = 60.0
"""A heartbeat older than this means the bot is not running or its event loop is stuck."""


class Heartbeat:
    """`async with Heartbeat(path):` beats while the block runs and removes the file after."""

    def __init__(self, path: Path, *, every_s: float = BEAT_EVERY_S) -> None:
        self.path = path
        self.every_s = every_s
        self._task: asyncio.Task[None] | None = None
        self._failing = False

    async def __aenter__(self) -> Heartbeat:
        await self.beat()
        self._task = asyncio.create_task(self._run(), name="heartbeat")
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await asyncio.to_thread(self._remove)

    async def beat(self) -> None:
        """Write the file now: the time and the process id, for a person who looks at it."""
        try:
            await asyncio.to_thread(self._write)
        except OSError as exc:
            if not self._failing:
                log.warning("cannot write the heartbeat file %s: %s", self.path, exc)
            self._failing = True
        else:
            self._failing = False

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.every_s)
            await self.beat()

    def _write(self) -> None:
        stamp = datetime.now(UTC).isoformat(timespec="seconds")
        self.path.write_text(f"{stamp} pid {os.getpid()}\n", encoding="utf-8")

    def _remove(self) -> None:
        try:
            self.path.unlink(missing_ok=True)
        except OSError as exc:
            log.warning("cannot remove the heartbeat file %s: %s", self.path, exc)


def heartbeat_age(path: Path, *, now: float) -> float | None:
    """Seconds since the file was last written (`now` is `time.time()`); None when missing."""
    try:
        return max(0.0, now - path.stat().st_mtime)
    except FileNotFoundError:
        return None
