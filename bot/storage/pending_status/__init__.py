"""Status messages still on screen, kept so a killed bot can tidy them up next start.

A status message ("Thinking…") becomes the answer when the question ends. If the process dies
first (SIGKILL, out of memory, power loss) it would stay in the chat forever; the store
remembers every status message until its question is finished, and at start-up the Telegram
wing (bot.telegram.output.pending_status) edits the leftovers into a notice that the bot
restarted and the question should be sent again.

`SqlitePendingStatusStore` (sqlite.py) keeps them in a small SQLite file in DATA_DIR;
with DATABASE_URL, `PostgresPendingStatusStore` (postgres.py) in the shared database, each
record naming the worker that sent its message, so a worker starting while others run tidies
only the records of workers that are gone. That store reports a failing database as
`StorageError`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class PendingStatus:
    """One status message on screen: where it is and which language its user reads."""

    chat_id: int
    message_id: int
    lang: str
    thread_id: int | None = None


class PendingStatusStore(Protocol):
    """The status messages whose questions have not finished yet."""

    def add(self, status: PendingStatus) -> asyncio.Future[None]:
        """Remember a status message that was just sent; queued before this returns."""
        ...

    async def remove(self, chat_id: int, message_id: int) -> None:
        """Forget a status message: its question is finished one way or another."""
        ...

    async def leftovers(self) -> list[PendingStatus]:
        """The records no running process will finish, newest first."""
        ...

    async def drop(self, statuses: Sequence[PendingStatus]) -> None:
        """Forget these records (left-overs that were dealt with)."""
        ...

    async def close(self) -> None:
        """Let go of the store; writes already asked for finish first."""
        ...
