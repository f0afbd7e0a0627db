"""The documents folder's changes, found by comparing the index's snapshots of it.

The index keeps a snapshot of the visible files (path, size, modification time) and replaces
it, never edits it, whenever it sees the folder change: the watcher's reports, admins' uploads,
/rm, /mv and restores from the trash, a file copied in by hand. Comparing the newest snapshot
with the one before gives what appeared, changed and went; a move is a file going and the same
file (same size and time) appearing elsewhere, which `digest` pairs.

The starting point, once the index's first scan has ended, is the folder as the bot last saw
it: the notices' store keeps the files as the changes it recorded leave them, so what was
copied in, edited, moved or deleted while no bot ran is told after the next start. That store,
not the search index, holds it: the index is each machine's own (several workers would each
tell a change from their own stale copy), it is rebuilt from nothing after an upgrade or a
damaged file, and it follows the folder whether or not its changes were recorded. Only when
the store remembers no folder (a first start) is the folder as first scanned the starting
point: the first index build is not news. A snapshot that is suddenly empty stands for a folder
gone (an unmounted disk, a replaced folder) rather than every document deleted: it is not
reported, and what comes back is compared with what was there before.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from bot.storage.notices import Change, Snapshot

log = logging.getLogger(__name__)

__all__ = ["FolderChanges", "Snapshot", "changes_between"]


class FolderChanges:
    """What changed in the folder since the last look; `snapshot` gives the index's newest,
    `scanned` whether its first scan has ended."""

    def __init__(self, snapshot: Callable[[], Snapshot], scanned: Callable[[], bool]) -> None:
        self._snapshot = snapshot
        self._scanned = scanned
        self._last: Snapshot | None = None

    @property
    def scanned(self) -> bool:
        """Whether the index's first scan has ended: before, its snapshot is not the folder."""
        return self._scanned()

    @property
    def started(self) -> bool:
        """Whether the starting point is taken."""
        return self._last is not None

    def now(self) -> Snapshot:
        """The index's newest snapshot of the folder."""
        return self._snapshot()

    def start(self, remembered: Snapshot) -> None:
        """Take `remembered`, the folder as the bot last saw it, as the starting point; nothing
        when one is taken already."""
        if self._last is None:
            self._last = remembered

    def restart(self) -> None:
        """Drop the starting point: the next one is taken from the store again (after the
        changes of a look could not be kept)."""
        self._last = None

    def look(self) -> list[Change]:
        """The changes since the previous look, by path; none at the first look when no
        starting point was taken (that look is it)."""
        if not self._scanned():
            return []
        now = self._snapshot()
        before = self._last
        if before is None:
            self._last = now
            return []
        if now is before:
            return []
        if not now and before:
            log.warning(
                "the documents folder looks empty (%d files before); not reported as "
                "removed until it is seen again",
                len(before),
            )
            return []
        self._last = now
        return changes_between(before, now)


def changes_between(before: Snapshot, now: Snapshot) -> list[Change]:
    """What turns `before` into `now`, by path."""
    found: list[Change] = []
    for path, (size, mtime_ns) in now.items():
        old = before.get(path)
        if old is None:
            found.append(Change(path, "added", size, mtime_ns))
        elif old != (size, mtime_ns):
            found.append(Change(path, "changed", size, mtime_ns))
    for path, (size, mtime_ns) in before.items():
        if path not in now:
            found.append(Change(path, "removed", size, mtime_ns))
    found.sort(key=lambda change: change.path)
    return found
