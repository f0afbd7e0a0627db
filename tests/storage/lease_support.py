"""Watching a claim's lease run out, on the clock the claims use (this machine's wall clock,
which the test PostgreSQL on loopback shares).

A lease that runs out has no event to wait for, so the test tries to take the update over
until it is taken. The moment a lease was given is known only between the call that asked for
it and its answer (`Lease`), so what each try must find follows from when it began and ended:
a try that ended before the lease could have run out is refused, and the first try that began
after it surely ran out succeeds. A lease counted in minutes fails the second; one cut short
fails the first.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

TRY_EVERY_S = 0.05
"""Between tries: a resend needs no tighter spacing to show when the lease ran out."""


@dataclass(frozen=True)
class Lease:
    """A lease of `seconds` given at some moment between `asked` and `answered`."""

    asked: float
    answered: float
    seconds: float

    @property
    def earliest_end(self) -> float:
        return self.asked + self.seconds

    @property
    def latest_end(self) -> float:
        return self.answered + self.seconds


async def leased(give: Callable[[], Awaitable[bool | None]], seconds: float) -> Lease:
    """Run `give` (a claim, which must win, or a renewal of `seconds`); when it happened."""
    asked = time.time()
    assert await give() is not False, "the claim was won"
    return Lease(asked, time.time(), seconds)


async def tries_until_taken(take: Callable[[], Awaitable[bool]], lease: Lease) -> int:
    """Try `take` until it succeeds; how many tries, all refused, ended before `lease` could
    have run out. Fails when a try is let through too early or refused too late."""
    early = 0
    while True:
        began = time.time()
        taken = await take()
        ended = time.time()
        if ended < lease.earliest_end:
            assert not taken, f"taken {lease.earliest_end - ended:.2f} s before the lease ended"
            early += 1
        if taken:
            return early
        late = began - lease.latest_end
        assert late < 0, f"still refused {late:.2f} s after a {lease.seconds} s lease ended"
        await asyncio.sleep(TRY_EVERY_S)  # the next try, as a resend would come
