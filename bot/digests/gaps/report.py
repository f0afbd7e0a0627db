"""The grouped unanswered questions of a period, read from the store: what `/gaps` and the
digest both show. A viewer with a scope is shown only the questions whose answers read no file
outside it, as `/feedback` shows them only the answers within it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from bot.digests.gaps.grouping import Gap, group_gaps
from bot.settings.scopes.viewer import sees_all
from bot.storage.unanswered import UnansweredLog
from tools.index.terms import Stemmer
from tools.jail.scope import Scope

RECENT_DAYS = 7
"""The days `/gaps` looks back."""
_DAY_S = 24 * 3600.0


class GapReport:
    """Unanswered questions grouped by the word they share; `clock` gives Unix time."""

    def __init__(
        self,
        store: UnansweredLog,
        *,
        stemmer: Stemmer | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._store = store
        self._stemmer = stemmer or Stemmer()
        self._clock = clock

    async def recent(self, days: int = RECENT_DAYS, *, viewer: Scope | None = None) -> list[Gap]:
        """The groups of the last `days` days the viewer may see, most asked first."""
        return await self.between(self._clock() - days * _DAY_S, None, viewer=viewer)

    async def between(
        self, start: float, end: float | None, *, viewer: Scope | None = None
    ) -> list[Gap]:
        """The groups of the questions marked in [start, end) the viewer may see, most asked
        first."""
        questions = [q for q in await self._store.since(start, end) if sees_all(viewer, q.files)]
        if not questions:
            return []
        # stemming a few thousand questions is CPU work: off the event loop
        return await asyncio.to_thread(group_gaps, questions, self._stemmer)
