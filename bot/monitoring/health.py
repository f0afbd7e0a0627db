"""Whether the bot can take updates now: the answer behind `GET /healthz`.

Two things must hold: the history store answers a cheap query (and its file is still where it
was opened: a DATA_DIR removed under a running bot is not healthy), and the search index is
loaded or still being built (search answers by file name meanwhile). The reason for a failure
is one short sentence, safe to show anyone who can reach the endpoint: no paths, no secrets.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from bot.agent import HistoryUnavailable
from tools import IndexStatus

log = logging.getLogger(__name__)

_PING_TIMEOUT_S = 2.0


@dataclass(frozen=True, slots=True)
class HealthReport:
    """The verdict and the short JSON body that says it."""

    ok: bool
    body: dict[str, Any] = field(default_factory=dict)


class Health:
    """Checks the history store (`ping` raises when it cannot serve) and the search index."""

    def __init__(
        self,
        ping: Callable[[], Awaitable[None]],
        index: Callable[[], IndexStatus],
        *,
        timeout_s: float = _PING_TIMEOUT_S,
    ) -> None:
        self._ping = ping
        self._index = index
        self._timeout_s = timeout_s

    async def check(self) -> HealthReport:
        """Healthy, or not with the reason."""
        problem = await self._storage_problem()
        if problem is not None:
            return _unhealthy(problem)
        status = self._index()
        if not status.running:
            return _unhealthy("the search index has stopped")
        return HealthReport(
            ok=True,
            body={
                "status": "ok",
                "index": "ready" if status.ready else "building",
                "documents": status.documents,
            },
        )

    async def _storage_problem(self) -> str | None:
        try:
            await asyncio.wait_for(self._ping(), self._timeout_s)
        except TimeoutError:
            return f"the history store did not answer within {self._timeout_s:g} s"
        except HistoryUnavailable as exc:
            return str(exc)
        except Exception as exc:  # any other failure of the store is unhealthy too; its type
            # is enough for the probe, and the full error goes to the log
            log.warning("health check: the history store failed: %r", exc)
            return f"the history store failed ({type(exc).__name__})"
        return None


def _unhealthy(reason: str) -> HealthReport:
    log.warning("health check failed: %s", reason)
    return HealthReport(ok=False, body={"status": "unavailable", "reason": reason})
