"""The models' open breakers, shared by every worker: a model that is down is learnt once.

In one process each model's breaker lives in memory (`bot.agent.breaker`), so there is no
SQLite class; with DATABASE_URL, `PostgresBreakers` (postgres.py) keeps one row per open
breaker: the model, until when it is passed over (by the database's clock, the one all
machines share) and why, as the failure's kind (`AgentError.kind`: a word, never a URL or a
key). A worker whose breaker opens or closes writes it and tells the others, which apply it,
so their next question goes straight to the fallback instead of waiting out the failing
model first.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class OpenBreaker:
    """A model being passed over: for `retry_in_s` more seconds, because of `reason`."""

    model: str
    retry_in_s: float
    reason: str


class SharedBreakers(Protocol):
    """Where the workers' breakers meet."""

    async def opened(self, model: str, cooldown_s: float, reason: str) -> None:
        """`model` failed here: pass it over everywhere for `cooldown_s`, telling the others.
        A database that cannot take it is logged, never raised: the breaker stays this
        worker's, and the question goes on to the fallback all the same."""
        ...

    async def closed(self, model: str) -> None:
        """`model` answered here again: every worker may ask it, telling the others (logged,
        never raised, when the database cannot take it)."""
        ...

    async def open_now(self) -> list[OpenBreaker]:
        """Every breaker open at this moment, with the time it has left."""
        ...

    async def watch(self, changed: Callable[[str], Awaitable[None]]) -> None:
        """Call `changed(model)` after any worker opened or closed that model's breaker."""
        ...

    async def close(self) -> None:
        """Stop listening; the database is closed by whoever opened it."""
        ...
