"""A lock per key that exists only while someone holds or waits for it."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class _Slot:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0


class KeyedLocks:
    """A lock per key, created on first use and dropped when nobody holds or waits for it."""

    def __init__(self) -> None:
        self._slots: dict[str, _Slot] = {}

    def __len__(self) -> int:
        return len(self._slots)

    def waiting(self, key: str) -> int:
        """How many handlers hold or wait for `key`."""
        slot = self._slots.get(key)
        return slot.users if slot else 0

    async def run(self, key: str, work: Callable[[], Awaitable[Any]]) -> Any:
        """Run `work` while holding the lock for `key`."""
        slot = self._slots.setdefault(key, _Slot())
        slot.users += 1
        try:
            async with slot.lock:
                return await work()
        finally:
            slot.users -= 1
            if slot.users == 0:
                del self._slots[key]
