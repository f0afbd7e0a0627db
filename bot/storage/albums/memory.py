"""`AlbumMemory` in this process's memory: a dict, each album forgotten after a minute."""

from __future__ import annotations

import time
from collections.abc import Callable

_SWEEP_AT = 1_000


class Albums:
    """What was decided for each recent `media_group_id`, forgotten after `ttl_s`; `clock`
    gives seconds (monotonic: nothing outside this process compares them)."""

    def __init__(
        self, ttl_s: float = 60.0, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._ttl = ttl_s
        self._clock = clock
        self._seen: dict[str, tuple[float, str]] = {}

    async def remember(self, group_id: str, value: str) -> None:
        now = self._clock()
        if len(self._seen) >= _SWEEP_AT:
            self._seen = {k: v for k, v in self._seen.items() if now - v[0] < self._ttl}
        self._seen[group_id] = (now, value)

    async def recall(self, group_id: str | None) -> str | None:
        if group_id is None:
            return None
        kept = self._seen.get(group_id)
        if kept is None or self._clock() - kept[0] >= self._ttl:
            return None
        return kept[1]

    async def first_item(self, group_id: str | None, value: str) -> bool:
        if group_id is None:
            return True
        if await self.recall(group_id) is not None:
            return False
        await self.remember(group_id, value)
        return True
