"""`UpdateClaims` in a small SQLite file in DATA_DIR, on the storage's one SQLite thread. Each
statement is atomic across processes on this machine (the file is locked while it is written,
and write-ahead logging lets the workers read while one writes); expiry by this machine's clock.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from bot.storage.sqlite_thread import SqliteThread

_SCHEMA = """
CREATE TABLE IF NOT EXISTS update_claims (
    update_id INTEGER PRIMARY KEY,
    owner TEXT NOT NULL,
    expires_at REAL NOT NULL,
    finished_at REAL
);
CREATE INDEX IF NOT EXISTS update_claims_finished ON update_claims (finished_at);
"""

_CLAIM = """
INSERT INTO update_claims (update_id, owner, expires_at) VALUES (?, ?, ?)
ON CONFLICT (update_id) DO UPDATE
    SET owner = excluded.owner, expires_at = excluded.expires_at
    WHERE update_claims.finished_at IS NULL AND update_claims.expires_at <= ?
RETURNING 1
"""

_FINISH = """
INSERT INTO update_claims (update_id, owner, expires_at, finished_at) VALUES (?, '', ?, ?)
ON CONFLICT (update_id) DO UPDATE SET finished_at = excluded.finished_at
    WHERE update_claims.finished_at IS NULL
"""


class SqliteUpdateClaims:
    """Claims in one SQLite file; `clock` gives Unix time."""

    def __init__(self, path: Path, *, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._db = SqliteThread(path, _SCHEMA, name="update claims")

    @classmethod
    async def open(
        cls, path: Path, *, clock: Callable[[], float] = time.time
    ) -> SqliteUpdateClaims:
        """Open (or create) the claims file at `path` now, so a file that cannot be opened
        stops the start rather than the first update."""
        claims = cls(path, clock=clock)
        try:
            await claims._db.run(lambda db: None)
        except BaseException:
            await claims.close()
            raise
        return claims

    async def claim(self, update_id: int, *, owner: str, lease_s: float) -> bool:
        now = self._clock()
        args = (update_id, owner, now + lease_s, now)
        rows = await self._db.run(lambda db: db.execute(_CLAIM, args).fetchall())
        return bool(rows)

    async def renew(self, update_id: int, *, owner: str, lease_s: float) -> None:
        args = (self._clock() + lease_s, update_id, owner)
        await self._db.run(
            lambda db: db.execute(
                "UPDATE update_claims SET expires_at = ? "
                "WHERE update_id = ? AND owner = ? AND finished_at IS NULL",
                args,
            )
        )

    async def finish(self, update_id: int) -> None:
        now = self._clock()
        await self._db.run(lambda db: db.execute(_FINISH, (update_id, now, now)))

    async def forget_older(self, age_s: float) -> int:
        cutoff = self._clock() - age_s
        return await self._db.run(
            lambda db: (
                db.execute(
                    "DELETE FROM update_claims WHERE coalesce(finished_at, expires_at) < ?",
                    (cutoff,),
                ).rowcount
            )
        )

    async def close(self) -> None:
        """Close the file; work already asked for finishes first."""
        await self._db.close()
