"""`NoticeStore` in PostgreSQL, for several workers sharing DATABASE_URL: one list for all.

The tables (`notice_subscriptions`, `notice_changes`, the remembered folder's `notice_files`
and `notice_files_remembered`) come with the schema's migrations. Every worker watches the same
documents folder, so each sees the same change: `record` takes a transaction-level advisory
lock, so the workers recording at once take turns and the second finds the change kept already.
The folder is remembered once for all workers, behind the same lock, so workers starting after
a change made while none ran each find it, and the first to record it keeps it. A digest's
claim is one conditional update: when two workers claim the same digest, PostgreSQL makes the
second wait for the first and then finds `sent_through` moved, so exactly one of them sends it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from bot.storage.keys import advisory_key, locked_transaction
from bot.storage.notices import MAX_READ, Change, NoticedChange, Snapshot, Subscription

if TYPE_CHECKING:
    from bot.storage.postgres import PostgresDatabase

_SUBSCRIPTION = "chat_id, thread_id, folder, user_id, language, sent_through, subscribed_by"
_RECORDING = advisory_key("notices", "record")
NO_TOPIC = 0
"""The topic column of a chat without topics (a key column cannot be NULL)."""


class PostgresNotices:
    """Subscriptions and changes in the shared database; `clock` gives Unix time."""

    def __init__(
        self, database: PostgresDatabase, *, clock: Callable[[], float] = time.time
    ) -> None:
        self._pool = database.pool
        self._clock = clock

    async def subscribe(
        self,
        chat_id: int,
        folder: str,
        *,
        thread_id: int | None = None,
        user_id: int | None,
        language: str,
        subscribed_by: int | None = None,
    ) -> bool:
        """Subscribe from the next change on; False (language updated) when it already was."""
        inserted = await self._pool.fetchval(
            f"INSERT INTO notice_subscriptions ({_SUBSCRIPTION}) "
            "VALUES ($1, $2, $3, $4, $5, (SELECT coalesce(max(id), 0) FROM notice_changes), $6) "
            "ON CONFLICT (chat_id, thread_id, folder) DO UPDATE SET language = excluded.language "
            "RETURNING xmax = 0",
            chat_id,
            thread_id or NO_TOPIC,
            folder,
            user_id,
            language,
            subscribed_by,
        )
        return bool(inserted)

    async def unsubscribe(
        self, chat_id: int, folder: str | None = None, *, thread_id: int | None = None
    ) -> int:
        """End one subscription of a chat (a topic), or all of them; how many ended."""
        status = await self._pool.execute(
            "DELETE FROM notice_subscriptions "
            "WHERE chat_id = $1 AND thread_id = $2 AND ($3::text IS NULL OR folder = $3)",
            chat_id,
            thread_id or NO_TOPIC,
            folder,
        )
        return int(status.split()[-1])

    async def of_chat(self, chat_id: int, thread_id: int | None = None) -> list[Subscription]:
        """A chat's (a topic's) subscriptions, by folder."""
        rows = await self._pool.fetch(
            f"SELECT {_SUBSCRIPTION} FROM notice_subscriptions "
            "WHERE chat_id = $1 AND thread_id = $2 ORDER BY folder",
            chat_id,
            thread_id or NO_TOPIC,
        )
        return [_subscription(row) for row in rows]

    async def subscriptions(self) -> list[Subscription]:
        """Every subscription, by chat, topic and folder."""
        rows = await self._pool.fetch(
            f"SELECT {_SUBSCRIPTION} FROM notice_subscriptions ORDER BY chat_id, thread_id, folder"
        )
        return [_subscription(row) for row in rows]

    async def record(self, changes: Sequence[Change]) -> int:
        """Keep the changes not kept already, stamped now; how many. A few statements for the
        whole batch, whatever its size: a restart may bring an outage's worth of changes."""
        if not changes:
            return 0
        now = self._clock()
        async with locked_transaction(self._pool, _RECORDING) as connection:
            rows = await connection.fetch(
                "SELECT DISTINCT ON (path) path, kind, size, mtime_ns FROM notice_changes "
                "WHERE path = ANY($1::text[]) ORDER BY path, id DESC",
                [change.path for change in changes],
            )
            latest = {row["path"]: (row["kind"], row["size"], row["mtime_ns"]) for row in rows}
            new = [
                change
                for change in changes
                if latest.get(change.path) != (change.kind, change.size, change.mtime_ns)
            ]
            await connection.executemany(
                "INSERT INTO notice_changes (path, kind, size, mtime_ns, noticed_at) "
                "VALUES ($1, $2, $3, $4, $5)",
                [(c.path, c.kind, c.size, c.mtime_ns, now) for c in new],
            )
            await _apply(connection, changes)
        return len(new)

    async def remembered_folder(self) -> Snapshot | None:
        """The folder as the recorded changes leave it; None before it was remembered."""
        async with locked_transaction(self._pool, _RECORDING) as connection:
            if await connection.fetchval("SELECT count(*) FROM notice_files_remembered") == 0:
                return None
            rows = await connection.fetch("SELECT path, size, mtime_ns FROM notice_files")
        return {str(row["path"]): (int(row["size"]), int(row["mtime_ns"])) for row in rows}

    async def remember_folder(self, files: Snapshot) -> bool:
        """Remember the folder as `files`, unless one is remembered already."""
        now = self._clock()
        async with locked_transaction(self._pool, _RECORDING) as connection:
            status = await connection.execute(
                "INSERT INTO notice_files_remembered (id, remembered_at) VALUES (1, $1) "
                "ON CONFLICT (id) DO NOTHING",
                now,
            )
            if status.split()[-1] != "1":
                return False
            await connection.execute("DELETE FROM notice_files")
            await connection.copy_records_to_table(
                "notice_files",
                records=[(path, size, mtime_ns) for path, (size, mtime_ns) in files.items()],
                columns=("path", "size", "mtime_ns"),
            )
        return True

    async def since(self, after: int) -> list[NoticedChange]:
        """Changes with an id above `after`, oldest first; at most `MAX_READ`."""
        rows = await self._pool.fetch(
            "SELECT id, path, kind, size, mtime_ns, noticed_at FROM notice_changes "
            "WHERE id > $1 ORDER BY id LIMIT $2",
            after,
            MAX_READ,
        )
        return [
            NoticedChange(
                int(row["id"]),
                Change(str(row["path"]), row["kind"], int(row["size"]), int(row["mtime_ns"])),
                float(row["noticed_at"]),
            )
            for row in rows
        ]

    async def claim(self, subscription: Subscription, through: int) -> bool:
        """Move `sent_through` to `through`, if it still holds what `subscription` read."""
        status = await self._pool.execute(
            "UPDATE notice_subscriptions SET sent_through = $5 "
            "WHERE chat_id = $1 AND thread_id = $2 AND folder = $3 AND sent_through = $4",
            subscription.chat_id,
            subscription.thread_id or NO_TOPIC,
            subscription.folder,
            subscription.sent_through,
            through,
        )
        return status.split()[-1] == "1"

    async def delete_older(self, cutoff: float) -> int:
        """Delete changes noticed before `cutoff`; how many."""
        status = await self._pool.execute(
            "DELETE FROM notice_changes WHERE noticed_at < $1", cutoff
        )
        return int(status.split()[-1])

    async def forget_user(self, user_id: int) -> int:
        """Delete one person's own subscriptions; how many."""
        status = await self._pool.execute(
            "DELETE FROM notice_subscriptions WHERE user_id = $1", user_id
        )
        return int(status.split()[-1])

    async def close(self) -> None:
        """Nothing of its own: the database's pool is closed by whoever opened it."""


async def _apply(connection: Any, changes: Sequence[Change]) -> None:
    """Bring the remembered folder up to `changes`: each one, even one kept already, since
    the folder is what they leave whether or not they are news."""
    await connection.executemany(
        "DELETE FROM notice_files WHERE path = $1",
        [(c.path,) for c in changes if c.kind == "removed"],
    )
    await connection.executemany(
        "INSERT INTO notice_files (path, size, mtime_ns) VALUES ($1, $2, $3) "
        "ON CONFLICT (path) DO UPDATE SET size = excluded.size, mtime_ns = excluded.mtime_ns",
        [(c.path, c.size, c.mtime_ns) for c in changes if c.kind != "removed"],
    )


def _subscription(row: Any) -> Subscription:
    return Subscription(
        int(row["chat_id"]),
        int(row["thread_id"]) or None,
        str(row["folder"]),
        row["user_id"],
        str(row["language"]),
        int(row["sent_through"]),
        row["subscribed_by"],
    )
