"""Questions per user in a sliding window, counted once across every worker.

`RateWindow` is what the Telegram wing's rate limit asks: record a hit, or learn how long to
wait. In one process the window lives in memory (`bot.telegram.middlewares.rate_limit`), so
there is no SQLite class; with DATABASE_URL, `PostgresRateWindow` (postgres.py) counts once
across every worker.
"""

from __future__ import annotations

from typing import Protocol


class RateWindow(Protocol):
    """At most a fixed number of hits per key within a window of seconds."""

    async def hit(self, key: int) -> float | None:
        """Record a hit; None when allowed, else seconds until the next one is."""
        ...

    async def undo(self, key: int) -> None:
        """Forget the latest hit of `key` (it turned out not to count)."""
        ...
