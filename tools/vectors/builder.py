"""The vector index kept in step with the keyword index, in a thread of its own.

The keyword index is the source: its documents' stored text is cut into passages once the
keyword build is ready, and after that whenever a document there changes (every `interval`
seconds the builder asks whether the keyword index committed anything since its last look, and
only then compares every document's size and mtime: at a million documents that comparison
holds the interpreter for seconds, which searches would wait for). Passages already in the
cache are never sent again: each batch is kept in the cache the moment it comes back, so a
restart in the middle of a build embeds nothing twice, and a changed document costs only its
changed passages. Calls are batched, paced and retried by `PassageEmbedder`; a failure is kept
as `last_error`, logged once (again only when the reason changes), and the next look waits
longer each time it fails again (`Backoff`: 5 s doubling to 10 minutes), back to `interval` once
a look succeeds: a server set up wrongly costs a few requests an hour, not one every 2 s.

Only the process that writes the keyword index builds; others read what it wrote.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from tools.index.indexer import Indexer
from tools.index.store import load_text
from tools.vectors.backoff import Backoff
from tools.vectors.cache import EmbeddingCache, pack, unpack
from tools.vectors.embeddings import EmbeddingsConfig, EmbeddingsError, PassageEmbedder
from tools.vectors.passages import TARGET_CHARS, Passage, cut_passages
from tools.vectors.state import VectorStatus
from tools.vectors.store import FileChange, VectorStore

log = logging.getLogger(__name__)
FILES_PER_STEP = 32
"""Documents cut, embedded and stored together: what a build holds in memory at once."""
MAX_TEXT_BYTES = 16 * 1024 * 1024
_FAILED = "the vector build failed (see the log)"
Pause = Callable[[threading.Event, float], object]
"""Waits between looks: until the event is set or the seconds have passed."""


def _wait(wake: threading.Event, seconds: float) -> object:
    return wake.wait(seconds)


@dataclass(frozen=True)
class _Document:
    path: str
    rowid: int
    size: int
    mtime_ns: int
    chars: int


class VectorBuilder:
    """Builds and follows the vector index from the keyword index (one thread)."""

    def __init__(
        self,
        indexer: Indexer,
        store: VectorStore,
        cache: EmbeddingCache,
        config: EmbeddingsConfig,
        *,
        interval: float = 2.0,
        pause: Pause = _wait,
    ) -> None:
        """`pause` is how the thread waits between looks (a test stands in for the clock)."""
        self.indexer = indexer
        self.store = store
        self.cache = cache
        self.config = config
        self.interval = interval
        self._stopping = threading.Event()
        self._wake = threading.Event()
        self._embedder = PassageEmbedder(config, self._stopping)
        self._thread: threading.Thread | None = None
        self._finished = threading.Condition()
        self._asked = 0
        self._served = 0
        self._done = 0
        self._total = 0
        self._last_error: str | None = None
        self._pause = pause
        self._backoff = Backoff()
        self.passes = 0
        """Turns of the builder's loop (a look at the keyword index, or a wait for it)."""
        self.looks = 0
        """Looks that compared the keyword index's documents with the vectors held."""
        self._looked_at: int | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="tools-vectors", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        """Look at the keyword index now rather than at the next interval."""
        self._wake.set()

    def halt(self) -> None:
        """Ask the build (the thread's, or a `follow` called from elsewhere) to stop after the
        current call, without waiting for it."""
        self._stopping.set()
        self._wake.set()

    def stop(self) -> None:
        """Stop after the current call; waits for the thread."""
        self.halt()
        with self._finished:
            self._finished.notify_all()
        if self._thread is not None:
            self._thread.join()
        self._embedder.close()

    def caught_up(self) -> None:
        """Block until a look that began after this call has finished (or the builder
        stopped)."""
        with self._finished:
            self._asked += 1
            asked = self._asked
        self._wake.set()
        with self._finished:
            self._finished.wait_for(lambda: self._served >= asked or self._stopping.is_set())

    def status(self) -> VectorStatus:
        return VectorStatus(
            configured=True,
            passages_done=self._done,
            passages_total=max(self._total, self._done),
            calls=self._embedder.calls,
            last_error=self._last_error,
            looks=self.looks,
        )

    def _run(self) -> None:
        while not self._stopping.is_set():
            self._wake.clear()
            with self._finished:
                serving = self._asked
            wait = self.interval
            if self.indexer.state.ready and self.indexer.writes:
                wait = self._look()
            with self._finished:
                self.passes += 1
                self._served = serving
                self._finished.notify_all()
            self._pause(self._wake, wait)

    def _look(self) -> float:
        """One look; the seconds until the next, longer after each failure in a row. A
        failure is logged when its reason is new, not at every look."""
        before = self._last_error
        version = self.indexer.version()
        if version == self._looked_at:
            return self.interval  # nothing committed since the last look that succeeded
        try:
            self.follow()
            self.looks += 1
        except EmbeddingsError as exc:
            self._last_error = str(exc)
        except sqlite3.Error as exc:
            self._last_error = f"the index cannot be read: {exc}"
        except Exception:  # the thread must live on; the traceback goes to the log, once
            self._last_error = _FAILED
            if before != _FAILED:
                log.exception("vectors: the build failed; trying again less and less often")
        else:
            if before is not None:
                log.info("vectors: the build works again")
            self._backoff.reset()
            self._looked_at = version
            return self.interval
        wait = max(self._backoff.next(), self.interval)
        if self._last_error not in (before, _FAILED):
            log.warning(
                "vectors: %s; trying again in %.0f s, less and less often while it fails",
                self._last_error,
                wait,
            )
        return wait

    def follow(self, on_step: Callable[[VectorStatus], object] | None = None) -> None:
        """One look: vectors for new and changed documents, none for removed ones. `on_step`
        hears the progress after every few documents stored (the command line shows it)."""
        self.store.open_for(self.config.model, None)
        documents = self._documents()
        held = self.store.known()
        gone = [path for path in held if path not in documents]
        if gone:
            self.store.apply([FileChange(path) for path in gone])
        todo = [d for d in documents.values() if held.get(d.path) != (d.size, d.mtime_ns)]
        self._done = self.store.passages()
        self._total = self._done + sum(d.chars // TARGET_CHARS + 1 for d in todo)
        for start in range(0, len(todo), FILES_PER_STEP):
            if self._stopping.is_set():
                return
            self._step(todo[start : start + FILES_PER_STEP])
            if on_step is not None:
                on_step(self.status())
        self._done = self._total = self.store.passages()
        if todo or gone:
            log.info("vectors: %d passages of %d documents", self._done, len(documents))
        self._last_error = None

    def coverage(self) -> tuple[int, int]:
        """Documents of the keyword index whose vectors are up to date, and all of them, as
        the files on disk say (blocking; any process may ask, the writing one or not)."""
        documents = self._documents()
        held = self.store.known()
        done = sum(held.get(d.path) == (d.size, d.mtime_ns) for d in documents.values())
        return done, len(documents)

    def _documents(self) -> dict[str, _Document]:
        with self.indexer.readers.connection() as conn:
            rows = conn.execute(
                "SELECT id, path, size, mtime_ns, chars FROM files WHERE error IS NULL"
            ).fetchall()
        return {
            path: _Document(path, rowid, size, mtime, chars)
            for rowid, path, size, mtime, chars in rows
        }

    def _step(self, documents: list[_Document]) -> None:
        """Cut, embed what the cache lacks, store: a few documents at a time."""
        cut: list[tuple[_Document, list[Passage]]] = []
        with self.indexer.readers.connection() as conn:
            for document in documents:
                text = load_text(conn, document.rowid, MAX_TEXT_BYTES)
                cut.append((document, cut_passages(document.path, text)))
        digests = list(dict.fromkeys(p.digest for _, passages in cut for p in passages))
        vectors = self.cache.get_many(self.config.model, digests)
        texts = {p.digest: p.text for _, passages in cut for p in passages}
        missing = [d for d in digests if d not in vectors]
        for batch in _batches(missing, self.config.batch):
            fresh = dict(
                zip(batch, pack(self._embedder.embed([texts[d] for d in batch])), strict=True)
            )
            self.cache.put_many(self.config.model, fresh)
            vectors.update(fresh)
        changes = []
        for document, passages in cut:
            rows = unpack(vectors[p.digest] for p in passages) if passages else None
            changes.append(
                FileChange(
                    document.path,
                    document.size,
                    document.mtime_ns,
                    passages,
                    rows if rows is not None else np.empty((0, 0), dtype=np.int8),
                )
            )
        self.store.apply(changes)
        self._done += sum(len(passages) for _, passages in cut)
        self._total = max(self._total, self._done)


def _batches(items: list[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(items), max(1, size)):
        yield items[start : start + size]
