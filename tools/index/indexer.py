"""Keeps the index in step with the sandbox: a first build, then the changes the OS reports.

After the first build only the paths the folder watcher reports are looked at again, so a quiet
folder costs nothing; a full rescan still runs now and then as a safety net (and on a timer, as
before, where notifications are unavailable or `watch="rescan"` is asked for).

All index writes run on one dedicated thread, so the index sees one writer and the event loop
never waits. During a pass, two more threads read, extract, fold and compress the next files
while the writer stores the previous ones (Tantivy cuts the words in threads of its own; SQLite
and zlib let go of the interpreter lock; costly formats are parsed in a worker process, so one
thread waits on it while the other works). A pass over many files (the first build) has them
prepared by child processes instead (`prepare_pool`, one a core, each with a parser process
of its own): in threads the plain texts' work shares this process's interpreter lock, and the
costly formats queue for the one parser process.
At most `AHEAD` files are in flight either way, which bounds the memory they hold. A refresh
asked for by an upload jumps the queue of a running build. A deleted or corrupt index file is
noticed and rebuilt from the documents.

Several processes share one index through `writer_lock`: the one holding the lock writes as
above, the others only read it, following the folder and what the writer committed, and take
the lock over when the writer dies. A `read_only` indexer (the admin's command line beside a
running bot) only ever reads: it never takes the lock, never rebuilds and never deletes; a
rebuild it wants is asked of the writer (`rebuild_request`), which looks for one every
`interval` and does it as its next pass.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import logging
import math
import os
import sqlite3
import stat
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from tools.errors import SandboxError
from tools.extract.cache import DocumentCache
from tools.extract.extractor import Extractor
from tools.index.prepare import Signature, prepare_file
from tools.index.prepare_pool import NotPrepared, Outcome, PreparePool
from tools.index.rebuild_request import RebuildRequest
from tools.index.store import (
    IndexWriter,
    Prepared,
    ReaderPool,
    remove_files,
    terms_folder,
)
from tools.index.terms import Stemmer
from tools.index.watch import FolderWatcher, WatchMode
from tools.index.writer_lock import WriterLock
from tools.jail.sandbox import Entry, Sandbox
from tools.sqlite import is_damaged

log = logging.getLogger(__name__)
COMMIT_EVERY = 2.0
AHEAD = 32  # files prepared ahead of the writer at most (bounds the memory they hold)
PREPARERS = 2  # while one waits for the parser process, the other reads and folds
KEEP_UP_TO = 100  # a pass over more files keeps no parsed text in the extraction cache
PROCESSES_FROM = 200  # a pass over this many files has child processes prepare them
PROCESSES = min(4, max(2, os.cpu_count() or 1))  # even on one core: off the interpreter lock
RETRY_AFTER = 30.0
FULL_RESCAN_EVERY = 600.0
WATCH_FIRST_FROM = 20_000
"""Documents in the stored index from which a restart's first walk waits for the watch to be
in place: the watch asks for a walk of its own once set up (changes made meanwhile were not
seen), and at this size a second walk of the whole folder costs seconds."""
WATCH_FIRST_WAIT_S = 30.0
"""How long the first walk waits for the watch at most (a slow network folder, say)."""


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
    """How far the index is.

    `running`: the indexer follows the folder (False once closed, or if it stopped on a bug).
    `build_seconds`: how long the last full pass over the folder took (None before the first
    ended): the first build, then each safety rescan.
    """

    documents: int
    ready: bool
    running: bool = True
    build_seconds: float | None = None


@dataclass
class _State:
    known: dict[str, Signature] = field(default_factory=dict)
    visible: dict[str, Signature] = field(default_factory=dict)
    """The folder's visible files as the last full walk found them; before a restart's first
    walk ends, the files the stored index holds (see `Indexer.present`)."""
    ready: bool = False
    walked: bool = False
    """Whether `visible` comes from a walk of the folder (False until the first ends)."""
    db_inode: int = -1


class Indexer:
    """Owns the index writer, its thread and the change watcher.

    `watch` chooses how changes are noticed (see `WatchMode`); `interval` is how often the
    folder is rescanned when notifications are not used or not available (and how often a
    missing folder is looked for); `full_rescan_interval` is the safety-net rescan while they
    are. Without a `writer_lock` this indexer is the index's only writer; `read_only` makes it
    a reader that never writes, whoever holds the lock.
    """

    def __init__(
        self,
        sandbox: Sandbox,
        db_path: Path,
        *,
        extractor: Extractor,
        cache: DocumentCache,
        stemmer: Stemmer,
        interval: float = 1.0,
        watch: WatchMode = "notify",
        full_rescan_interval: float = FULL_RESCAN_EVERY,
        writer_lock: WriterLock | None = None,
        rebuild_request: RebuildRequest | None = None,
        read_only: bool = False,
    ) -> None:
        self.sandbox = sandbox
        self.db_path = db_path
        self.extractor = extractor
        self.cache = cache
        self.stemmer = stemmer
        self.interval = interval
        self.full_rescan_interval = full_rescan_interval
        self.watcher: FolderWatcher | None = None
        if watch != "rescan":
            self.watcher = FolderWatcher(
                sandbox.root,
                self._on_change,
                mode=watch,
                interval=interval,
                ignored=(db_path.parent,),
            )
        self.readers = ReaderPool(db_path)
        self.state = _State()
        self.changed = asyncio.Event()
        self.ready = asyncio.Event()
        self.scanned = asyncio.Event()
        self._executor = concurrent.futures.ThreadPoolExecutor(1, "tools-index")
        self._preparer = concurrent.futures.ThreadPoolExecutor(PREPARERS, "tools-index-prepare")
        self._writer: IndexWriter | None = None
        self._lock = writer_lock
        self._request = rebuild_request
        self._next_look = 0.0
        self._rebuild_asked = False
        self._read_only = read_only
        self._next_poll = 0.0
        self._seen_files: tuple[int, ...] = ()
        self._urgent: collections.deque[tuple[str, concurrent.futures.Future[FileReport]]] = (
            collections.deque()
        )
        self._stopping = threading.Event()
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.passes = 0
        self.scan_seconds = 0.0
        self.full_pass_seconds: float | None = None
        self.broken = False
        self._retry_at: dict[str, float] = {}
        self._next_retry = math.inf
        self._wake = asyncio.Event()
        self._pending: set[str] = set()
        self._full_asked = 0
        self._full_done = 0
        self._next_full = 0.0
        self.watch_first_from = WATCH_FIRST_FROM
        self.watch_first_wait_s = WATCH_FIRST_WAIT_S
        self.full_passes = 0
        self._commits = 0
        self.prepared_elsewhere = 0
        self.preparers_peak_rss_mb = 0.0

    # -- lifecycle (event loop side) -------------------------------------------------------

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        await self._run(self._open)
        if self.watcher is not None and len(self.state.known) >= self.watch_first_from:
            # The watch's first report asks for a walk; the first walk waits for it, so one
            # walk serves both (the restart of a large folder walks it once, not twice).
            self._next_full = time.monotonic() + self.watch_first_wait_s
        self._task = asyncio.create_task(self._follow(), name="tools-index-watcher")
        if self.watcher is not None:
            self.watcher.start()

    def stop(self) -> None:
        """Ask a running pass to stop after the current file, and the watcher to stop."""
        self._stopping.set()
        if self.watcher is not None:
            self.watcher.stop()

    async def close(self) -> None:
        self.stop()
        if self.watcher is not None:
            await self.watcher.close()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        # Readers first: the writer's connection is then the last one, and closing it folds
        # the write-ahead log back into the index and removes the side files.
        self.readers.close()
        await self._run(self._close_writer)
        self._executor.shutdown(wait=True)
        if self._lock is not None:
            self._lock.release()
        self._preparer.shutdown(wait=True, cancel_futures=True)

    async def _run(self, fn: object, *args: object) -> object:
        assert callable(fn)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, fn, *args)

    async def _follow(self) -> None:
        """Build, then bring the index in line with each reported change and each due rescan
        (the first is due at once), until closed."""
        while not self._stopping.is_set():
            full = await self._due()
            rebuild, self._rebuild_asked = self._rebuild_asked, False
            covers = self._full_asked
            scope, self._pending = self._pending, set()
            failed = False
            started = time.monotonic()
            try:
                if rebuild:
                    await self._run(self._rebuild_on_request)
                else:
                    await self._run(self._sync, None if full else scope)
            except Exception:  # a failed pass is retried by a rescan soon; the bot lives on
                log.exception("index update failed; will retry")
                failed = True
            if full:
                self.full_passes += 1
                if not failed:
                    self.full_pass_seconds = time.monotonic() - started
                self._full_done = covers
                self._next_full = time.monotonic() + self._rescan_gap()
            if failed:
                self._next_full = min(self._next_full, time.monotonic() + self.interval)
            self.passes += 1
            if self.state.ready:
                self.ready.set()
            self.changed.set()
            self.changed = asyncio.Event()

    async def _due(self) -> bool:
        """Wait until there is work: True for a full rescan, False for the reported paths."""
        while True:
            self._wake.clear()
            now = time.monotonic()
            if self._rebuild_requested(now):
                return True
            if self._full_asked > self._full_done or now >= self._next_full:
                return True
            if self._pending or now >= self._next_retry:
                return False
            if not self.writes and now >= self._next_poll:
                self._next_poll = now + self.interval
                return False
            if self.writes:
                poll = self._next_look if self._request is not None else math.inf
            else:
                poll = self._next_poll
            timeout = min(self._next_full, self._next_retry, poll) - now
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout)

    def _rebuild_requested(self, now: float) -> bool:
        """Whether a rebuild was asked from another process (looked for every `interval`, by
        the writer only); it is then the next pass."""
        if self._request is None or not self.writes or now < self._next_look:
            return False
        self._next_look = now + self.interval
        self._rebuild_asked = self._request.asked()
        return self._rebuild_asked

    def _rescan_gap(self) -> float:
        """Seconds to the next full rescan: the safety net while notifications work, else
        `interval` (less often for a huge folder, whose every scan is costly)."""
        if self.watcher is not None and not self.watcher.degraded:
            return self.full_rescan_interval
        return max(self.interval, 3 * self.scan_seconds)

    def _on_change(self, rels: set[str] | None) -> None:
        """The watcher's report: these paths changed (None: anything may have)."""
        if rels is None:
            self._ask_full()
        else:
            self._pending |= rels
            self._wake.set()

    def _ask_full(self) -> int:
        self._full_asked += 1
        self._wake.set()
        return self._full_asked

    async def wait_synced(self) -> None:
        """Rescan the folder and wait until the index has caught up with it, so every file
        changed before this call is reflected."""
        target = self._ask_full()
        while self._full_done < target:
            await self.changed.wait()

    def mark_broken(self) -> None:
        """A reader found the index unreadable: rebuild it on a pass that starts now."""
        self.broken = True
        if self._loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop has closed: nothing to rebuild
                self._loop.call_soon_threadsafe(self._ask_full)

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

    async def ask_rebuild(self, within_s: float) -> bool:
        """Ask the process that writes the index to rebuild it; whether it was done within
        `within_s` seconds. Raises `IndexInUseError` when no request can be left."""
        if self._request is None:
            raise IndexInUseError
        await asyncio.to_thread(self._request.ask)
        return await self._request.wait_done(within_s)

    def status(self) -> IndexStatus:
        running = self._task is not None and not self._task.done()
        return IndexStatus(
            documents=len(self.state.known),
            ready=self.state.ready,
            running=running,
            build_seconds=self.full_pass_seconds,
        )

    @property
    def writes(self) -> bool:
        """Whether this process writes the index (without a writer lock it always does; a
        read-only one never does)."""
        if self._read_only:
            return False
        return self._lock is None or self._lock.held

    def writer_elsewhere(self) -> bool:
        """Whether another process holds the writer lock now (a running bot)."""
        return self._lock is not None and not self._lock.held and self._lock.held_elsewhere()

    # -- the writer thread ------------------------------------------------------------------

    def _open(self) -> None:
        if self._read_only:
            self._follow_writer(None)
        elif self._lock is None or self._lock.try_take():
            self._open_writer()
        else:
            log.info("another process writes the search index; this one reads it")
            self._follow_writer(None)

    def _writes_now(self) -> bool:
        """Whether this process writes the index now, taking over from a writer that died."""
        if self.writes:
            return True
        if self._read_only or self._lock is None or not self._lock.try_take():
            return False
        log.info("the search index's writer has stopped; this process writes it now")
        self.broken = False
        self._open_writer()
        return True

    def _follow_writer(self, scope: set[str] | None) -> None:
        """A reading process's pass: the folder as a writer sees it, the index as the writer
        left it; ready once every visible file is in the index."""
        if scope is None or not self.state.visible:
            self._see(self._scan())
            if self._loop is not None and not self.scanned.is_set():
                self._loop.call_soon_threadsafe(self.scanned.set)
        elif scope:
            found, covers = self._look(scope)
            kept = {p: sig for p, sig in self.state.visible.items() if not covers(p)}
            self.state.visible = {**kept, **found}
        files = self._file_signature()
        if files == self._seen_files:
            return  # nothing committed since the last look
        try:
            with self.readers.connection() as conn:
                rows = conn.execute("SELECT path, size, mtime_ns FROM files").fetchall()
        except sqlite3.Error:
            return  # not made yet, or being rebuilt: the next look reads it
        self._seen_files = files
        self.readers.reload_terms()
        self.state.known = {sys.intern(path): (size, mtime) for path, size, mtime in rows}
        self.state.ready = all(path in self.state.known for path in self.state.visible)

    def version(self) -> int:
        """Commits of documents by this process's writer: what follows the index from the
        writing process (the vector build) looks again only when it has grown."""
        return self._commits

    def _committed(self) -> None:
        self._commits += 1
        self.readers.reload_terms()

    def _file_signature(self) -> tuple[int, ...]:
        """Changes whenever the writer commits: the index's and its log's size, time and inode
        (a rebuilt index is a new file)."""
        found: list[int] = []
        for suffix in ("", "-wal"):
            try:
                info = os.stat(f"{self.db_path}{suffix}")
            except OSError:
                found += [-1, -1, -1]
            else:
                found += [info.st_size, info.st_mtime_ns, info.st_ino]
        return tuple(found)

    def _open_writer(self) -> None:
        self.db_path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._writer = IndexWriter(self.db_path, on_commit=self._committed)
            self.state.known = self._writer.known()
            if not self.state.walked:  # searches answer from the stored index meanwhile
                self.state.visible = dict(self.state.known)
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
                self._writer.close()
            self._writer = None
        self.readers.close()
        remove_files(self.db_path)
        self._writer = IndexWriter(self.db_path, on_commit=self._committed)
        self.state.known = {}
        self.state.ready = False
        self.state.db_inode = self._inode()

    def _close_writer(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def _writer_or_reset(self) -> IndexWriter:
        gone = not (terms_folder(self.db_path) / "meta.json").exists()
        if self._writer is None or self.broken or gone or self._inode() != self.state.db_inode:
            log.warning("the search index file is missing or damaged; rebuilding it")
            self.broken = False
            self._reset()
        assert self._writer is not None
        return self._writer

    def _sync(self, scope: set[str] | None) -> None:
        """One pass over the whole folder (`scope` None) or over the paths in `scope`."""
        if not self._writes_now():
            self._follow_writer(scope)
            return
        try:
            self._sync_pass(scope)
        except sqlite3.DatabaseError as exc:
            if not is_damaged(exc):
                raise  # busy or full disk: the next pass tries again
            log.warning("the search index is damaged (%s); rebuilding it", exc)
            self._reset()
            self._sync_pass(None)

    def _scan(self) -> dict[str, Signature]:
        """The visible files and their signatures. A path is the one string the index's record
        holds (interned) and an unchanged file's signature the record's own: at a million
        files each copy of them held hundreds of MB."""
        started = time.monotonic()
        known = self.state.known
        found: dict[str, Signature] = {}
        for e in self.sandbox.walk():
            if e.is_dir:
                continue
            rel, signature = sys.intern(e.rel), (e.size, e.mtime_ns)
            held = known.get(rel)
            found[rel] = held if held == signature else signature
        self.scan_seconds = time.monotonic() - started
        return found

    def _see(self, visible: dict[str, Signature]) -> dict[str, Signature]:
        """Take a full scan's snapshot of the visible files. While nothing changed the old
        snapshot stays, the same object: what is cached on it (folded names, a scope's files,
        the change notices' last look) stays valid across rescans."""
        if visible != self.state.visible:
            self.state.visible = visible
        self.state.walked = True
        return self.state.visible

    def present(self, rels: Iterable[str]) -> list[str]:
        """`rels` that are in the folder: all of them once a walk has ended; before that (a
        restart serves from the stored index at once) those still there as regular files
        inside the sandbox, so a file deleted while the bot was down is never shown."""
        if self.state.walked:
            return list(rels)
        kept = []
        for rel in rels:
            try:
                if self.sandbox.resolve(rel).is_file():
                    kept.append(rel)
            except (SandboxError, OSError):
                continue
        return kept

    def _sync_pass(self, scope: set[str] | None = None) -> list[FileReport]:
        """Index what changed (within `scope`, or anywhere); returns a report per file indexed.

        A pass over the reported paths looks only at them (and below them, for folders);
        until a full pass has completed (at start, after a reset) every pass is a full one.
        """
        writer = self._writer_or_reset()
        started = time.monotonic()
        known = self.state.known
        if scope is None or not self.state.ready:
            visible = self._see(self._scan())
            if self._loop is not None and not self.scanned.is_set():
                self._loop.call_soon_threadsafe(self.scanned.set)  # names are searchable now
            stale = [p for p in known if p not in visible]
            reports = self._apply(writer, stale, visible)
            if not self._stopping.is_set():
                self.state.ready = True
        else:
            due = {p for p, at in self._retry_at.items() if at <= started}
            found, covers = self._look(scope | due)
            stale = [p for p in known if covers(p) and p not in found]
            kept = {p: sig for p, sig in self.state.visible.items() if not covers(p)}
            self.state.visible = {**kept, **found}  # replaced, never mutated
            reports = self._apply(writer, stale, found)
        # Failures from before this pass were tried again (or their file is gone).
        self._retry_at = {p: at for p, at in self._retry_at.items() if at > started}
        self._next_retry = min(self._retry_at.values(), default=math.inf)
        return reports

    def _look(self, rels: set[str]) -> tuple[dict[str, Signature], Callable[[str], bool]]:
        """The visible files at and below `rels` now, exactly as a full walk would find them,
        and a test for whether a path lies at or below one of `rels`."""
        tops = {r for r in rels if not any(a in rels for a in _ancestors(r))}
        listings: dict[str, dict[str, Entry] | None] = {}
        found: dict[str, Signature] = {}
        for rel in tops:
            parent = rel.rpartition("/")[0]
            if parent not in listings:
                listings[parent] = (
                    {e.rel: e for e in self.sandbox.scan(parent)}
                    if self._walked_into(parent)
                    else None
                )
            listing = listings[parent]
            entry = listing.get(rel) if listing is not None else None
            if entry is None:
                continue
            if not entry.is_dir:
                found[rel] = (entry.size, entry.mtime_ns)
            elif not os.path.islink(self.sandbox.root / rel):  # the walk does not enter links
                found.update(
                    (e.rel, (e.size, e.mtime_ns)) for e in self.sandbox.walk(rel) if not e.is_dir
                )
        prefixes = tuple(f"{r}/" for r in tops)
        return found, lambda path: path in tops or path.startswith(prefixes)

    def _walked_into(self, rel: str) -> bool:
        """Whether a full walk enters this folder: a visible folder reached without links."""
        if not rel:
            return True
        try:
            real = self.sandbox.resolve(rel)
        except SandboxError:
            return False
        return real == self.sandbox.root / rel and real.is_dir()

    def _apply(
        self, writer: IndexWriter, stale: list[str], candidates: dict[str, Signature]
    ) -> list[FileReport]:
        """Forget `stale`, then index the `candidates` the index does not have as they are."""
        known = self.state.known
        now = time.monotonic()
        todo = [
            p
            for p, sig in candidates.items()
            if known.get(p) != sig and self._retry_at.get(p, 0.0) <= now
        ]
        for path in stale:
            writer.delete(path)
            known.pop(path, None)
        writer.commit()
        reports: list[FileReport] = []
        last_commit = time.monotonic()
        few = len(todo) <= KEEP_UP_TO
        order = iter(sorted(todo, key=lambda p: (p.count("/"), p)))
        ahead: collections.deque[tuple[str, concurrent.futures.Future[Outcome]]] = (
            collections.deque()
        )
        pool = self._pool_for(len(todo))
        try:
            while True:
                while len(ahead) < AHEAD and (rel := next(order, None)) is not None:
                    ahead.append((rel, self._submit(pool, rel, candidates[rel], keep=few)))
                if not ahead or self._stopping.is_set():
                    break
                self._drain_urgent()
                rel, future = ahead.popleft()
                reports.append(self._store(writer, *self._outcome(rel, candidates[rel], future)))
                if time.monotonic() - last_commit > COMMIT_EVERY:
                    writer.commit()
                    last_commit = time.monotonic()
        finally:
            for _, future in ahead:
                future.cancel()
            if pool is not None:
                self._close_pool(pool)
        writer.commit()
        return reports

    def _pool_for(self, files: int) -> PreparePool | None:
        """Child processes to prepare a pass over `files` files, when it is worth starting
        them (None: the threads do it all)."""
        if files < PROCESSES_FROM:
            return None
        try:
            return PreparePool(self.sandbox, self.extractor, PROCESSES)
        except OSError as exc:  # no processes to spare: the threads prepare every file
            log.warning("no processes to prepare the index with (%s); using threads", exc)
            return None

    def _close_pool(self, pool: PreparePool) -> None:
        pool.close(wait=not self._stopping.is_set())
        self.prepared_elsewhere += pool.prepared
        self.preparers_peak_rss_mb = max(self.preparers_peak_rss_mb, pool.peak_rss_mb)

    def _submit(
        self, pool: PreparePool | None, rel: str, sig: Signature, *, keep: bool
    ) -> concurrent.futures.Future[Outcome]:
        """Start preparing one file: in a child process when there are some, else in a
        thread."""
        if pool is not None:
            return pool.submit(rel, sig)
        return self._preparer.submit(self._prepare, rel, sig, keep=keep)

    def _outcome(
        self, rel: str, sig: Signature, future: concurrent.futures.Future[Outcome]
    ) -> Outcome:
        """A prepared file; one the children did not prepare is prepared here."""
        try:
            return future.result()
        except NotPrepared:
            return self._prepare(rel, sig, keep=False)

    def _prepare(self, rel: str, sig: Signature, *, keep: bool = True) -> Outcome:
        """Extract, fold and compress one file in this process (any thread); whether it is
        worth a retry (see `prepare_file`)."""
        return prepare_file(
            rel,
            sig,
            locate=lambda: self.sandbox.resolve(rel),
            extractor=self.extractor,
            cache=self.cache,
            stemmer=self.stemmer,
            keep=keep,
        )

    def _store(self, writer: IndexWriter, doc: Prepared, retry: bool) -> FileReport:
        """Write one prepared file (the writer thread only)."""
        if retry:
            self._retry_at[doc.path] = time.monotonic() + RETRY_AFTER
        else:
            self._retry_at.pop(doc.path, None)
        writer.upsert(doc)
        self.state.known[doc.path] = (doc.size, doc.mtime_ns)
        return FileReport(doc.path, doc.chars, doc.error)

    def _index(self, writer: IndexWriter, rel: str, sig: Signature) -> FileReport:
        """Extract and store one file now, on the writer thread."""
        return self._store(writer, *self._prepare(rel, sig))

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
        if not self._writes_now():  # the writing process's watcher stores it
            try:
                info = self.sandbox.resolve(rel).stat()
            except (SandboxError, OSError):
                return FileReport(rel, 0, "the file is gone")
            doc, _ = self._prepare(rel, (info.st_size, info.st_mtime_ns))
            return FileReport(rel, doc.chars, doc.error)
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
        if not self._writes_now():
            raise IndexInUseError
        self._reset()
        self._retry_at.clear()
        reports = self._sync_pass()
        errors = [f"{r.path}: {r.error}" for r in reports if r.error]
        indexed = len(reports) - len(errors)
        return ReindexReport(indexed, len(errors), errors, time.monotonic() - started)

    def _rebuild_on_request(self) -> None:
        """The rebuild another process asked for; the request is settled even if it fails
        (the failure is logged, and the folder's next rescan tries again)."""
        assert self._request is not None
        try:
            report = self._rebuild()
        except BaseException:
            self._request.done()
            raise
        log.info(
            "search index rebuilt as asked from the command line: %d indexed, %d skipped "
            "in %.1f s",
            report.indexed,
            report.skipped,
            report.seconds,
        )
        self._request.done()


class IndexInUseError(RuntimeError):
    """A rebuild was asked of a process that does not write the index."""

    def __init__(self) -> None:
        super().__init__("another process writes the search index; it rebuilds on its own rescans")


def _ancestors(rel: str) -> list[str]:
    """`a/b/c` -> `a`, `a/b`."""
    parts = rel.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts))]
