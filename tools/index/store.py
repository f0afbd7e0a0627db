"""The search index on disk: an SQLite file of documents beside a Tantivy index of their terms.

SQLite (`search-index.sqlite3`) records each indexed file's size, mtime and error, and its
text compressed, so snippets are cut without parsing a document again. The terms live in
`search-index.terms/` (`tools.index.term_index`). One writer lives on the indexer's single thread;
searches borrow reader connections from a small pool (WAL mode lets them read while the writer
writes; readers open the file read-only, so a reader never creates an empty index by accident)
and a searcher of the terms.

The terms commit first, then SQLite: what SQLite records as indexed never runs ahead of the
terms, so after a crash between the two commits a file is indexed again, never left unfindable.
When the two disagree on how many documents they hold, the index is rebuilt.
"""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
import sys
import threading
import zlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tools.sqlite import connect

if TYPE_CHECKING:  # the engine loads with the first index opened, not at start
    from tools.index.term_index import TermDoc, TermIndex, TermWriter

INDEX_FILE = "search-index.sqlite3"
"""The search index's file name in DATA_DIR (DATA_DIR's own layout names it from here)."""
INDEX_TERMS = "search-index.terms"
"""The folder beside it that holds the index's terms."""
SCHEMA_VERSION = "10"
WAL_LIMIT = 16 * 1024 * 1024
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS files(id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, "
    "size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, chars INTEGER NOT NULL, error TEXT, "
    "language TEXT)",
    "CREATE TABLE IF NOT EXISTS texts(id INTEGER PRIMARY KEY, body BLOB NOT NULL)",
)


@dataclass(frozen=True)
class Prepared:
    """One document ready to store: its name's terms joined by spaces, its text folded for the
    index to cut into words and compressed to keep, and the language most of it is written
    in."""

    path: str
    size: int
    mtime_ns: int
    chars: int
    error: str | None
    name_terms: str
    body_text: str
    language: str | None
    blob: bytes | None

    def terms(self) -> TermDoc:
        from tools.index.term_index import TermDoc  # noqa: PLC0415 - see the imports

        return TermDoc(self.path, self.mtime_ns, self.name_terms, self.body_text)


def terms_folder(path: Path) -> Path:
    """Where the terms of the index at `path` live (`INDEX_TERMS` beside `INDEX_FILE`)."""
    return path.with_suffix(".terms")


def compress(text: str) -> bytes | None:
    """The stored form of a document's text (None for no text)."""
    return zlib.compress(text.encode("utf-8", "replace"), 1) if text else None


