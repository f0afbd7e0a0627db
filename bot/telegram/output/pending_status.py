"""Status messages still on screen, kept on disk so a killed bot can tidy them up next start.

A status message ("Thinking…") becomes the answer when the question ends. If the process dies
first (SIGKILL, out of memory, power loss) it would stay in the chat forever; the store
remembers every status message until its question is finished, and at start-up the leftovers
are edited into a notice that the bot restarted and the question should be sent again.

One small SQLite table in DATA_DIR: every write is a committed transaction, so a crash loses at
most the write in progress. All database work runs on one worker thread, in the order it was
asked for, so removing a record can never be overtaken by the write that added it.

With DATABASE_URL the records live in PostgreSQL (`pending_status_postgres`), each naming
the worker that sent its message: a worker starting while others run tidies only the records
of workers that are gone, never a message another worker is still answering in. That store
reports a failing database as `StorageError`, so nothing here imports the PostgreSQL driver.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeVar

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError

from bot.storage.errors import StorageError
from bot.telegram.texts import texts_for

log = logging.getLogger(__name__)

FILE_NAME = "pending_status.sqlite3"

_T = TypeVar("_T")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS pending_status (
    chat_id INTEGER NOT NULL,
    message_id INTEGER NOT NULL,
    lang TEXT NOT NULL,
    thread_id INTEGER,
    PRIMARY KEY (chat_id, message_id)
)
"""


@dataclass(frozen=True, slots=True)
class PendingStatus:
    """One status message on screen: where it is and which language its user reads."""

    chat_id: int
    message_id: int
    lang: str
    thread_id: int | None = None


class PendingStatusStore(Protocol):
    """The status messages whose questions have not finished yet."""

    def add(self, status: PendingStatus) -> asyncio.Future[None]:
        """Remember a status message that was just sent; queued before this returns."""
        ...

    async def remove(self, chat_id: int, message_id: int) -> None:
        """Forget a status message: its question is finished one way or another."""
        ...

    async def leftovers(self) -> list[PendingStatus]:
        """The records no running process will finish, newest first."""
        ...

    async def drop(self, statuses: Sequence[PendingStatus]) -> None:
        """Forget these records (left-overs that were dealt with)."""
        ...

    async def close(self) -> None:
        """Let go of the store; writes already asked for finish first."""
        ...


