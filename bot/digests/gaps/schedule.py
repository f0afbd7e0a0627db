"""When the digest of unanswered questions is due, and the loop that sends each one once.

Digests are due at fixed moments, 09:00 UTC every Monday (GAPS_DIGEST=weekly) or every day
(daily), so every worker and every restart agrees on them without being told. The last one
sent is kept in the store (`UnansweredLog.claim_digest`): a tick claims the latest moment due,
and only the process whose claim moved the store's row forward sends it. So a restart neither
resends a digest nor skips one (a bot that was down at 09:00 sends it when it is back, covering
everything since the one before), and several workers on one database send it once. The claim
comes before the sending: a process that dies in between loses that one digest rather than
sending it twice.

The clock is passed in and `tick(now)` does one step, so tests move a clock and tick instead of
waiting; the loop only sleeps until the next moment due (at most `CHECK_EVERY_S`, so a clock
that jumps is noticed) or until `wake` is called.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Awaitable, Callable
from typing import Literal

from bot.process.ticker import Ticker
from bot.storage.unanswered import UnansweredLog

log = logging.getLogger(__name__)

Every = Literal["weekly", "daily", "off"]

DAY_S = 24 * 3600.0
_PERIODS = {"weekly": 7 * DAY_S, "daily": DAY_S}
_FIRST_MONDAY_9 = 4 * DAY_S + 9 * 3600.0
"""1970-01-05 09:00 UTC, a Monday: every weekly digest is due a whole number of weeks later
(and every daily one a whole number of days)."""
CHECK_EVERY_S = 3600.0

Send = Callable[[float, float], Awaitable[int]]
"""Sends the digest of the questions asked in [start, end); how many admins got it."""


def due_at(now: float, every: Every) -> float | None:
    """The latest moment a digest was due at or before `now`; None when digests are off."""
    period = _PERIODS.get(every)
    if period is None:
        return None
    return _FIRST_MONDAY_9 + math.floor((now - _FIRST_MONDAY_9) / period) * period


class DigestSchedule:
    """Sends the digest when due, once across restarts and workers; `clock` gives Unix time."""

    def __init__(
        self,
        every: Every,
        store: UnansweredLog,
        send: Send,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._every = every
        self._store = store
        self._send = send
        self._clock = clock
        self._ticker = Ticker(self._tick_logged, self._until_next, name="gaps digest")

    async def tick(self, now: float) -> bool:
        """Send the digest due by `now` if no process has; whether this one did."""
        due = due_at(now, self._every)
        if due is None:
            return False
        before = await self._store.claim_digest(due)
        if before is None:
            return False
        period = _PERIODS[self._every]
        start = before if before > 0 else due - period
        sent = await self._send(start, due)
        log.info("digest of unanswered questions due %.0f: sent to %d admin(s)", due, sent)
        return True

    async def start(self) -> None:
        """Tick now (a digest missed while the bot was down goes out), then whenever one falls
        due, in the background; nothing when digests are off."""
        if self._every != "off":
            await self._ticker.start()

    def wake(self) -> None:
        """Tick again now, instead of at the next moment due."""
        self._ticker.wake()

    async def stop(self) -> None:
        """Stop the background ticks."""
        await self._ticker.stop()

    async def _tick_logged(self) -> None:
        try:
            await self.tick(self._clock())
        except Exception:  # a digest must never stop the bot; the next tick tries again
            log.exception("sending the digest of unanswered questions failed")

    def _until_next(self) -> float:
        now = self._clock()
        due = due_at(now, self._every)
        if due is None:
            return CHECK_EVERY_S
        following = due + _PERIODS[self._every]
        return max(1.0, min(following - now, CHECK_EVERY_S))
