"""Which message carries which button data: what a tap is checked against.

Telegram does not sign a button's data: a client may send any data with any message id it can
see, so a tap proves only that someone pressed *something* on that message. Every time the bot
sends or edits a message with inline buttons, the data of each button is kept here under the
message's chat and id; a tap is obeyed only when its data is kept under the message it came
from. Only data the bot itself made is kept (short prefixes and random ids, never text or
paths). Rows are dropped as new ones are written once they are `LIFETIME_S` old, and `/forget`
drops a private chat's. `SqliteButtons` (sqlite.py) keeps them in a small SQLite file in
DATA_DIR; with DATABASE_URL, `PostgresButtons` (postgres.py) in the shared database, so a tap
is checked whichever worker sent the message. No aiogram here: the Telegram wing records and
checks.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Literal, Protocol

LIFETIME_S = 90 * 24 * 3600.0
"""How long a message's buttons keep working: longer than anyone goes back to vote."""

Match = Literal["bound", "other", "unknown"]
"""What a tap's data is to its message: one of its buttons (`bound`), data made for another
message while this one has buttons of its own (`other`), or a message the bot kept no buttons
for (`unknown`: sent before buttons were recorded, expired, or not the bot's)."""


class Buttons(Protocol):
    """The button data the bot put on its messages."""

    async def keep(self, chat_id: int, message_id: int, data: Collection[str]) -> None:
        """Keep `data` as buttons of the message, beside what it carried before (an edit that
        changes a button's label keeps its data the same)."""
        ...

    async def match(self, chat_id: int, message_id: int, data: str) -> Match:
        """Whether `data` is one of the buttons kept for the message."""
        ...

    async def forget_chat(self, chat_id: int) -> int:
        """Drop the buttons of every message in `chat_id`; how many."""
        ...

    async def close(self) -> None:
        """Let go of the store."""
        ...


def match_of(found: object) -> Match:
    """A lookup's answer as a `Match`: true for a row with the data, false for rows without it,
    None (no rows) for a message without kept buttons."""
    if found is None:
        return "unknown"
    return "bound" if bool(found) else "other"
