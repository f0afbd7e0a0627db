"""The grant statements of `SqliteAccessStore`: who, with which role, by whom, when and how.
Granting never lowers a role. They run inside the caller's transaction.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from bot.storage.access import Grant, LastAdmin, Person, Via

_COLUMNS = "user_id, role, name, username, granted_by, granted_by_name, granted_at, via"


def load_all(db: sqlite3.Connection) -> list[Grant]:
    """Every grant, oldest first."""
    rows = db.execute(f"SELECT {_COLUMNS} FROM grants ORDER BY granted_at, user_id")
    return [_grant(row) for row in rows.fetchall()]


def find(db: sqlite3.Connection, user_id: int) -> Grant | None:
    """The grant of one person, if any."""
    row = db.execute(f"SELECT {_COLUMNS} FROM grants WHERE user_id = ?", (user_id,)).fetchone()
    return None if row is None else _grant(row)


def make_admin(db: sqlite3.Connection, person: Person, now: float) -> Grant:
    """Record `person` as an admin who paired; a user grant they had becomes an admin one."""
    db.execute(
        f"INSERT OR REPLACE INTO grants ({_COLUMNS}) VALUES (?, 'admin', ?, ?, NULL, '', ?, "
        "'pairing')",
        (person.user_id, person.name, person.username, now),
    )
    grant = find(db, person.user_id)
    assert grant is not None
    return grant


def let_in(db: sqlite3.Connection, person: Person, by: Person, now: float, via: Via) -> Grant:
    """Grant `person` use of the bot, unless they already have a grant (which is kept)."""
    db.execute(
        f"INSERT INTO grants ({_COLUMNS}) VALUES (?, 'user', ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (user_id) DO NOTHING",
        (person.user_id, person.name, person.username, by.user_id, by.name, now, via),
    )
    grant = find(db, person.user_id)
    assert grant is not None
    return grant


def remove(db: sqlite3.Connection, user_id: int, *, keep_an_admin: bool) -> Grant | None:
    """Take a grant away; returns what it was. With `keep_an_admin`, the last admin grant
    raises `LastAdmin` instead (the caller's transaction rolls the removal back)."""
    grant = find(db, user_id)
    if grant is not None:
        db.execute("DELETE FROM grants WHERE user_id = ?", (user_id,))
        if keep_an_admin and grant.role == "admin" and not _any_admin(db):
            raise LastAdmin(user_id)
    return grant


def _any_admin(db: sqlite3.Connection) -> bool:
    """Whether any admin grant is left, as this transaction sees it."""
    return db.execute("SELECT 1 FROM grants WHERE role = 'admin' LIMIT 1").fetchone() is not None


def _grant(row: tuple[Any, ...]) -> Grant:
    """A row as a Grant; the table's CHECK constraints keep role and via to their values."""
    user_id, role, name, username, by_id, by_name, at, via = row
    by = None if by_id is None else Person(by_id, by_name)
    return Grant(Person(user_id, name, username), role, by, float(at), via)
