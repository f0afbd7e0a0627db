"""Keeps the index in step with the sandbox: a first build, then a cheap scan every second.

All index writes and the extraction they need run on one dedicated thread, so SQLite sees one
writer and the event loop never waits. A refresh asked for by an upload jumps the queue of a
running build. A deleted or corrupt index file is noticed and rebuilt from the documents.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import logging
import os
import sqlite3
import stat
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from tools.cache import DocumentCache, cached_extract
from tools.errors import ContentError, ExtractionError, SandboxError
from tools.extract import Extractor, kind_of
from tools.index import IndexWriter, ReaderPool, is_damaged, remove_files
from tools.sandbox import Sandbox
from tools.terms import Stemmer

log = logging.getLogger(__name__)
COMMIT_EVERY = 0.5
RETRY_AFTER = 30.0


@dataclass(frozen=True)
class FileReport:
    """What indexing one file produced."""

    path: str
    chars: int
    error: str | None


@dataclass(frozen=True)
class ReindexReport:
    """What a full rebuild did."""

    indexed: int
    skipped: int
    errors: list[str]
    seconds: float


@dataclass(frozen=True)
class IndexStatus:
    """How far the index is."""

    documents: int
    ready: bool


@dataclass
class _State:
    known: dict[str, tuple[int, int]] = field(default_factory=dict)
    visible: dict[str, tuple[int, int]] = field(default_factory=dict)
    ready: bool = False
    db_inode: int = -1


class Indexer:
    """Owns the index writer, its thread and the change watcher."""

    def __init__(
        self,
        sandbox: Sandbox,
        db_path: Path,
        *,
        extractor: Extractor,
        cache: DocumentCache,
        stemmer: Stemmer,
        interval: float = 1.0,
    ) -> None:
        self.sandbox = sandbox
        self.db_path = db_path
        self.extractor = extractor
        self.cache = cache
        self.stemmer = stemmer
        self.interval = interval
        self.readers = ReaderPool(db_path)
        self.state = _State()
        self.changed = asyncio.Event()
        self.ready = asyncio.Event()
        self.scanned = asyncio.Event()
        self._executor = concurrent.futures.ThreadPoolExecutor(1, "tools-index")
        self._writer: IndexWriter | None = None
        self._urgent: collections.deque[tuple[str, concurrent.futures.Future[FileReport]]] = (
            collections.deque()
        )
        self._stopping = threading.Event()
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.passes = 0
        self.scan_seconds = 0.0
        self.broken = False
        self._retry_at: dict[str, float] = {}

    # -- lifecycle (event loop side) -------------------------------------------------------

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        await self._run(self._open)
        self._task = asyncio.create_task(self._watch(), name="tools-index-watcher")

    def stop(self) -> None:
        """Ask a running pass to stop after the current file."""
        self._stopping.set()

    async def close(self) -> None:
        self._stopping.set()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        # Readers first: the writer's connection is then the last one, and closing it folds
        # the write-ahead log back into the index and removes the side files.
        self.readers.close()
        await self._run(self._close_writer)
        self._executor.shutdown(wait=True)

    async def _run(self, fn: object, *args: object) -> object:
        assert callable(fn)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, fn, *args)

    async def _watch(self) -> None:
        """Sync now, then every `interval` seconds, until closed."""
        while not self._stopping.is_set():
            try:
                await self._run(self._sync)
            except Exception:  # a failed pass is retried on the next tick; the bot lives on
                log.exception("index update failed; will retry")
            self.passes += 1
            if self.state.ready:
                self.ready.set()
            self.changed.set()
            self.changed = asyncio.Event()
            # A huge folder makes each scan costly: then scan less often than every second.
            await asyncio.sleep(max(self.interval, 3 * self.scan_seconds))

    async def wait_synced(self) -> None:
        """Wait until a pass that started after this call has finished."""
        target = self.passes + 2
        while self.passes < target:
            await self.changed.wait()

    def mark_broken(self) -> None:
        """A reader found the index unreadable: rebuild it on the next pass."""
        self.broken = True

    async def refresh(self, rel: str) -> FileReport:
        """Index one file now, ahead of any running pass (an error report once closed)."""
        future: concurrent.futures.Future[FileReport] = concurrent.futures.Future()
        self._urgent.append((rel, future))
        try:
            self._executor.submit(self._drain_urgent)
        except RuntimeError:  # the executor is shut down: the toolbox was closed
            return FileReport(rel, 0, "the search index is closed")
        return await asyncio.wrap_future(future)

    async def reindex(self) -> ReindexReport:
        result = await self._run(self._rebuild)
        assert isinstance(result, ReindexReport)
        return result

    def status(self) -> IndexStatus:
        return IndexStatus(documents=len(self.state.known), ready=self.state.ready)

    # -- the writer thread ------------------------------------------------------------------

    def _open(self) -> None:
        self.db_path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._writer = IndexWriter(self.db_path)
            self.state.known = self._writer.known()
        except sqlite3.DatabaseError as exc:
            log.warning("the search index is unreadable (%s); rebuilding it", exc)
            self._reset()
        self.state.db_inode = self._inode()

    def _inode(self) -> int:
        try:
            return os.stat(self.db_path).st_ino
        except OSError:
            return -1

    def _reset(self) -> None:
        """Start over with an empty index file."""
        if self._writer is not None:
            with contextlib.suppress(sqlite3.Error):
                self._writer.conn.close()
            self._writer = None
        self.readers.close()
        remove_files(self.db_path)
        self._writer = IndexWriter(self.db_path)
        self.state.known = {}
        self.state.ready = False
        self.state.db_inode = self._inode()

    def _close_writer(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def _writer_or_reset(self) -> IndexWriter:
        if self._writer is None or self.broken or self._inode() != self.state.db_inode:
            log.warning("the search index file is missing or damaged; rebuilding it")
            self.broken = False
            self._reset()
        assert self._writer is not None
        return self._writer

    def _sync(self) -> None:
        """One pass: find added, changed and removed files and bring the index in line."""
        try:
            self._sync_pass()
        except sqlite3.DatabaseError as exc:
            if not is_damaged(exc):
                raise  # busy or full disk: the next pass tries again
            log.warning("the search index is damaged (%s); rebuilding it", exc)
            self._reset()
            self._sync_pass()

    def _scan(self) -> dict[str, tuple[int, int]]:
        started = time.monotonic()
        found = {e.rel: (e.size, e.mtime_ns) for e in self.sandbox.walk() if not e.is_dir}
        self.scan_seconds = time.monotonic() - started
        return found

    def _sync_pass(self) -> list[FileReport]:
        """Index what changed since the last pass; returns a report per file indexed."""
        writer = self._writer_or_reset()
        visible = self._scan()
        self.state.visible = visible
        if self._loop is not None and not self.scanned.is_set():
            self._loop.call_soon_threadsafe(self.scanned.set)  # names are searchable now
        known = self.state.known
        stale = [p for p in known if p not in visible]
        now = time.monotonic()
        todo = [
            p
            for p, sig in visible.items()
            if known.get(p) != sig and self._retry_at.get(p, 0.0) <= now
        ]
        for path in stale:
            writer.delete(path)
            known.pop(path, None)
        writer.commit()
        reports: list[FileReport] = []
        last_commit = time.monotonic()
        for path in sorted(todo, key=lambda p: (p.count("/"), p)):
            if self._stopping.is_set():
                break
            self._drain_urgent()
            reports.append(self._index(writer, path, visible[path]))
            if time.monotonic() - last_commit > COMMIT_EVERY:
                writer.commit()
                last_commit = time.monotonic()
        writer.commit()
        if not self._stopping.is_set():
            self.state.ready = True
        return reports

    def _index(self, writer: IndexWriter, rel: str, sig: tuple[int, int]) -> FileReport:
        """Extract and store one file; an unreadable file is stored by name with its error.

        A passing failure (permission, a file vanishing mid-read, shutdown) is stored with an
        impossible size, so the file is tried again later (and after a restart).
        """
        text, error = "", None
        try:
            real = self.sandbox.resolve(rel)
            costly = kind_of(real) in ("pdf", "docx")
            doc = cached_extract(
                self.extractor, self.cache, real, (rel, *sig), keep=costly, background=True
            )
            text = "\n".join(doc.lines)
            self._retry_at.pop(rel, None)
        except ContentError as exc:
            error = exc.message
        except (ExtractionError, SandboxError) as exc:
            error = exc.message
            sig = (-1, sig[1])
            self._retry_at[rel] = time.monotonic() + RETRY_AFTER
        writer.upsert(
            rel,
            size=sig[0],
            mtime_ns=sig[1],
            text=text,
            error=error,
            name_terms=self.stemmer.name_terms(rel),
            body_terms=self.stemmer.terms(text) if text else [],
        )
        self.state.known[rel] = sig
        return FileReport(rel, len(text), error)

    def _drain_urgent(self) -> None:
        while self._urgent:
            rel, future = self._urgent.popleft()
            if future.done():
                continue
            try:
                future.set_result(self._refresh_one(rel))
            except Exception as exc:  # handed to the awaiting caller, who decides
                future.set_exception(exc)

    def _refresh_one(self, rel: str) -> FileReport:
        writer = self._writer_or_reset()
        try:
            real = self.sandbox.resolve(rel)
            info = real.stat()
        except (SandboxError, OSError) as exc:
            message = exc.message if isinstance(exc, SandboxError) else "the file is gone"
            writer.delete(rel)
            writer.commit()
            self.state.known.pop(rel, None)
            self.state.visible = {p: s for p, s in self.state.visible.items() if p != rel}
            return FileReport(rel, 0, message)
        if not stat.S_ISREG(info.st_mode):
            return FileReport(self.sandbox.relative(real), 0, "not a regular file")
        rel = self.sandbox.relative(real)
        sig = (info.st_size, info.st_mtime_ns)
        report = self._index(writer, rel, sig)
        writer.commit()
        self.state.visible = {**self.state.visible, rel: sig}  # replaced, never mutated
        return report

    def _rebuild(self) -> ReindexReport:
        started = time.monotonic()
        self._reset()
        self._retry_at.clear()
        reports = self._sync_pass()
        errors = [f"{r.path}: {r.error}" for r in reports if r.error]
        indexed = len(reports) - len(errors)
        return ReindexReport(indexed, len(errors), errors, time.monotonic() - started)
