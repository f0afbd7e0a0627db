"""The access database: one small SQLite file in DATA_DIR, worked on by one thread.

It holds what Telegram changes about access (grants, access requests, the admins' languages)
and the hashes of pairing codes. `python -m bot pair` writes a code into the same file while
the bot runs, so every change is an immediate transaction (`BEGIN IMMEDIATE`): two processes
never interleave half-done work, and a crash loses at most the write in progress.

Inside the bot all database work runs on one worker thread, in the order it was asked for, so
the event loop never waits for the disk and writes never overtake each other.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from bot.storage.sqlite_thread import SqliteThread, transaction

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


def atomic(work: Callable[[sqlite3.Connection], _T]) -> Callable[[sqlite3.Connection], _T]:
    """`work` done in one transaction, for `AccessDatabase.run`."""

    def in_transaction(db: sqlite3.Connection) -> _T:
        with transaction(db):
            return work(db)

    return in_transaction


class AccessDatabase(SqliteThread):
    """The access database behind one worker thread; it opens on first use and touches no
    disk before. `run(work)` calls `work(connection)` on the worker thread."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, SCHEMA, name="access database")
