"""The ids behind source buttons in PostgreSQL, so a tap on any worker finds what an answer on
another worker issued. Same rules as the SQLite store (sqlite.py): random ids, the path and
the chat only (and a page button's page, in `page_links`), expired rows dropped as new ones
are written. Expiry is judged by the
database's clock, the one all machines share, unless a `clock` is given (tests move it)."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Literal

from bot.storage.errors import StorageError
from bot.storage.source_links import (
    ID_BYTES,
    LIFETIME_S,
    NEW_ID_ATTEMPTS,
    SourceLink,
    is_link_id,
)

if TYPE_CHECKING:
    from bot.storage.postgres import PostgresDatabase

_Table = Literal["source_links", "page_links"]
_TABLES: tuple[_Table, ...] = ("source_links", "page_links")
_NOW = "coalesce($1::float8, extract(epoch FROM clock_timestamp()))"


class PostgresSourceLinks:
    """Source button ids in the shared database."""

    def __init__(
        self,
        database: PostgresDatabase,
        *,
        lifetime_s: float = LIFETIME_S,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self._pool = database.pool
        self._lifetime = lifetime_s
        self._clock = clock

    async def issue(self, chat_id: int, paths: Sequence[str]) -> list[str]:
        """A new id for each path, in order, pressable in `chat_id`; expired ids are dropped."""
        return await self._issue("source_links", [(path,) for path in paths], chat_id)

    async def issue_pages(self, chat_id: int, pages: Sequence[tuple[str, int]]) -> list[str]:
        """A new id for each (path, page), in order, pressable in `chat_id`; expired ids are
        dropped."""
        return await self._issue("page_links", pages, chat_id)

    async def find(self, link_id: str) -> SourceLink | None:
        """What `link_id` stands for; None when it is unknown, malformed or expired."""
        if not is_link_id(link_id):
            return None
        row = await self._pool.fetchrow(
            f"SELECT path, chat_id, created_at FROM source_links WHERE id = $2 "
            f"AND created_at >= {_NOW} - $3",
            self._now(),
            link_id,
            self._lifetime,
        )
        if row is None:
            return None
        return SourceLink(row["path"], int(row["chat_id"]), float(row["created_at"]))

    async def find_page(self, link_id: str) -> SourceLink | None:
        """The page `link_id` stands for; None when it is unknown, malformed or expired."""
        if not is_link_id(link_id):
            return None
        row = await self._pool.fetchrow(
            f"SELECT path, page, chat_id, created_at FROM page_links WHERE id = $2 "
            f"AND created_at >= {_NOW} - $3",
            self._now(),
            link_id,
            self._lifetime,
        )
        if row is None:
            return None
        return SourceLink(
            row["path"], int(row["chat_id"]), float(row["created_at"]), int(row["page"])
        )

    async def forget_chat(self, chat_id: int) -> int:
        """Drop every id issued to `chat_id`, pages' too; how many."""
        forgotten = 0
        async with self._pool.acquire() as db, db.transaction():
            for table in _TABLES:
                status = await db.execute(f"DELETE FROM {table} WHERE chat_id = $1", chat_id)
                forgotten += int(status.rsplit(" ", 1)[-1])
        return forgotten

    async def _issue(
        self, table: _Table, rows: Sequence[tuple[str] | tuple[str, int]], chat_id: int
    ) -> list[str]:
        """A fresh random id for each row (a path, or a path and a page) in one transaction."""
        now = self._now()
        ids: list[str] = []
        async with self._pool.acquire() as db, db.transaction():
            await db.execute(
                f"DELETE FROM {table} WHERE created_at < {_NOW} - $2", now, self._lifetime
            )
            for what in rows:
                columns = "path" if len(what) == 1 else "path, page"
                values = ", ".join(f"${n}" for n in range(4, 4 + len(what)))
                for _ in range(NEW_ID_ATTEMPTS):
                    link_id = secrets.token_urlsafe(ID_BYTES)
                    made = await db.fetchval(
                        f"INSERT INTO {table} (id, chat_id, {columns}, created_at) "
                        f"VALUES ($2, $3, {values}, {_NOW}) "
                        "ON CONFLICT (id) DO NOTHING RETURNING true",
                        now,
                        link_id,
                        chat_id,
                        *what,
                    )
                    if made:
                        ids.append(link_id)
                        break
                else:
                    msg = "no free id for a source link"
                    raise StorageError(msg)
        return ids

    async def close(self) -> None:
        """Nothing of its own: the database is closed by whoever opened it."""

    def _now(self) -> float | None:
        return self._clock() if self._clock is not None else None