def remove_files(path: Path) -> None:
    """Delete the index, its WAL side files and its terms (to rebuild from nothing)."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            Path(str(path) + suffix).unlink()
    shutil.rmtree(terms_folder(path), ignore_errors=True)


class IndexWriter:
    """The only connection that writes; used from one thread only. `on_commit` runs after each
    commit that changed the terms (so this process's searches see it at once)."""

    def __init__(self, path: Path, *, on_commit: Callable[[], None] | None = None) -> None:
        self.path = path
        self._on_commit = on_commit
        self.conn = connect(path, _SCHEMA, wal=True)
        # A build's large transactions grow the log; it is cut back after each checkpoint.
        self.conn.execute(f"PRAGMA journal_size_limit = {WAL_LIMIT}")
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        if row is None:
            self.conn.execute("INSERT INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
        elif row[0] != SCHEMA_VERSION:
            msg = f"index schema {row[0]} is not {SCHEMA_VERSION}"
            raise sqlite3.DatabaseError(msg)
        self._in_tx = False
        self.terms: TermWriter | None = None
        from tools.index.term_index import TermIndex  # noqa: PLC0415 - see the imports

        try:
            self.terms = TermIndex(terms_folder(path), create=True).writer()
            held = self.terms.terms.searcher().num_docs
        except ValueError as exc:  # Tantivy reports a damaged or locked folder so
            self.close()
            raise sqlite3.DatabaseError(f"the index's terms are unreadable: {exc}") from exc
        files = self.conn.execute("SELECT count(*) FROM files").fetchone()[0]
        if held != files:
            self.close()
            msg = f"the index holds terms of {held} documents and records {files}"
            raise sqlite3.DatabaseError(msg)

    def known(self) -> dict[str, tuple[int, int]]:
        """Every indexed path with the size and mtime it was indexed at."""
        rows = self.conn.execute("SELECT path, size, mtime_ns FROM files")
        # interned: the folder's walk and the vector index hold the same paths (see `_scan`)
        return {sys.intern(path): (size, mtime) for path, size, mtime in rows}

    def begin(self) -> None:
        if not self._in_tx:
            self.conn.execute("BEGIN IMMEDIATE")
            self._in_tx = True

    def commit(self) -> None:
        """Terms first, then the record of what they hold (see the module's docstring)."""
        changed = self.terms is not None and self.terms.dirty
        if self.terms is not None:
            self.terms.commit()
        if self._in_tx:
            self.conn.execute("COMMIT")
            self._in_tx = False
        if changed and self._on_commit is not None:
            self._on_commit()

    def upsert(self, doc: Prepared) -> None:
        """Store one document (replacing what was stored for the same path)."""
        self.begin()
        self.delete(doc.path)
        cur = self.conn.execute(
            "INSERT INTO files(path, size, mtime_ns, chars, error, language) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (doc.path, doc.size, doc.mtime_ns, doc.chars, doc.error, doc.language),
        )
        rowid = cur.lastrowid
        assert self.terms is not None
        self.terms.add(doc.terms())
        if doc.blob is not None:
            self.conn.execute("INSERT INTO texts(id, body) VALUES (?, ?)", (rowid, doc.blob))

    def delete(self, path: str) -> None:
        """Forget one path (no-op when it is not indexed)."""
        self.begin()
        row = self.conn.execute("SELECT id FROM files WHERE path = ?", (path,)).fetchone()
        if row is None:
            return
        assert self.terms is not None
        self.terms.delete(path)
        self.conn.execute("DELETE FROM texts WHERE id = ?", row)
        self.conn.execute("DELETE FROM files WHERE id = ?", row)

    def close(self) -> None:
        with contextlib.suppress(sqlite3.Error, ValueError):
            self.commit()
        terms, self.terms = self.terms, None
        if terms is not None:
            with contextlib.suppress(ValueError):
                terms.close()
        # At rest the file stands alone: a reader opening it while no writer runs (the admin's
        # command line) then makes no side files. Another process still reading it keeps the
        # log; this does not wait for it.
        with contextlib.suppress(sqlite3.Error):
            self.conn.execute("PRAGMA busy_timeout = 0")
            self.conn.execute("PRAGMA journal_mode = DELETE")
        self.conn.close()


class ReaderPool:
    """Read-only connections handed to one search at a time, in whatever thread it runs.

    `close()` retires every connection: idle ones at once, busy ones when handed back, so a
    rebuilt index file is never read through a connection to the old one.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._free: list[sqlite3.Connection] = []
        self._terms: TermIndex | None = None
        self._generation = 0
        self._lock = threading.Lock()

    def terms(self) -> TermIndex:
        """The terms, opened on first use and kept until `close()`.

        Raises:
            FileNotFoundError: no index has been written yet.
        """
        from tools.index.term_index import TermIndex  # noqa: PLC0415 - see the imports

        with self._lock:
            if self._terms is None:
                self._terms = TermIndex(terms_folder(self.path), create=False)
            return self._terms

    def reload_terms(self) -> None:
        """Let the next search see the last commit (after this process wrote one)."""
        with self._lock:
            terms = self._terms
        if terms is not None:
            terms.reload()

    @contextlib.contextmanager
    def connection(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            generation = self._generation
            conn = self._free.pop() if self._free else None
        if conn is None:
            conn = connect(self.path, access="read")
        try:
            yield conn
        finally:
            with self._lock:
                keep = generation == self._generation
                if keep:
                    self._free.append(conn)
            if not keep:
                conn.close()

    def close(self) -> None:
        with self._lock:
            idle, self._free = self._free, []
            self._terms = None
            self._generation += 1
        for conn in idle:
            with contextlib.suppress(sqlite3.Error):
                conn.close()


STORED_TEXT_BYTES = 64 * 1024 * 1024
LINES_PIECE = 16 * 1024
"""Bytes inflated at a time while looking for a line."""


def load_text(conn: sqlite3.Connection, rowid: int, max_bytes: int = 4 * 1024 * 1024) -> str:
    """The start of one document's stored text ("" when it had none).

    Only the first `max_bytes` are inflated: snippets come from the start of a long document,
    and a search must not inflate tens of megabytes per result.
    """
    row = conn.execute("SELECT body FROM texts WHERE id = ?", (rowid,)).fetchone()
    if not row:
        return ""
    data = zlib.decompressobj().decompress(row[0], max_bytes)
    return data.decode("utf-8", "ignore" if len(data) == max_bytes else "replace")


def first_lines(
    conn: sqlite3.Connection, last_by_path: Mapping[str, int], max_bytes: int = 4 * 1024 * 1024
) -> dict[str, list[str]]:
    """The first lines of several documents' stored texts, by path: each path's first `last`
    lines (fewer when it has fewer; a path with no stored text is left out).

    One query reads them all. Each text is inflated a piece at a time and stopped at the last
    line wanted: a passage near the start of a long document costs its start, not the whole
    text.
    """
    if not last_by_path:
        return {}
    marks = ",".join("?" * len(last_by_path))
    rows = conn.execute(
        "SELECT files.path, texts.body FROM files JOIN texts ON texts.id = files.id "
        f"WHERE files.path IN ({marks})",
        list(last_by_path),
    ).fetchall()
    return {path: _lines(body, last_by_path[path], max_bytes) for path, body in rows}


def _lines(body: bytes, last: int, max_bytes: int) -> list[str]:
    inflate = zlib.decompressobj()
    pending, data, lines = body, bytearray(), 0
    while lines < last and len(data) < max_bytes:
        piece = inflate.decompress(pending, min(LINES_PIECE, max_bytes - len(data)))
        if not piece:
            break
        pending = inflate.unconsumed_tail
        lines += piece.count(b"\n")
        data += piece
    text = bytes(data).decode("utf-8", "ignore")
    return text.split("\n", last)[:last]


def stored_text(conn: sqlite3.Connection, path: str, size: int, mtime_ns: int) -> str | None:
    """The text the index stored for this version of a file, or None when it holds none (a
    scan whose text was evicted from the extraction cache is read back from here)."""
    row = conn.execute(
        "SELECT id FROM files WHERE path = ? AND size = ? AND mtime_ns = ? AND error IS NULL",
        (path, size, mtime_ns),
    ).fetchone()
    if not row:
        return None
    return load_text(conn, int(row[0]), STORED_TEXT_BYTES) or None
