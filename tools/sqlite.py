"""Opening an SQLite file, the one way every store, index and copy in the code base does it.

`connect` is the only caller of `sqlite3.connect`: it waits `BUSY_WAIT_S` for another process
holding the file, leaves transactions to the caller (each statement commits on its own; work
that needs several begins one, `transaction`), may be used from any thread (its user keeps it to
one at a time), and opens the file as asked: to write (created with its folder), to read only
(never creating an empty file by accident) or as an immutable snapshot (nothing written beside
it, whatever its journal mode). Then it checks the file when asked (`quick_check`), switches it
to write-ahead logging for a file several processes write at once, and creates its tables.

Recovery is shared too: `is_damaged` tells a broken file from a busy one, `move_aside` puts a
damaged file and its side files out of the way (`<name>.corrupt-<time>`) so a fresh one can
start; two processes setting up a new file at once may meet "database is locked" before the
busy wait applies, and the set-up is tried again for as long as that wait would have lasted.
"""

from __future__ import annotations

import random
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

BUSY_WAIT_S = 10.0
"""How long a statement waits for another process holding the file."""

SIDE_FILE_SUFFIXES = ("-wal", "-shm", "-journal")
"""SQLite's own files beside a database."""

Access = Literal["write", "read", "snapshot"]
"""How a file is opened: to write (created if missing), to read only, or as an immutable
snapshot (read as it is on disk, nothing written beside it)."""


def connect(
    path: Path,
    schema: str | Sequence[str] = (),
    *,
    wal: bool = False,
    access: Access = "write",
    check: bool = False,
    version: int | None = None,
    foreign_keys: bool = False,
    busy_wait_s: float = BUSY_WAIT_S,
) -> sqlite3.Connection:
    """The open database at `path`, set up; closed again if its set-up fails.

    `schema` is a script or a list of statements that may run again (`CREATE TABLE IF NOT
    EXISTS`); with `version` it runs only on a new file (`user_version` 0), which is then
    stamped with `version`, and an existing file is left as it is (its upgrades are DATA_DIR's
    steps). `check` runs SQLite's quick check first and raises `sqlite3.DatabaseError` unless
    the file is sound. `foreign_keys` makes SQLite enforce the schema's `REFERENCES`.
    """
    if access == "write":
        path.parent.mkdir(parents=True, exist_ok=True)
        target, uri = str(path), False
    else:
        mode = "mode=ro" if access == "read" else "immutable=1"
        target, uri = f"{path.absolute().as_uri()}?{mode}", True
    db = sqlite3.connect(
        target, timeout=busy_wait_s, isolation_level=None, check_same_thread=False, uri=uri
    )
    try:
        if access != "write":
            db.execute("PRAGMA query_only = 1")
        if foreign_keys:
            db.execute("PRAGMA foreign_keys=ON")
        if check:
            verdict = quick_check(db)
            if verdict != "ok":
                msg = f"integrity check failed: {verdict}"
                raise sqlite3.DatabaseError(msg)
        _retry_locked(lambda: _set_up(db, schema, wal=wal, version=version), busy_wait_s)
    except BaseException:
        db.close()
        raise
    return db


def quick_check(db: sqlite3.Connection) -> str:
    """SQLite's quick check of the open database: "ok" when sound, else what it found."""
    return str(db.execute("PRAGMA quick_check").fetchone()[0])


def is_damaged(exc: sqlite3.Error) -> bool:
    """Whether an error means the file itself is broken (as opposed to busy or closed)."""
    return getattr(exc, "sqlite_errorcode", None) in (
        sqlite3.SQLITE_CORRUPT,
        sqlite3.SQLITE_NOTADB,
    )


def move_aside(path: Path, now: float) -> Path:
    """Put the damaged database at `path` out of the way, as `<name>.corrupt-<now>`, and drop
    its side files (they belong to the damaged file, not to the fresh one); where it went."""
    aside = path.with_name(f"{path.name}.corrupt-{int(now)}")
    path.replace(aside)
    for suffix in SIDE_FILE_SUFFIXES:
        path.with_name(path.name + suffix).unlink(missing_ok=True)
    return aside


@contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One immediate transaction: committed when the block ends, rolled back if it raises."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _set_up(
    db: sqlite3.Connection, schema: str | Sequence[str], *, wal: bool, version: int | None
) -> None:
    """The journal mode and the schema."""
    if wal:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
    if version is not None and db.execute("PRAGMA user_version").fetchone()[0] != 0:
        return  # an existing file keeps its schema
    if isinstance(schema, str):
        db.executescript(schema)
    else:
        for statement in schema:
            db.execute(statement)
    if version is not None:
        db.execute(f"PRAGMA user_version = {int(version)}")


def _retry_locked(work: Callable[[], None], busy_wait_s: float) -> None:
    """`work`, tried again while the file is locked. Switching to WAL takes the file for itself,
    so two processes opening a new file at once can meet "database is locked" without SQLite's
    busy wait; this waits as the busy wait would have. The pauses are drawn at random: two
    openers that failed together and paused alike would wake together and fail again, round
    after round, until both gave up."""
    deadline = time.monotonic() + busy_wait_s
    pause = 0.01
    while True:
        try:
            work()
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() >= deadline:
                raise
            time.sleep(random.uniform(0.0, pause))  # another opener holds the file
            pause = min(pause * 2, 0.2)
        else:
            return
