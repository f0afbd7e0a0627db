"""Tells the indexer which paths in the documents folder changed, as the OS reports them.

Rescanning a big folder every second costs a steady slice of a core even when nothing changes;
OS notifications (inotify on Linux, through watchfiles) cost next to nothing while the folder is
quiet. The watcher runs on a thread of its own and hands the indexer batches of changed relative
paths, or `None` when anything may have changed (the watch has just been set up, the folder
appeared, vanished or was replaced, or notifications broke down): that asks for a full rescan.

Where notifications cannot be had (the watch limit is reached, inotify is missing) the watcher
says why in the log and reports itself `degraded`: the indexer then rescans on a timer as it
always did, and notifications are tried again later.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import stat
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path, PurePath
from typing import Literal

import watchfiles

from tools.jail.sandbox import is_hidden_name

log = logging.getLogger(__name__)

WatchMode = Literal["notify", "poll", "rescan"]
"""`notify`: OS notifications; `poll`: watchfiles compares the tree every `interval` itself
(for file systems that send no notifications); `rescan`: no watcher, the indexer rescans."""

Report = Callable[[set[str] | None], None]

FolderId = tuple[int, int]
"""A directory's device and inode: the same pair means the same directory, still mounted."""


def folder_identity(root: Path) -> FolderId | None:
    """`root`'s device and inode; None when it is not a folder or cannot be read."""
    try:
        info = os.stat(root)
    except OSError:
        return None
    return (info.st_dev, info.st_ino) if stat.S_ISDIR(info.st_mode) else None


STEP_MS = 50  # a batch is handed over once the folder has been quiet this long...
DEBOUNCE_MS = 1_000  # ...or after this long at most while changes keep coming
CHECK_MS = 1_000  # how often a quiet watch checks that the folder is still the same one
RETRY_AFTER = 60.0  # the first wait before notifications are tried again after a failure
RETRY_MAX = 3_600.0


class FolderWatcher:
    """Watches one folder from a thread and reports changes to the event loop.

    `report` is called on the event loop with the changed paths relative to `root`, or with
    `None` for "rescan everything". Hidden names and the `ignored` folders are left out.
    """

    def __init__(
        self,
        root: Path,
        report: Report,
        *,
        mode: WatchMode = "notify",
        interval: float = 1.0,
        ignored: Sequence[Path] = (),
    ) -> None:
        self.root = root
        self.mode = mode
        self.interval = interval
        self._report = report
        self._ignored = tuple(os.path.realpath(p) for p in ignored)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.live = False
        """True while a watch is in place and delivering changes."""
        self.degraded = False
        """True after notifications failed, until they work again: rescans must stand in."""

    def start(self) -> None:
        """Start watching (call from the event loop that should receive the reports)."""
        self._loop = asyncio.get_running_loop()
        self._thread = threading.Thread(target=self._run, name="tools-folder-watch", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Ask the thread to stop; it does within one `STEP_MS`."""
        self._stop.set()

    async def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join)

    # -- the watching thread ----------------------------------------------------------------

    def _run(self) -> None:
        retry = RETRY_AFTER
        while not self._stop.is_set():
            identity = self._await_folder()
            if identity is None:
                return
            started = time.monotonic()
            failure: Exception | None = None
            try:
                self._follow(identity)
            except Exception as exc:  # whatever breaks the watch, rescans stand in for it
                if self._identity() == identity:  # else the folder went away during the setup
                    failure = exc
            self.live = False
            if self._stop.is_set():
                return
            if failure is not None:
                if time.monotonic() - started > RETRY_MAX:
                    retry = RETRY_AFTER  # it had worked for a long while: a fresh failure
                self._degrade(failure, retry)
            self._send(None)  # the folder is gone or replaced, or the watch failed: rescan
            if failure is not None:
                self._stop.wait(retry)
                retry = min(retry * 2, RETRY_MAX)

    def _await_folder(self) -> FolderId | None:
        """The folder's identity once it exists as a folder; None when stopped first."""
        waited = False
        while not self._stop.is_set():
            identity = self._identity()
            if identity is not None:
                if waited:
                    self._send(None)  # it has just appeared: index what it holds
                return identity
            waited = True
            self._stop.wait(self.interval)
        return None

    def _identity(self) -> FolderId | None:
        return folder_identity(self.root)

    def _follow(self, identity: FolderId) -> None:
        """Report changes until stopped or the folder is removed or replaced."""
        changes = watchfiles.watch(
            self.root,
            watch_filter=self._wanted,
            debounce=DEBOUNCE_MS,
            step=STEP_MS,
            stop_event=self._stop,
            rust_timeout=CHECK_MS,
            yield_on_timeout=True,
            raise_interrupt=False,
            force_polling=True if self.mode == "poll" else None,
            poll_delay_ms=max(1, round(self.interval * 1000)),
            # Ignoring an error would leave the rest of the tree silently unwatched.
            ignore_permission_denied=False,
        )
        with contextlib.closing(changes):
            for batch in changes:
                if not self.live:
                    self._started()
                if self._identity() != identity:
                    return
                rels = {self._relative(path) for _, path in batch}
                if "" in rels:
                    self._send(None)  # the folder itself changed: look at all of it
                elif rels:
                    self._send(rels)

    def _started(self) -> None:
        self.live = True
        if self.degraded:
            log.info("watching the documents folder for changes again")
        self.degraded = False
        # Changes made while the watch was being set up were not seen: catch up with them.
        self._send(None)

    def _degrade(self, exc: Exception, retry: float) -> None:
        if not self.degraded:
            log.warning(
                "cannot watch the documents folder for changes (%s: %s); rescanning it "
                "every %g s instead, and trying again in %.0f s",
                type(exc).__name__,
                exc,
                self.interval,
                retry,
            )
        else:
            log.debug("watching the documents folder still fails: %s", exc)
        self.degraded = True

    def _relative(self, path: str) -> str:
        rel = PurePath(path).relative_to(self.root).as_posix()
        return "" if rel == "." else rel

    def _wanted(self, change: watchfiles.Change, path: str) -> bool:
        """Leave out hidden names (partial uploads among them) and the bot's own folders."""
        del change
        if any(path == p or path.startswith(p + os.sep) for p in self._ignored):
            return False
        try:
            parts = PurePath(path).relative_to(self.root).parts
        except ValueError:
            return False
        return not any(is_hidden_name(part) for part in parts)

    def _send(self, rels: set[str] | None) -> None:
        loop = self._loop
        if loop is None:
            return
        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody is listening
            loop.call_soon_threadsafe(self._report, rels)
