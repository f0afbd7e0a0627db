"""Who has a database file open: a marker beside it, and a lock on it for each process that does.

The marker exists while any process has the file open, and the last one to close it cleanly
removes it; finding it at start with nobody holding it means a run ended without closing. Each
holder keeps a shared `flock` on the marker while it has the file open. The kernel lets go of
that lock however a holder ends, so a second process (the terminal chat beside a running bot)
tells a live holder from a crash: it neither reports an unclean shutdown nor removes the marker
a running bot still holds.

The first holder keeps its lock exclusive until it has opened the file (`opened`): whatever it
does after a crash (a check, marking questions cut off) is done before anybody else joins.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path


class InUseMarker:
    """This process's hold on one marker.

    `first`: no other process had the file open, so this one may recover it. `unclean`: the
    marker was left by a process that ended without closing the file.
    """

    def __init__(self, path: Path, fd: int, *, first: bool, unclean: bool) -> None:
        self.path = path
        self._fd: int | None = fd
        self.first = first
        self.unclean = unclean

    @classmethod
    def take(cls, path: Path) -> InUseMarker:
        """Join the holders of the marker at `path` (blocking: waits while the first holder
        opens the file or the last one closes it)."""
        while True:
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
                created = True
            except FileExistsError:
                try:
                    fd = os.open(path, os.O_RDWR)
                except FileNotFoundError:
                    continue  # the last holder removed it just now
                created = False
            try:
                first = _try_lock(fd, fcntl.LOCK_EX)
                if not first:
                    fcntl.flock(fd, fcntl.LOCK_SH)
                if _same_file(fd, path):
                    return cls(path, fd, first=first, unclean=first and not created)
            except BaseException:
                os.close(fd)
                raise
            os.close(fd)  # the last holder removed it while this one waited: join anew

    def opened(self) -> None:
        """The file is open: let other processes join."""
        if self._fd is not None and self.first:
            fcntl.flock(self._fd, fcntl.LOCK_SH)

    def abandon(self) -> None:
        """Leave without a clean close: the marker stays for the next process to find."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

    def release(self) -> None:
        """Leave after a clean close; the last holder removes the marker."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            if _try_lock(fd, fcntl.LOCK_EX):
                self.path.unlink(missing_ok=True)
        finally:
            os.close(fd)


def _try_lock(fd: int, kind: int) -> bool:
    try:
        fcntl.flock(fd, kind | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _same_file(fd: int, path: Path) -> bool:
    """Whether `fd` is still the file at `path` (not one removed since it was opened)."""
    try:
        now = path.stat()
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (held.st_dev, held.st_ino) == (now.st_dev, now.st_ino)