class SqlitePendingStatusStore:
    """The status messages whose questions have not finished yet, in `DATA_DIR`.

    The database opens on first use, so building the store costs nothing and touches no disk.
    """

    def __init__(self, path: Path) -> None:
        self._path = path
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pending-status")
        self._connection: sqlite3.Connection | None = None
        self._closed = False

    def add(self, status: PendingStatus) -> asyncio.Future[None]:
        """Remember a status message that was just sent.

        The write is queued at once, before this returns, so a later `remove` can never
        overtake it; the caller need not wait for the disk before going on (await the future
        for the outcome).
        """
        return self._submit(self._add, status)

    async def remove(self, chat_id: int, message_id: int) -> None:
        """Forget a status message: its question is finished one way or another."""
        await self._run(self._remove, chat_id, message_id)

    async def all(self) -> list[PendingStatus]:
        """Every remembered status message, newest first."""
        return await self._run(self._all)

    async def clear(self) -> None:
        """Forget every status message."""
        await self._run(self._clear)

    async def leftovers(self) -> list[PendingStatus]:
        """Every record: one process owns DATA_DIR, and at its start none of them is live."""
        return await self.all()

    async def drop(self, statuses: Sequence[PendingStatus]) -> None:
        """Forget these records."""
        for status in statuses:
            await self.remove(status.chat_id, status.message_id)

    async def close(self) -> None:
        """Close the database; writes already asked for finish first, later ones fail."""
        if self._closed:
            return
        self._closed = True
        await asyncio.get_running_loop().run_in_executor(self._executor, self._close)
        await asyncio.to_thread(self._executor.shutdown, wait=True)

    async def _run(self, func: Callable[..., _T], *args: object) -> _T:
        return await self._submit(func, *args)

    def _submit(self, func: Callable[..., _T], *args: object) -> asyncio.Future[_T]:
        loop = asyncio.get_running_loop()
        if self._closed:
            failed: asyncio.Future[_T] = loop.create_future()
            failed.set_exception(
                sqlite3.ProgrammingError("the store of pending status messages is closed")
            )
            return failed
        return loop.run_in_executor(self._executor, func, *args)

    # --- on the worker thread ------------------------------------------------------------
    def _db(self) -> sqlite3.Connection:
        if self._connection is None:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(self._path, check_same_thread=False)
            connection.execute(_SCHEMA)
            connection.commit()
            self._connection = connection
        return self._connection

    def _add(self, status: PendingStatus) -> None:
        db = self._db()
        with db:
            db.execute(
                "INSERT OR REPLACE INTO pending_status VALUES (?, ?, ?, ?)",
                (status.chat_id, status.message_id, status.lang, status.thread_id),
            )

    def _remove(self, chat_id: int, message_id: int) -> None:
        db = self._db()
        with db:
            db.execute(
                "DELETE FROM pending_status WHERE chat_id = ? AND message_id = ?",
                (chat_id, message_id),
            )

    def _all(self) -> list[PendingStatus]:
        rows = self._db().execute(
            "SELECT chat_id, message_id, lang, thread_id FROM pending_status ORDER BY rowid DESC"
        )
        return [PendingStatus(*row) for row in rows.fetchall()]

    def _clear(self) -> None:
        db = self._db()
        with db:
            db.execute("DELETE FROM pending_status")

    def _close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None


async def tidy_leftovers(
    bot: Bot,
    store: PendingStatusStore,
    *,
    limit: int = 50,
    timeout_s: float = 5.0,
    budget_s: float = 30.0,
) -> int:
    """Edit status messages a previous run left behind into a "please ask again" notice.

    Runs at start-up, before any update is handled, so it is bounded: at most `limit` messages
    (the newest), each call cut after `timeout_s`, none started after `budget_s` in all. A
    message that is gone or cannot be edited is logged and skipped. Every record is forgotten
    afterwards, edited or not. Returns how many were edited.
    """
    try:
        leftovers = await store.leftovers()
    except (sqlite3.Error, OSError, StorageError) as exc:
        log.warning("cannot read the status messages left by the previous run: %s", exc)
        return 0
    if not leftovers:
        return 0
    if len(leftovers) > limit:
        log.warning(
            "%d status messages were left by the previous run; only the newest %d are edited",
            len(leftovers),
            limit,
        )
    edited = 0
    deadline = time.monotonic() + budget_s
    for status in leftovers[:limit]:
        if time.monotonic() >= deadline:
            log.warning("out of time for left-over status messages; the rest stay as they are")
            break
        if await _tell_restarted(bot, status, timeout_s):
            edited += 1
    try:
        await store.drop(leftovers)
    except (sqlite3.Error, OSError, StorageError) as exc:
        log.warning("cannot forget the status messages left by the previous run: %s", exc)
    log.info("edited %d of %d status message(s) left by the previous run", edited, len(leftovers))
    return edited


async def _tell_restarted(bot: Bot, status: PendingStatus, timeout_s: float) -> bool:
    text = texts_for(status.lang).progress_restarted
    try:
        await asyncio.wait_for(
            bot.edit_message_text(
                text=text,
                chat_id=status.chat_id,
                message_id=status.message_id,
                request_timeout=max(1, round(timeout_s)),
            ),
            timeout_s,
        )
    except (TelegramAPIError, TimeoutError) as exc:  # network errors are API errors too
        log.info(
            "left-over status message %d in chat %d not edited: %s",
            status.message_id,
            status.chat_id,
            exc,
        )
        return False
    return True
