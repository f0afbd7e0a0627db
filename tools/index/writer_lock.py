"""One writer for an index several processes share: a file lock beside the index decides who.

`fcntl.flock` on a lock file belongs to the open file, so the kernel lets go of it when the
holder exits or dies, however it dies; another process trying again then takes it and becomes
the writer. Processes that do not hold it only read the index; a running bot always holds
it, so the admin's command line can tell that a writer is there.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path


class WriterLock:
    """The right to write one index, held by at most one process at a time."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def try_take(self) -> bool:
        """Take the lock if nobody holds it; True while this process holds it. Never waits."""
        if self._fd is not None:
            return True
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        self._fd = fd
        return True

    def held_elsewhere(self) -> bool:
        """Whether another holder has the lock now; a look that creates nothing and never waits.

        The look takes a shared lock for an instant: a writer starting at that very instant
        reads first and takes the lock on its next pass.
        """
        if self._fd is not None:
            return False
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except FileNotFoundError:
            return False  # no writer has ever started here
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(fd)  # closing lets go of the shared lock
        return False

    def release(self) -> None:
        """Let another process write (closing the file releases the lock)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
