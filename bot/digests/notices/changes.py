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
reported, and what comes back is compared with what was there before. Only when the folder is
still the very directory it was at the last look (same device and inode, so nothing was
unmounted or put in its place) is an empty folder taken at its word: its last files were
deleted, and that is told. The directory is read when a snapshot is first looked at, not when
the index took it, so a folder changed and unmounted within one look could still be misread;
the index replaces its snapshot only on a change, which keeps that window to a change made in
the last seconds before an unmount.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from bot.storage.notices import Change, Snapshot
from tools.index.watch import FolderId

log = logging.getLogger(__name__)

__all__ = ["FolderChanges", "FolderId", "Snapshot", "changes_between"]


class FolderChanges:
    """What changed in the folder since the last look; `snapshot` gives the index's newest,
    `scanned` whether its first scan has ended, `identity` which directory the folder is now
    (`tools.index.watch.folder_identity`; without it an emptied folder is never told as
    deleted files)."""

    def __init__(
        self,
        snapshot: Callable[[], Snapshot],
        scanned: Callable[[], bool],
        identity: Callable[[], FolderId | None] = lambda: None,
    ) -> None:
        self._snapshot = snapshot
        self._scanned = scanned
        self._identity = identity
        self._last: Snapshot | None = None
        self._last_in: FolderId | None = None  # the directory `_last` was seen in, if known

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
            # the index's own snapshot (a first start) is the folder now; one an earlier run
            # remembered was seen in whatever was mounted then
            self._last_in = self._identity() if remembered is self._snapshot() else None

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
            self._last, self._last_in = now, self._identity()
            return []
        if now is before:
            return []
        seen_in = self._identity()
        if not now and before and (seen_in is None or seen_in != self._last_in):
            log.warning(
                "the documents folder looks empty (%d files before); not reported as "
                "removed until it is seen again",
                len(before),
            )
            return []
        self._last, self._last_in = now, seen_in
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
