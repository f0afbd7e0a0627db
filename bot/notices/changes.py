"""The documents folder's changes, found by comparing the index's snapshots of it.

The index keeps a snapshot of the visible files (path, size, modification time) and replaces
it, never edits it, whenever it sees the folder change: the watcher's reports, admins' uploads,
/rm, /mv and restores from the trash, a file copied in by hand. Comparing the newest snapshot
with the one before gives what appeared, changed and went; a move is a file going and the same
file (same size and time) appearing elsewhere, which `digest` pairs.

The first snapshot after start (once the first scan has ended) is only the starting point:
the first index build is not news. A snapshot that is suddenly empty stands for a folder gone
(an unmounted disk, a replaced folder) rather than every document deleted: it is not reported,
and what comes back is compared with what was there before.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping

from bot.storage.notices import Change

log = logging.getLogger(__name__)

Snapshot = Mapping[str, tuple[int, int]]
"""Visible files by path: (size, modification time in ns)."""


class FolderChanges:
    """What changed in the folder since the last look; `snapshot` gives the index's newest,
    `scanned` whether its first scan has ended."""

    def __init__(self, snapshot: Callable[[], Snapshot], scanned: Callable[[], bool]) -> None:
        self._snapshot = snapshot
        self._scanned = scanned
        self._last: Snapshot | None = None

    def look(self) -> list[Change]:
        """The changes since the previous look, by path; none at the first look."""
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
