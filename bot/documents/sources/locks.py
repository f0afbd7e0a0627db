"""One pass of a source at a time, across every process that may sync it.

On one machine (the bot and `python -m bot sources sync`, or several workers on one DATA_DIR)
a file lock beside the source's state (`DATA_DIR/sources/<name>.lock`, `flock`) decides; the
kernel lets go of it when its holder dies. With DATABASE_URL the workers may be on several
machines, so a PostgreSQL advisory lock on the process's lock session (`LockSession.try_lock`)
is taken too. Neither waits: a source another process is syncing is skipped this time.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING

from bot.storage.keys import advisory_key

if TYPE_CHECKING:
    from bot.storage.session import LockSession

_NAMESPACE = "source-sync"


class SyncLocks:
    """The locks of every source's pass: files in `folder`, and `session`'s when shared."""

    def __init__(self, folder: Path, session: LockSession | None = None) -> None:
        self._folder = folder
        self._session = session

    @contextlib.asynccontextmanager
    async def hold(self, name: str) -> AsyncIterator[bool]:
        """Whether this process may sync `name` now; the locks are held until the block ends."""
        fd = self._take_file(name)
        if fd is None:
            yield False
            return
        try:
            if self._session is None:
                yield True
                return
            key = advisory_key(_NAMESPACE, name)
            generation = await self._session.try_lock(key)
            if generation is None:
                yield False
                return
            try:
                yield True
            finally:
                await self._session.unlock(key, generation)
        finally:
            os.close(fd)

    def _take_file(self, name: str) -> int | None:
        self._folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(self._folder / f"{name}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        return fd
