"""Who is subscribed to which folder's change notices, and the changes waiting to be told.

A subscription is one chat (or one forum topic of it) and one folder (`""` for everything the
chat may see), with the language its digest is written in and `sent_through`: the id of the
last change its digests have covered. The changes are the documents folder's, as the bot saw
them: a path, whether it appeared, changed or went, its size and time (so the same change seen
by several workers is kept once, and a move is recognised as one file going and the same file
appearing), and when it was noticed. They are kept for `KEEP_S` and read back oldest first.

The store also remembers the folder: its files as the recorded changes leave it, each change
applied in the same transaction that keeps it. A bot starting compares the folder with that, so
what changed while no bot ran is told; the folder is remembered whole once, at the first start.

`claim` moves one subscription's `sent_through` forward only if it still holds what the caller
read: one conditional write, so of several workers (or a process before and after a restart)
exactly one sends each digest. A private subscription belongs to its user (`/forget` deletes it); a
group's belongs to the group, and remembers the admin who made it. `SqliteNotices` (sqlite.py)
keeps them in a small file in DATA_DIR, `PostgresNotices` (postgres.py) in the shared database.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

Kind = Literal["added", "changed", "removed"]
"""What happened to a path: it appeared, its contents changed, it went away."""

KEEP_S = 7 * 24 * 3600.0
"""How long a change is kept: digests go out within minutes, so this only bounds the table
when a bot stays down."""

Snapshot = Mapping[str, tuple[int, int]]
"""Visible files by path: (size, modification time in ns)."""

MAX_READ = 5000
"""Changes read back at most in one look (the oldest), however many a big copy made."""


@dataclass(frozen=True, slots=True)
class Subscription:
    """One chat's notices about one folder."""

    chat_id: int
    thread_id: int | None
    """The forum topic the digests go to; None for the chat itself."""
    folder: str
    """Relative to the documents folder (`hr/2025`); `""` for everything the chat may see."""
    user_id: int | None
    """The user for a private chat; None for a group, which owns its subscriptions."""
    language: str
    sent_through: int
    """The id of the last change its digests covered."""
    subscribed_by: int | None = None
    """The admin who subscribed a group: its digests name only what they may see there."""


@dataclass(frozen=True, slots=True)
class Change:
    """One path's change as the bot saw it."""

    path: str
    kind: Kind
    size: int
    mtime_ns: int


@dataclass(frozen=True, slots=True)
class NoticedChange:
    """A change as it was kept: its id (later changes have larger ones) and when."""

    id: int
    change: Change
    noticed_at: float
    """Unix time."""


class NoticeStore(Protocol):
    """Where subscriptions and the changes they hear about are kept."""

    async def subscribe(
        self,
        chat_id: int,
        folder: str,
        *,
        thread_id: int | None = None,
        user_id: int | None,
        language: str,
        subscribed_by: int | None = None,
    ) -> bool:
        """Subscribe a chat (a forum topic of it) to a folder from the next change on, for
        `subscribed_by` (a group's admin); False when it already was (its language is updated
        then)."""

    async def unsubscribe(
        self, chat_id: int, folder: str | None = None, *, thread_id: int | None = None
    ) -> int:
        """End a chat's (a topic's) subscription to `folder` (every one when None); how many
        ended."""

    async def of_chat(self, chat_id: int, thread_id: int | None = None) -> list[Subscription]:
        """A chat's (a topic's) subscriptions, by folder."""

    async def subscriptions(self) -> list[Subscription]:
        """Every subscription, by chat, topic and folder."""

    async def record(self, changes: Sequence[Change]) -> int:
        """Keep changes, stamped now, in order, and apply them to the remembered folder; a
        change whose path's latest kept change says the same already (another worker saw it)
        is left out. How many were kept."""

    async def remembered_folder(self) -> Snapshot | None:
        """The folder as the recorded changes leave it; None when none was remembered yet."""

    async def remember_folder(self, files: Snapshot) -> bool:
        """Remember the folder as `files` when none is remembered yet (a first start); False
        when one was (another worker's stands)."""

    async def since(self, after: int) -> list[NoticedChange]:
        """Changes with an id above `after`, oldest first; at most `MAX_READ`."""

    async def claim(self, subscription: Subscription, through: int) -> bool:
        """Move a subscription's `sent_through` from what it held when read to `through`;
        False when it no longer holds that (another process sent that digest) or is gone."""

    async def delete_older(self, cutoff: float) -> int:
        """Delete changes noticed before `cutoff` (Unix time); how many."""

    async def forget_user(self, user_id: int) -> int:
        """Delete one person's own subscriptions (their private chat's); how many."""

    async def close(self) -> None:
        """Finish the writes asked for and release the storage."""
