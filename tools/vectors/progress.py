"""A vector build's progress as lines on a terminal: often enough to see it move, rarely enough
to read (a folder of 10,000 documents is some 300 steps)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

from tools.vectors.state import VectorStatus

EVERY_S = 2.0
"""Least time between two lines (the first step always has one)."""


class ProgressLines:
    """Writes "vectors: 640 of about 2,100 passages (30 %)" to `out`, at most every `every_s`
    seconds; `clock` tells the time (a test stands in for it)."""

    def __init__(
        self,
        out: TextIO,
        *,
        every_s: float = EVERY_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.out = out
        self.every_s = every_s
        self.clock = clock
        self._last: float | None = None

    def __call__(self, status: VectorStatus) -> None:
        now = self.clock()
        if self._last is not None and now - self._last < self.every_s:
            return
        self._last = now
        self.out.write(line(status) + "\n")
        self.out.flush()


def line(status: VectorStatus) -> str:
    """One progress line."""
    total = max(status.passages_total, 1)
    share = min(100, status.passages_done * 100 // total)
    return (
        f"vectors: {status.passages_done:,} of about {status.passages_total:,} passages "
        f"({share} %)"
    )
