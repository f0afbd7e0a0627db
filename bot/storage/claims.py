"""Exactly-once webhook updates: each `update_id` is claimed in the database before any work.

Telegram resends an update that was not answered in time, and a balancer may retry it on
another worker. The first worker to claim an update handles it; a duplicate finds the claim
and is dropped. A claim is a lease: a worker that dies mid-question stops renewing it, and once
it expires the resent update may be claimed by another worker. A finished update is never
claimed again. Expiry is judged by one clock: the database's on PostgreSQL, this machine's on
SQLite (whose file only this machine's workers share).
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from bot.storage.postgres import PostgresDatabase


class UpdateClaims(Protocol):
    """Who handles which webhook update, shared by every worker."""

    async def claim(self, update_id: int, *, owner: str, lease_s: float) -> bool:
        """True when this owner may handle the update now: it was never claimed, or its
        previous claim expired without being finished. A finished update is never claimed
        again."""
        ...

    async def renew(self, update_id: int, *, owner: str, lease_s: float) -> None:
        """Extend the owner's unfinished claim by `lease_s` from now (no-op if it lost it)."""
        ...

    async def finish(self, update_id: int) -> None:
        """Mark the update handled: it is never claimed again."""
        ...

    async def forget_older(self, age_s: float) -> int:
        """Drop claims finished (or expired unfinished) more than `age_s` ago; how many."""
        ...

    async def close(self) -> None:
        """Release what the claims hold open."""
        ...


class PostgresUpdateClaims:
    """Claims in the `update_claims` table; one statement each, atomic under any race."""

    def __init__(self, database: PostgresDatabase) -> None:
        self._pool = database.pool

    async def claim(self, update_id: int, *, owner: str, lease_s: float) -> bool:
        row = await self._pool.fetchval(
            """
            INSERT INTO update_claims (update_id, owner, expires_at)
            VALUES ($1, $2, clock_timestamp() + make_interval(secs => $3))
            ON CONFLICT (update_id) DO UPDATE
                SET owner = excluded.owner, expires_at = excluded.expires_at
                WHERE update_claims.finished_at IS NULL
                  AND update_claims.expires_at <= clock_timestamp()
            RETURNING 1
            """,
            update_id,
            owner,
            lease_s,
        )
        return row is not None

    async def renew(self, update_id: int, *, owner: str, lease_s: float) -> None:
        await self._pool.execute(
            "UPDATE update_claims SET expires_at = clock_timestamp() + make_interval(secs => $3) "
            "WHERE update_id = $1 AND owner = $2 AND finished_at IS NULL",
            update_id,
            owner,
            lease_s,
        )

    async def finish(self, update_id: int) -> None:
        await self._pool.execute(
            """
            INSERT INTO update_claims (update_id, owner, expires_at, finished_at)
            VALUES ($1, '', clock_timestamp(), clock_timestamp())
            ON CONFLICT (update_id) DO UPDATE SET finished_at = excluded.finished_at
                WHERE update_claims.finished_at IS NULL
            """,
            update_id,
        )

    async def forget_older(self, age_s: float) -> int:
        status = await self._pool.execute(
            """
            DELETE FROM update_claims
            WHERE coalesce(finished_at, expires_at)
                < clock_timestamp() - make_interval(secs => $1)
            """,
            age_s,
        )
        return int(status.rsplit(" ", 1)[-1])

    async def close(self) -> None:
        """Nothing of its own: the database's pool is closed by whoever opened it."""


_SQLITE_SCHEMA = """
CREATE TABLE IF NOT EXISTS update_claims (
    update_id INTEGER PRIMARY KEY,
    owner TEXT NOT NULL,
    expires_at REAL NOT NULL,
    finished_at REAL
);
CREATE INDEX IF NOT EXISTS update_claims_finished ON update_claims (finished_at);
"""


class SqliteUpdateClaims:
    """Claims in a small SQLite file in DATA_DIR; each statement is atomic across processes
    on this machine (the file is locked while it is written)."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self._db = connection
        self._turn = asyncio.Lock()

    @classmethod
    async def open(cls, path: Path) -> SqliteUpdateClaims:
        """Open (or create) the claims file at `path`."""
        return cls(await asyncio.to_thread(_connect, path))

    async def _run(self, sql: str, *args: object) -> sqlite3.Cursor:
        async with self._turn:
            return await asyncio.to_thread(self._execute, sql, args)

    def _execute(self, sql: str, args: tuple[object, ...]) -> sqlite3.Cursor:
        with self._db:
            cursor = self._db.execute(sql, args)
            cursor.fetchall()
            return cursor

    async def claim(self, update_id: int, *, owner: str, lease_s: float) -> bool:
        now = time.time()
        async with self._turn:
            rows = await asyncio.to_thread(
                self._fetch,
                """
                INSERT INTO update_claims (update_id, owner, expires_at) VALUES (?, ?, ?)
                ON CONFLICT (update_id) DO UPDATE
                    SET owner = excluded.owner, expires_at = excluded.expires_at
                    WHERE update_claims.finished_at IS NULL AND update_claims.expires_at <= ?
                RETURNING 1
                """,
                (update_id, owner, now + lease_s, now),
            )
        return bool(rows)

    def _fetch(self, sql: str, args: tuple[object, ...]) -> list[tuple[object, ...]]:
        with self._db:
            return self._db.execute(sql, args).fetchall()

    async def renew(self, update_id: int, *, owner: str, lease_s: float) -> None:
        await self._run(
            "UPDATE update_claims SET expires_at = ? "
            "WHERE update_id = ? AND owner = ? AND finished_at IS NULL",
            time.time() + lease_s,
            update_id,
            owner,
        )

    async def finish(self, update_id: int) -> None:
        now = time.time()
        await self._run(
            """
            INSERT INTO update_claims (update_id, owner, expires_at, finished_at)
            VALUES (?, '', ?, ?)
            ON CONFLICT (update_id) DO UPDATE SET finished_at = excluded.finished_at
                WHERE update_claims.finished_at IS NULL
            """,
            update_id,
            now,
            now,
        )

    async def forget_older(self, age_s: float) -> int:
        cursor = await self._run(
            "DELETE FROM update_claims WHERE coalesce(finished_at, expires_at) < ?",
            time.time() - age_s,
        )
        return cursor.rowcount

    async def close(self) -> None:
        async with self._turn:
            await asyncio.to_thread(self._db.close)


_SETUP_S = 10.0
"""How long opening waits for another process setting up the same file."""


def _connect(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path, check_same_thread=False, timeout=_SETUP_S)
    try:
        _set_up(connection)
    except BaseException:
        connection.close()
        raise
    return connection


def _set_up(connection: sqlite3.Connection) -> None:
    """WAL mode and the schema. Two processes opening a new file at once can meet "database is
    locked" here without SQLite's busy wait (switching to WAL takes the file for itself), so
    the set-up is tried again for a while, as the busy wait would have."""
    deadline = time.monotonic() + _SETUP_S
    pause = 0.01
    while True:
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")
            connection.executescript(_SQLITE_SCHEMA)
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() >= deadline:
                raise
            time.sleep(pause)  # another process holds the file for its own set-up
            pause = min(pause * 2, 0.2)
        else:
            return
