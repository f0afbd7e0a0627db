"""A small memory of whom the bot has recently told something, so refusals do not flood."""

from __future__ import annotations

import time
from collections.abc import Callable

_SWEEP_AT = 10_000


class NoticeCooldown:
    """Allows one notice per key per `period_s`; the table is swept so it stays small."""

    def __init__(self, period_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._period = period_s
        self._clock = clock
        self._last: dict[int, float] = {}

    def allow(self, key: int) -> bool:
        """True (and remembered) when `key` was not told anything within the period."""
        now = self._clock()
        last = self._last.get(key)
        if last is not None and now - last < self._period:
            return False
        if len(self._last) >= _SWEEP_AT:
            self._last = {k: t for k, t in self._last.items() if now - t < self._period}
        self._last[key] = now
        return True
