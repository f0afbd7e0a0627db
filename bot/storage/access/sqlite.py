"""`AccessStore` in `DATA_DIR/access.sqlite3`, on the storage's one SQLite thread.

`python -m bot pair` writes a code into the same file while the bot runs, so every change is an
immediate transaction (`BEGIN IMMEDIATE`): two processes never interleave half-done work, and a
crash loses at most the write in progress. The statements are grouped by table in
sqlite_grants.py, sqlite_requests.py and sqlite_pairing.py.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

from bot.storage.access import (
    AccessRequest,
    Decision,
    Grant,
    PairingOutcome,
    Person,
    RequestMessage,
    Settled,
    Via,
)
from bot.storage.access import sqlite_grants as grants
from bot.storage.access import sqlite_pairing as pairing
from bot.storage.access import sqlite_requests as requests
from bot.storage.sqlite_thread import SqliteThread, connect, transaction

_T = TypeVar("_T")

SCHEMA = """
CREATE TABLE IF NOT EXISTS grants (
    user_id INTEGER PRIMARY KEY,
    role TEXT NOT NULL CHECK (role IN ('admin', 'user')),
    name TEXT NOT NULL DEFAULT '',
    username TEXT,
    granted_by INTEGER,
    granted_by_name TEXT NOT NULL DEFAULT '',
    granted_at REAL NOT NULL,
    via TEXT NOT NULL CHECK (via IN ('pairing', 'command', 'request'))
);
CREATE TABLE IF NOT EXISTS pairing_codes (
    code_hash TEXT PRIMARY KEY,
    expires_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS pairing_failures (
    user_id INTEGER PRIMARY KEY,
    failures INTEGER NOT NULL,
    first_at REAL NOT NULL,
    locked_until REAL NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS access_requests (
    user_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL DEFAULT '',
    username TEXT,
    lang TEXT NOT NULL,
    requested_at REAL NOT NULL,
    decision TEXT CHECK (decision IN ('allowed', 'ignored')),
    decided_by_name TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS request_messages (
    user_id INTEGER NOT NULL,
    chat_id INTEGER NOT NULL,
    message_id INTEGER NOT NULL,
    lang TEXT NOT NULL,
    PRIMARY KEY (chat_id, message_id)
);
CREATE TABLE IF NOT EXISTS languages (
    user_id INTEGER PRIMARY KEY,
    lang TEXT NOT NULL
);
"""


def issue_code_now(path: Path, clock: Callable[[], float] = time.time) -> str:
    """Make a code in the database at `path` from outside the bot (`python -m bot pair`)."""
    db = connect(path, SCHEMA)
    try:
        return pairing.issue(db, clock())
    finally:
        db.close()


def atomic(work: Callable[[sqlite3.Connection], _T]) -> Callable[[sqlite3.Connection], _T]:
    """`work` done in one transaction, for `SqliteThread.run`."""

    def in_transaction(db: sqlite3.Connection) -> _T:
        with transaction(db):
            return work(db)

    return in_transaction


class SqliteAccessStore:
    """The access store in one SQLite file; it opens on first use and touches no disk before."""

    def __init__(self, path: Path) -> None:
        self._db = SqliteThread(path, SCHEMA, name="access database")

    async def load(self) -> tuple[list[Grant], dict[int, str]]:
        return await self._db.run(_load)

    async def set_language(self, user_id: int, lang: str) -> None:
        await self._db.run(atomic(lambda db: _set_language(db, user_id, lang)))

    async def issue_code(self, now: float) -> str:
        return await self._db.run(lambda db: pairing.issue(db, now))

    async def redeem(self, person: Person, raw_code: str, now: float) -> PairingOutcome:
        return await self._db.run(lambda db: pairing.redeem(db, person, raw_code, now))

    async def open_request(self, person: Person, lang: str, now: float) -> bool:
        return await self._db.run(atomic(lambda db: requests.open_request(db, person, lang, now)))

    async def withdraw_request(self, user_id: int) -> None:
        await self._db.run(atomic(lambda db: requests.withdraw(db, user_id)))

    async def note_request_message(self, user_id: int, message: RequestMessage) -> None:
        await self._db.run(atomic(lambda db: requests.add_message(db, user_id, message)))

    async def pending_requests(self, now: float) -> list[AccessRequest]:
        return await self._db.run(lambda db: requests.pending(db, now))

    async def decide(
        self, user_id: int, *, allow: bool, by: Person, via: Via, now: float
    ) -> Settled:
        return await self._db.run(
            lambda db: _decide(db, user_id, allow=allow, by=by, via=via, now=now)
        )

    async def remove_grant(self, user_id: int, *, keep_an_admin: bool = False) -> Grant | None:
        return await self._db.run(
            atomic(lambda db: grants.remove(db, user_id, keep_an_admin=keep_an_admin))
        )

    async def forget(self, user_id: int) -> None:
        await self._db.run(atomic(lambda db: _forget(db, user_id)))

    async def watch(self, changed: Callable[[], Awaitable[None]]) -> None:
        """Nothing to watch: only this process changes grants in its DATA_DIR."""

    async def close(self) -> None:
        await self._db.close()


def _load(db: sqlite3.Connection) -> tuple[list[Grant], dict[int, str]]:
    languages = dict(db.execute("SELECT user_id, lang FROM languages").fetchall())
    return grants.load_all(db), languages


def _set_language(db: sqlite3.Connection, user_id: int, lang: str) -> None:
    db.execute("INSERT OR REPLACE INTO languages VALUES (?, ?)", (user_id, lang))


def _forget(db: sqlite3.Connection, user_id: int) -> None:
    requests.withdraw(db, user_id)
    db.execute("DELETE FROM languages WHERE user_id = ?", (user_id,))


def _decide(
    db: sqlite3.Connection, user_id: int, *, allow: bool, by: Person, via: Via, now: float
) -> Settled:
    with transaction(db):
        request = requests.find(db, user_id)
        decision: Decision = "allowed" if allow else "ignored"
        decided_now = request is not None and requests.decide(db, user_id, decision, by)
        grant = None
        if allow and (decided_now or request is None or via == "command"):
            person = request.person if request is not None else Person(user_id)
            grant = grants.let_in(db, person, by, now, via)
        now_request = requests.find(db, user_id)
        return Settled(now_request, decided_now, grant, requests.messages(db, user_id))
