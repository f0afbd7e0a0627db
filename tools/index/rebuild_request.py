"""A rebuild asked of whichever process writes the index: a file beside it, taken by the writer.

The admin's `reindex` beside a running bot cannot write the index (the bot holds the writer
lock), so it leaves this file instead; the writer (any worker on this DATA_DIR that holds the
lock, or the next one to take it) looks for it every second or so, rebuilds the index from the
documents, and removes the file when the rebuild is done. A file, not a signal, because the
writer may be any of several processes, in another container, and a request outlives a writer
that dies before it is done: the next writer takes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from pathlib import Path

REBUILD_REQUEST = "search-index.rebuild"
"""The request's name in DATA_DIR, beside the index (`search-index.`: left out of backups)."""


class RebuildRequest:
    """The request file of one index."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def ask(self) -> None:
        """Leave the request for the writer (asking twice is asking once)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(f"asked by process {os.getpid()} at {time.time():.0f}\n")

    def asked(self) -> bool:
        """Whether a rebuild waits to be done; a look that creates nothing."""
        return self.path.exists()

    def done(self) -> None:
        """The rebuild is done: the request is settled."""
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    async def wait_done(self, within_s: float, every_s: float = 0.2) -> bool:
        """Whether the writer settled the request within `within_s` seconds."""
        deadline = time.monotonic() + within_s
        while self.asked():
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(every_s)
        return True
