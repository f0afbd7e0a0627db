"""Short ids for an answer's sources, so a button can name a document without carrying its path.

Telegram keeps at most 64 bytes of data on a button and shows them to any client that asks, so
a button carries only a random id; this store maps the id to the document's path relative to
the documents folder and to the chat whose members may press it. Nothing of the document's text
is kept. A page button's id stands for a page of a document as well (`issue_pages`, `find_page`:
a table of their own, so an id of one kind is never taken for the other). Buttons under old
answers keep working after a restart, until they expire
(`LIFETIME_S`); expired rows are dropped as new ones are written. `SqliteSourceLinks`
(sqlite.py) keeps them in a small SQLite file in DATA_DIR; with DATABASE_URL,
`PostgresSourceLinks` (postgres.py) in the shared database, so a button works whichever worker
or machine its tap reaches. No aiogram here: the Telegram wing builds the buttons.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

LIFETIME_S = 30 * 24 * 3600.0
ID_BYTES = 9
"""Random bytes of an id: 12 url-safe characters, 72 bits, not guessable."""
ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{12}")
NEW_ID_ATTEMPTS = 5
"""Fresh ids drawn before a clash is given up as an error."""


@dataclass(frozen=True, slots=True)
class SourceLink:
    """What one id stands for: a document and the chat whose members may open it."""

    path: str
    """Relative to the documents folder, as the answer's sources name it."""
    chat_id: int
    created_at: float
    """Unix time."""
    page: int | None = None
    """The page (from 1) a page button shows; None for a document's own button."""


def is_link_id(text: str) -> bool:
    """Whether `text` has the shape of an id this store makes."""
    return ID_PATTERN.fullmatch(text) is not None


class SourceLinks(Protocol):
    """The ids behind source buttons."""

    async def issue(self, chat_id: int, paths: Sequence[str]) -> list[str]:
        """A new id for each path, in order, pressable in `chat_id`."""
        ...

    async def find(self, link_id: str) -> SourceLink | None:
        """What `link_id` stands for; None when it is unknown, malformed or expired."""
        ...

    async def issue_pages(self, chat_id: int, pages: Sequence[tuple[str, int]]) -> list[str]:
        """A new id for each (path, page), in order, pressable in `chat_id`."""
        ...

    async def find_page(self, link_id: str) -> SourceLink | None:
        """The page `link_id` stands for (its `page` set); None when it is unknown, malformed
        or expired."""
        ...

    async def forget_chat(self, chat_id: int) -> int:
        """Drop every id issued to `chat_id`, pages' too; how many."""
        ...

    async def close(self) -> None:
        """Let go of the store."""
        ...
