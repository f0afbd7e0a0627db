"""The embeddings already paid for: (model, passage digest) → vector, so only new text is sent.

The builder asks the cache before the server and stores each batch the moment it comes back,
so a restart, a rebuilt index or a second copy of a document costs no call for text embedded
once. `EmbeddingCache` is the seam: SQLite in DATA_DIR here, a shared database elsewhere (so
several machines pay for each text once). It is called from the builder's thread, so an
implementation is blocking.

Vectors are kept as they are searched: length 1, each component times 127 rounded to a signed
byte (`pack`/`unpack`); a 512-dimension vector is 512 bytes.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from tools.sqlite import connect

SCALE = 127.0
_LOOKUP = 500
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS embeddings(model TEXT NOT NULL, digest BLOB NOT NULL, "
    "vector BLOB NOT NULL, PRIMARY KEY(model, digest)) WITHOUT ROWID",
)


class EmbeddingCache(Protocol):
    """Where embeddings are kept between builds (blocking; called from one thread)."""

    def get_many(self, model: str, digests: Sequence[str]) -> dict[str, bytes]:
        """The packed vectors held for these digests under `model` (missing ones left out)."""
        ...

    def put_many(self, model: str, items: Mapping[str, bytes]) -> None:
        """Keep these packed vectors (digest → `pack(vector)`) under `model`."""
        ...


def pack(vectors: np.ndarray) -> list[bytes]:
    """Rows of unit-length float vectors as stored: signed bytes, ×127."""
    return [row.tobytes() for row in quantise(vectors)]


def quantise(vectors: np.ndarray) -> np.ndarray:
    """Unit-length float vectors as the index holds them (int8, ×127)."""
    return np.clip(np.rint(vectors * SCALE), -127, 127).astype(np.int8)


def unpack(blobs: Iterable[bytes]) -> np.ndarray:
    """Stored vectors back as an int8 matrix, one row each."""
    return np.stack([np.frombuffer(blob, dtype=np.int8) for blob in blobs])


class SqliteEmbeddingCache:
    """The cache in one SQLite file (DATA_DIR/`CACHE_FILE`), for one machine."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            self._conn = connect(self.path, _SCHEMA, wal=True)
        return self._conn

    def get_many(self, model: str, digests: Sequence[str]) -> dict[str, bytes]:
        found: dict[str, bytes] = {}
        with self._lock:
            conn = self._connection()
            for start in range(0, len(digests), _LOOKUP):
                part = list(digests[start : start + _LOOKUP])
                marks = ",".join("?" * len(part))
                rows = conn.execute(
                    "SELECT digest, vector FROM embeddings "
                    f"WHERE model = ? AND digest IN ({marks})",
                    [model, *(bytes.fromhex(d) for d in part)],
                )
                found.update((bytes(digest).hex(), bytes(vector)) for digest, vector in rows)
        return found

    def put_many(self, model: str, items: Mapping[str, bytes]) -> None:
        with self._lock:
            conn = self._connection()
            conn.execute("BEGIN")
            conn.executemany(
                "INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?)",
                [(model, bytes.fromhex(digest), vector) for digest, vector in items.items()],
            )
            conn.execute("COMMIT")

    def count(self, model: str) -> int:
        """How many vectors are kept for `model`."""
        with self._lock:
            row = (
                self._connection()
                .execute("SELECT count(*) FROM embeddings WHERE model = ?", (model,))
                .fetchone()
            )
        return int(row[0])

    def close(self) -> None:
        with self._lock:
            conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(sqlite3.Error):
                conn.close()
