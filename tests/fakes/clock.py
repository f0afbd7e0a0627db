"""A wall clock that tests move by hand, so expiry and lockouts need no sleeping."""

from __future__ import annotations


class FakeClock:
    """Unix time that stands still until `advance` moves it."""

    def __init__(self, now: float = 1_750_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move the clock forward."""
        self.now += seconds
