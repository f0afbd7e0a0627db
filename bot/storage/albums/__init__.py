"""A short memory of albums (media groups): Telegram sends each item as its own message.

Only the first item usually carries the caption, so what it decided (the folder, or that the
sender was already answered) is kept for a minute for the items that follow. In one process
the memory is a dict (`Albums`, memory.py: nothing to share, so no SQLite class); with several
workers, whose balancer may hand the items of one album to different workers, it is a
PostgreSQL table (`PostgresAlbums`, postgres.py), and "first item" is decided by one insert
that only one worker can win.
"""

from __future__ import annotations

from typing import Protocol


class AlbumMemory(Protocol):
    """What was decided for each recent `media_group_id`."""

    async def remember(self, group_id: str, value: str) -> None:
        """Keep `value` for the album `group_id`."""
        ...

    async def recall(self, group_id: str | None) -> str | None:
        """The value kept for the album, or None for a new (or long past) album."""
        ...

    async def first_item(self, group_id: str | None, value: str) -> bool:
        """Whether this message should be answered: not part of an album, or the first of its
        album seen; the album is then remembered with `value`, so its other items stay quiet."""
        ...
