"""One lock per conversation: the single place where a conversation is serialised.

The composition root builds one table and hands it to the agent and to the Telegram wing's
ordering middleware. The middleware holds a conversation's lock around a whole update (status
message, question, answer); the agent, holding it again inside that update's task, passes
straight through, while the terminal chat and the benchmarks, which call the agent directly,
get the same one-question-at-a-time guarantee from the agent alone.

With several worker processes sharing a database, the table is given an `across` lock (see
`bot.storage.conversation_lock`): a task that takes a key here then takes the key's
cross-process lock too, once, so re-entry within the task still passes straight through.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import Protocol


class AcrossProcesses(Protocol):
    """A lock per key shared by every process of the bot (not re-entrant)."""

    def hold(self, key: str) -> AbstractAsyncContextManager[None]:
        """Wait until no other process holds `key`, and hold it for the `async with` body."""
        ...


@dataclass
class _Slot:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0
    holder: asyncio.Task[object] | None = None


class KeyedLocks:
    """A lock per key, created on first use and dropped when nobody holds or waits for it.

    Re-entrant within one task: the task that holds a key may hold it again (nested) without
    waiting for itself. Waiters are served first come, first served.
    """

    def __init__(self, across: AcrossProcesses | None = None) -> None:
        self._slots: dict[str, _Slot] = {}
        self._across = across

    def __len__(self) -> int:
        return len(self._slots)

    def waiting(self, key: str) -> int:
        """How many tasks hold or wait for `key`."""
        slot = self._slots.get(key)
        return slot.users if slot else 0

    def load(self) -> tuple[int, int]:
        """How many conversations are being served now, and how many tasks wait their turn."""
        running = sum(1 for slot in self._slots.values() if slot.lock.locked())
        users = sum(slot.users for slot in self._slots.values())
        return running, users - running

    @asynccontextmanager
    async def hold(self, key: str) -> AsyncIterator[None]:
        """Wait for the key's lock and hold it for the `async with` body."""
        task = asyncio.current_task()
        slot = self._slots.get(key)
        if slot is not None and task is not None and slot.holder is task:
            yield
            return
        slot = self._slots.setdefault(key, _Slot())
        slot.users += 1
        try:
            async with slot.lock:
                slot.holder = task
                try:
                    if self._across is None:
                        yield
                    else:
                        async with self._across.hold(key):
                            yield
                finally:
                    slot.holder = None
        finally:
            slot.users -= 1
            if slot.users == 0:
                del self._slots[key]
