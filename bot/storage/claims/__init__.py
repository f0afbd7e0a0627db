"""Exactly-once webhook updates: each `update_id` is claimed in the database before any work.

Telegram resends an update that was not answered in time, and a balancer may retry it on
another worker. The first worker to claim an update handles it; a duplicate finds the claim
and is dropped. A claim is a lease: a worker that dies mid-question stops renewing it, and once
it expires the resent update may be claimed by another worker. A finished update is never
claimed again. Expiry is judged by one clock: the database's on PostgreSQL (postgres.py), this
machine's on SQLite (sqlite.py; its file only this machine's workers share).
"""

from __future__ import annotations

from typing import Protocol


class UpdateClaims(Protocol):
    """Who handles which webhook update, shared by every worker."""

    async def claim(self, update_id: int, *, owner: str, lease_s: float) -> bool:
        """True when this owner may handle the update now: it was never claimed, or its
        previous claim expired without being finished. A finished update is never claimed
        again."""
        ...

    async def renew(self, update_id: int, *, owner: str, lease_s: float) -> None:
        """Extend the owner's unfinished claim by `lease_s` from now (no-op if it lost it)."""
        ...

    async def finish(self, update_id: int) -> None:
        """Mark the update handled: it is never claimed again."""
        ...

    async def forget_older(self, age_s: float) -> int:
        """Drop claims finished (or expired unfinished) more than `age_s` ago; how many."""
        ...

    async def close(self) -> None:
        """Release what the claims hold open."""
        ...
