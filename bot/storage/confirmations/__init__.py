"""Actions waiting for their confirm button, each under a short random id.

A destructive command (`/rm`, `/mv`, `/forget`) is not done when it is sent: the bot answers
with a confirm button, and only a tap by the same person in the same chat does it. The button
carries the id alone (Telegram shows a button's data to any client, and keeps 64 bytes at most),
so the action and its paths wait here until the tap, a restart included, for `LIFETIME_S`. An
id is used once: taking it deletes it. `SqliteConfirmations` (sqlite.py) keeps them in a small
SQLite file in DATA_DIR; with DATABASE_URL, `PostgresConfirmations` (postgres.py) in the shared
database, so the tap may reach any worker.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

LIFETIME_S = 15 * 60.0


@dataclass(frozen=True, slots=True)
class Pending:
    """An action one person asked for in one chat, waiting for their tap."""

    user_id: int
    chat_id: int
    action: str
    args: tuple[str, ...]


class Confirmations(Protocol):
    """Actions waiting for their confirm button."""

    async def ask(self, pending: Pending) -> str:
        """Keep `pending` and return the id its button carries."""
        ...

    async def take(self, confirm_id: str, *, user_id: int, chat_id: int) -> Pending | None:
        """The action behind `confirm_id` if `user_id` asked for it in `chat_id`, removed."""
        ...

    async def forget_user(self, user_id: int) -> int:
        """Drop everything `user_id` asked for; how many were dropped."""
        ...

    async def close(self) -> None:
        """Let go of the store."""
        ...
