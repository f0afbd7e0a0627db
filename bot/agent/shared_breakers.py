"""The chain's breakers joined with every other worker's, through `bot.storage.breakers`.

A breaker that opens here is written for the others, and so is one that closes (the model
answered after its cool-down); what another worker writes is applied here as soon as it is
heard, and what was open when this worker joined is applied at once. So a model that is down
is waited for by one worker, once, and the others' next questions go straight to the fallback.
Without a shared store (one process, SQLite) nothing is written: every breaker is this
process's own, as before.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from bot.agent.breaker import Breaker
from bot.storage.breakers import SharedBreakers

logger = logging.getLogger(__name__)


class BreakerBoard:
    """Tells the other workers of this chain's breakers, and applies theirs here."""

    def __init__(self, breakers: Sequence[Breaker]) -> None:
        self._breakers = {breaker.model: breaker for breaker in breakers}
        self._shared: SharedBreakers | None = None

    async def join(self, shared: SharedBreakers) -> None:
        """Share the breakers through `shared` from now on, starting with those open there."""
        self._shared = shared
        await shared.watch(self._heard)
        for found in await shared.open_now():
            breaker = self._breakers.get(found.model)
            if breaker is not None:
                logger.info(
                    "model %s is passed over for %.0f s: another worker found it down (%s)",
                    found.model,
                    found.retry_in_s,
                    found.reason,
                )
                breaker.learnt(found.retry_in_s, found.reason)

    async def opened(self, breaker: Breaker, kind: str) -> None:
        """`breaker` opened here after a failure of `kind`: tell the others."""
        if self._shared is not None:
            await self._shared.opened(breaker.model, breaker.cooldown_s, kind)

    async def closed(self, breaker: Breaker) -> None:
        """`breaker` closed here (its model answered again): tell the others."""
        if self._shared is not None:
            await self._shared.closed(breaker.model)

    async def _heard(self, model: str) -> None:
        """A worker (this one too) opened or closed `model`'s breaker: apply what is stored."""
        breaker = self._breakers.get(model)
        if breaker is None or self._shared is None:
            return  # a model this worker's chain does not have
        found = next((o for o in await self._shared.open_now() if o.model == model), None)
        if found is None:
            breaker.forgotten()
        else:
            breaker.learnt(found.retry_in_s, found.reason)
