"""The vector index on disk: every passage's vector in one memory-mapped matrix, searched exactly.

`DATA_DIR/vectors.index/` holds `matrix.i8`, one row of signed bytes per passage (a 512-dimension
vector is 512 bytes), and `passages.sqlite3`, which says whose each row is (file, lines, place).
Up to `EXACT_ROWS` rows (`EXACT_SCOPED_ROWS` within a scope, whose rows are copied first) an
exact scan is fast enough: at 100,000 passages it takes about 10 ms (USearch's SIMD int8 kernel
over the mapped file), finds exactly the nearest rows, costs no build and no memory beyond the
pages the OS maps. Beyond that the in-memory sign-bit codes (`codes`) pick `CANDIDATES` rows and
only those are scored exactly: nothing more on disk, no build (see bench/bench_vectors.py).

The scope is applied before either scan: only the rows of allowed files are scored or, for the
codes, can become candidates, so a passage outside it can never take a place in the results.
Rows of a changed or removed file are forgotten in SQLite and left in the matrix until dead rows
outnumber live ones; then the matrix is written anew. Rows are appended before SQLite commits,
so a crash leaves at most unowned rows, never a passage without its vector. One thread writes;
searches read from any thread.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import sys
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tools.extract.places import Place, parse_place
from tools.sqlite import connect
from tools.vectors.codes import SignCodes, nearest_codes
from tools.vectors.passages import CUT_VERSION, Passage

MATRIX = "matrix.i8"
ROWS = "passages.sqlite3"
PER_FILE = 4
"""Passages scanned for each file asked for, so a file's several near passages leave room for
other files."""
THREADS = 2
"""Threads one scan runs on: the scan is a bound search's whole cost, and searches are few."""
EXACT_ROWS = 100_000
"""Rows scanned exactly in place (about 10 ms); more go through the codes first."""
EXACT_SCOPED_ROWS = 40_000
"""Rows of a scope scanned exactly (copied, then scanned: about 10 ms); more go through the
codes first."""
SCOPES = 8
"""Scopes whose rows are kept (a boolean per row each): finding a large scope's rows costs
more than scanning the codes."""
CANDIDATES = 4_800
"""Rows the codes hand to the exact scan (bench/bench_vectors.py measures how many of the exact
scan's ten nearest files they keep)."""
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS files(id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, "
    "size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS passages(row INTEGER PRIMARY KEY, file INTEGER NOT NULL, "
    "first INTEGER NOT NULL, last INTEGER NOT NULL, place TEXT)",
    "CREATE INDEX IF NOT EXISTS passages_file ON passages(file)",
)


@dataclass(frozen=True, slots=True)
class VectorHit:
    """A file's best passage for a query: its lines, its place and its cosine similarity to
    the query (as near as int8 vectors tell)."""

    path: str
    first: int
    last: int
    place: Place | None
    similarity: float


@dataclass(frozen=True)
class FileChange:
    """One file's new passages and their vectors (int8 rows), or its removal (`passages`
    None)."""

    path: str
    size: int = 0
    mtime_ns: int = 0
    passages: Sequence[Passage] | None = None
    vectors: np.ndarray | None = None


@dataclass(frozen=True)
class _Snapshot:
    generation: str
    matrix: np.ndarray
    owners: np.ndarray
    paths: dict[int, str]
    ids: dict[str, int]
    live: np.ndarray
    """The rows some file owns (rows of removed passages wait for compaction)."""
    codes: np.ndarray
    """The sign-bit code of every row of `matrix`."""


