"""A short memory of albums (media groups): Telegram sends each item as its own message.

Only the first item usually carries the caption, so what it decided (the folder, or that the
sender was already answered) is kept for a minute for the items that follow.
"""

from __future__ import annotations

import time
from collections.abc import Callable

_SWEEP_AT = 1_000


class Albums:
    """What was decided for each recent `media_group_id`, forgotten after `ttl_s`."""

    def __init__(self, ttl_s: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        self._ttl = ttl_s
        self._clock = clock
        self._seen: dict[str, tuple[float, str]] = {}

    def remember(self, group_id: str, value: str) -> None:
        """Keep `value` for the album `group_id`."""
        now = self._clock()
        if len(self._seen) >= _SWEEP_AT:
            self._seen = {k: v for k, v in self._seen.items() if now - v[0] < self._ttl}
        self._seen[group_id] = (now, value)

    def recall(self, group_id: str | None) -> str | None:
        """The value kept for the album, or None for a new (or long past) album."""
        if group_id is None:
            return None
        kept = self._seen.get(group_id)
        if kept is None or self._clock() - kept[0] >= self._ttl:
            return None
        return kept[1]

    def first_item(self, group_id: str | None, value: str) -> bool:
        """Whether this message should be answered: not part of an album, or the first of its
        album seen; the album is then remembered with `value`, so its other items stay quiet."""
        if group_id is None:
            return True
        if self.recall(group_id) is not None:
            return False
        self.remember(group_id, value)
        return True
