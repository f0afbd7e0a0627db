"""How long the vector build waits after a failed look: longer after each failure in a row.

A server that fails every look (a wrong key, a model without pooling) would otherwise be asked
every few seconds for as long as the bot runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

FIRST_S = 5.0
MAX_S = 600.0


@dataclass
class Backoff:
    """`first_s` after the first failure, doubling up to `max_s`; `reset` after a success."""

    first_s: float = FIRST_S
    max_s: float = MAX_S
    _next_s: float | None = field(default=None, repr=False)

    def next(self) -> float:
        """The wait after one more failure in a row."""
        wait = self.first_s if self._next_s is None else self._next_s
        self._next_s = min(wait * 2, self.max_s)
        return wait

    def reset(self) -> None:
        """A success: the next failure waits `first_s` again."""
        self._next_s = None