class VectorStore:
    """The matrix and its rows' owners in one folder."""

    def __init__(
        self,
        folder: Path,
        *,
        exact_rows: int = EXACT_ROWS,
        exact_scoped_rows: int = EXACT_SCOPED_ROWS,
        candidates: int = CANDIDATES,
    ) -> None:
        self.folder = folder
        self.exact_rows = exact_rows
        self.exact_scoped_rows = exact_scoped_rows
        self.candidates = candidates
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._snapshot: _Snapshot | None = None
        self._codes = SignCodes()
        self._scopes_lock = threading.Lock()
        self._scopes_of: _Snapshot | None = None
        self._scopes: OrderedDict[frozenset[str], tuple[np.ndarray, int]] = OrderedDict()

    # -- shared -----------------------------------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            self._conn = connect(self.folder / ROWS, _SCHEMA, wal=True)
        return self._conn

    def _meta(self, conn: sqlite3.Connection, key: str) -> str | None:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def _rows_on_disk(self, dim: int) -> int:
        try:
            return (self.folder / MATRIX).stat().st_size // dim
        except FileNotFoundError:
            return 0

    # -- writing (the builder's thread) ----------------------------------------------------

    def open_for(self, model: str, dim: int | None) -> None:
        """Start over when the index was built with another model or dimension, or its
        passages were cut another way (`CUT_VERSION`: the embeddings cache still holds the
        vectors of passages whose text is the same, so only the places are paid for again)."""
        with self._lock:
            conn = self._connection()
            held = (self._meta(conn, "model"), self._meta(conn, "dim"))
            cut = self._meta(conn, "cut")
            same_model = held[0] == model and (dim is None or held[1] in (None, str(dim)))
            if same_model and cut == CUT_VERSION:
                return
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("DELETE FROM passages")
            conn.execute("DELETE FROM files")
            conn.execute("DELETE FROM meta")
            conn.execute("INSERT INTO meta VALUES ('model', ?)", (model,))
            conn.execute("INSERT INTO meta VALUES ('cut', ?)", (CUT_VERSION,))
            if dim is not None:
                conn.execute("INSERT INTO meta VALUES ('dim', ?)", (str(dim),))
            (self.folder / MATRIX).unlink(missing_ok=True)
            self._bump(conn)
            conn.execute("COMMIT")

    def known(self) -> dict[str, tuple[int, int]]:
        """Each file with vectors, and the size and mtime they were cut from."""
        with self._lock:
            rows = self._connection().execute("SELECT path, size, mtime_ns FROM files")
            return {path: (size, mtime) for path, size, mtime in rows}

    def passages(self) -> int:
        """Passages with vectors."""
        with self._lock:
            row = self._connection().execute("SELECT count(*) FROM passages").fetchone()
        return int(row[0])

    def apply(self, changes: Sequence[FileChange]) -> None:
        """Replace or remove these files' passages in one transaction."""
        with self._lock:
            conn = self._connection()
            dim = self._dim(conn, changes)
            rows = self._rows_on_disk(dim) if dim else 0
            appended = [c.vectors for c in changes if c.vectors is not None and len(c.vectors)]
            if appended:
                with (self.folder / MATRIX).open("r+b" if rows else "wb") as out:
                    out.seek(rows * dim)
                    for block in appended:
                        out.write(np.ascontiguousarray(block, dtype=np.int8).tobytes())
                    out.flush()
                    os.fsync(out.fileno())
            conn.execute("BEGIN IMMEDIATE")
            for change in changes:
                row = conn.execute("SELECT id FROM files WHERE path = ?", (change.path,))
                found = row.fetchone()
                if found is not None:
                    conn.execute("DELETE FROM passages WHERE file = ?", found)
                    conn.execute("DELETE FROM files WHERE id = ?", found)
                if change.passages is None:
                    continue
                file_id = conn.execute(
                    "INSERT INTO files(path, size, mtime_ns) VALUES (?, ?, ?)",
                    (change.path, change.size, change.mtime_ns),
                ).lastrowid
                conn.executemany(
                    "INSERT INTO passages VALUES (?, ?, ?, ?, ?)",
                    [
                        (rows + i, file_id, p.first, p.last, p.place.text if p.place else None)
                        for i, p in enumerate(change.passages)
                    ],
                )
                rows += len(change.passages)
            self._bump(conn)
            conn.execute("COMMIT")
            if dim:
                self._compact(conn, dim)

    def _dim(self, conn: sqlite3.Connection, changes: Sequence[FileChange]) -> int:
        held = self._meta(conn, "dim")
        if held is not None:
            return int(held)
        for change in changes:
            if change.vectors is not None and len(change.vectors):
                dim = int(change.vectors.shape[1])
                conn.execute("INSERT OR REPLACE INTO meta VALUES ('dim', ?)", (str(dim),))
                return dim
        return 0

    @staticmethod
    def _bump(conn: sqlite3.Connection) -> None:
        conn.execute(
            "INSERT INTO meta VALUES ('generation', '1') ON CONFLICT(key) DO UPDATE "
            "SET value = CAST(value AS INTEGER) + 1"
        )

    def _compact(self, conn: sqlite3.Connection, dim: int) -> None:
        """Write the matrix anew once dead rows outnumber live ones (and are many)."""
        total = self._rows_on_disk(dim)
        live = int(conn.execute("SELECT count(*) FROM passages").fetchone()[0])
        if total - live <= max(live, 1_000):
            return
        self._snapshot = None
        source = np.memmap(self.folder / MATRIX, dtype=np.int8, mode="r", shape=(total, dim))
        order = [int(r) for (r,) in conn.execute("SELECT row FROM passages ORDER BY row")]
        fresh = self.folder / (MATRIX + ".new")
        with fresh.open("wb") as out:
            for start in range(0, len(order), 4096):
                out.write(source[order[start : start + 4096]].tobytes())
            out.flush()
            os.fsync(out.fileno())
        del source
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("CREATE TEMP TABLE moved(old INTEGER PRIMARY KEY, new INTEGER)")
        conn.executemany("INSERT INTO moved VALUES (?, ?)", [(o, n) for n, o in enumerate(order)])
        conn.execute("UPDATE passages SET row = -1 - (SELECT new FROM moved WHERE old = row)")
        conn.execute("UPDATE passages SET row = -1 - row")
        conn.execute("DROP TABLE moved")
        os.replace(fresh, self.folder / MATRIX)
        self._bump(conn)
        conn.execute("COMMIT")

    # -- searching (any thread) ------------------------------------------------------------

    def _current(self) -> _Snapshot | None:
        with self._lock:
            conn = self._connection()
            generation = self._meta(conn, "generation") or "0"
            dim = int(self._meta(conn, "dim") or 0)
            snapshot = self._snapshot
            if snapshot is not None and snapshot.generation == generation:
                return snapshot
            if not dim or not self._rows_on_disk(dim):
                return None
            rows = self._rows_on_disk(dim)
            owners = np.full(rows, -1, dtype=np.int32)
            found = conn.execute("SELECT row, file FROM passages WHERE row < ?", (rows,))
            pairs = np.array(found.fetchall(), dtype=np.int64).reshape(-1, 2)
            owners[pairs[:, 0]] = pairs[:, 1]
            # interned: the keyword index holds the same paths (one string each, not three)
            paths = {i: sys.intern(p) for i, p in conn.execute("SELECT id, path FROM files")}
            held = (self.folder / MATRIX).stat()
            matrix = np.memmap(self.folder / MATRIX, dtype=np.int8, mode="r", shape=(rows, dim))
            snapshot = _Snapshot(
                generation,
                matrix,
                owners,
                paths,
                {p: i for i, p in paths.items()},
                np.flatnonzero(owners >= 0),
                self._codes.follow(matrix, (held.st_dev, held.st_ino))
                if rows > self.exact_scoped_rows
                else np.empty((0, 0), dtype=np.uint64),
            )
            self._snapshot = snapshot
            return snapshot

    def search(
        self, vector: np.ndarray, limit: int, *, allowed: frozenset[str] | None = None
    ) -> list[VectorHit]:
        """The `limit` files nearest to `vector` (unit length), each with its best passage;
        with `allowed`, only rows of those files are scored."""
        from usearch.compiled import MetricKind  # noqa: PLC0415 - loaded at first search
        from usearch.index import search  # noqa: PLC0415

        snapshot = self._current()
        if snapshot is None or limit <= 0:
            return []
        inside, total = self._inside(snapshot, allowed)
        if not total:
            return []
        query = np.clip(np.rint(vector * 127.0), -127, 127).astype(np.int8)
        threads = THREADS
        if inside is None and total <= max(self.exact_rows, self.exact_scoped_rows):
            rows = None
        elif inside is not None and total <= self.exact_scoped_rows:
            rows = np.flatnonzero(inside)
        else:
            rows = nearest_codes(snapshot.codes, query, self.candidates, inside, THREADS)
            threads = 1  # a few thousand rows: starting a second thread costs more than it saves
        matrix = np.asarray(snapshot.matrix)  # a plain view: gathering rows skips memmap's wrapper
        candidates = matrix if rows is None else np.take(matrix, rows, axis=0)
        count = min(len(candidates), limit * PER_FILE)
        found = search(candidates, query, count, MetricKind.IP, exact=True, threads=threads)
        best: dict[int, tuple[int, float]] = {}
        keys = np.asarray(found.keys).reshape(-1)[:count]
        distances = np.asarray(found.distances).reshape(-1)[:count]
        for key, distance in zip(keys, distances, strict=True):
            row = int(key) if rows is None else int(rows[int(key)])
            # USearch's inner-product distance is 1 - the dot product of the int8 rows.
            best.setdefault(int(snapshot.owners[row]), (row, (1.0 - float(distance)) / 127**2))
            if len(best) >= limit:
                break
        return self._hits(snapshot, best)

    def _inside(
        self, snapshot: _Snapshot, allowed: frozenset[str] | None
    ) -> tuple[np.ndarray | None, int]:
        """Which rows may be scored (None: all of them) and how many. The rows of the last
        `SCOPES` scopes asked for are kept until the index changes."""
        if allowed is None:
            if len(snapshot.live) == len(snapshot.owners):
                return None, len(snapshot.owners)
            return snapshot.owners >= 0, len(snapshot.live)
        with self._scopes_lock:
            if self._scopes_of is not snapshot:
                self._scopes_of, self._scopes = snapshot, OrderedDict()
            elif (kept := self._scopes.get(allowed)) is not None:
                self._scopes.move_to_end(allowed)
                return kept
        ids = np.fromiter((snapshot.ids.get(p, -1) for p in allowed), np.int64, len(allowed))
        top = max(max(snapshot.paths, default=0), int(snapshot.owners.max(initial=-1)))
        wanted = np.zeros(top + 2, dtype=bool)
        wanted[ids + 1] = True
        wanted[0] = False
        inside = wanted[snapshot.owners + 1]
        total = int(np.count_nonzero(inside))
        with self._scopes_lock:
            if self._scopes_of is snapshot:
                self._scopes[allowed] = (inside, total)
                while len(self._scopes) > SCOPES:
                    self._scopes.popitem(last=False)
        return inside, total

    def _hits(self, snapshot: _Snapshot, best: dict[int, tuple[int, float]]) -> list[VectorHit]:
        with self._lock:
            conn = self._connection()
            hits = []
            for file_id, (row, similarity) in best.items():
                found = conn.execute(
                    "SELECT first, last, place FROM passages WHERE row = ?", (row,)
                ).fetchone()
                if found is None:
                    continue  # rewritten since the snapshot: the next search sees it
                place = parse_place(found[2]) if found[2] else None
                path = snapshot.paths[file_id]
                hits.append(VectorHit(path, found[0], found[1], place, similarity))
        return hits

    def close(self) -> None:
        with self._lock:
            conn, self._conn = self._conn, None
            self._snapshot = None
        if conn is not None:
            with contextlib.suppress(sqlite3.Error):
                conn.close()
