"""The access-request statements of `SqliteAccessStore`: who asked, which admins' messages
carry the buttons, who decided. They run inside the caller's transaction.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from bot.storage.access import REQUEST_PERIOD_S, AccessRequest, Decision, Person, RequestMessage

_COLUMNS = "user_id, name, username, lang, requested_at, decision, decided_by_name"


def open_request(db: sqlite3.Connection, person: Person, lang: str, now: float) -> bool:
    """Record a new request; False when this person already asked within the period."""
    row = db.execute(
        "SELECT requested_at FROM access_requests WHERE user_id = ?", (person.user_id,)
    ).fetchone()
    if row is not None and now - float(row[0]) < REQUEST_PERIOD_S:
        return False
    db.execute(
        "INSERT OR REPLACE INTO access_requests (user_id, name, username, lang, requested_at) "
        "VALUES (?, ?, ?, ?, ?)",
        (person.user_id, person.name, person.username, lang, now),
    )
    db.execute("DELETE FROM request_messages WHERE user_id = ?", (person.user_id,))
    return True


def withdraw(db: sqlite3.Connection, user_id: int) -> None:
    """Forget a request no admin could be told about, so the next message tries again."""
    db.execute("DELETE FROM access_requests WHERE user_id = ?", (user_id,))
    db.execute("DELETE FROM request_messages WHERE user_id = ?", (user_id,))


def add_message(db: sqlite3.Connection, user_id: int, message: RequestMessage) -> None:
    """Remember an admin's message about the request, to edit it once someone decides."""
    db.execute(
        "INSERT OR REPLACE INTO request_messages VALUES (?, ?, ?, ?)",
        (user_id, message.chat_id, message.message_id, message.lang),
    )


def find(db: sqlite3.Connection, user_id: int) -> AccessRequest | None:
    """The request of `user_id`, decided or not."""
    row = db.execute(
        f"SELECT {_COLUMNS} FROM access_requests WHERE user_id = ?", (user_id,)
    ).fetchone()
    return None if row is None else _request(row)


def pending(db: sqlite3.Connection, now: float) -> list[AccessRequest]:
    """The undecided requests made within the period, newest first."""
    rows = db.execute(
        f"SELECT {_COLUMNS} FROM access_requests "
        "WHERE decision IS NULL AND requested_at > ? ORDER BY requested_at DESC, user_id",
        (now - REQUEST_PERIOD_S,),
    )
    return [_request(row) for row in rows.fetchall()]


def messages(db: sqlite3.Connection, user_id: int) -> list[RequestMessage]:
    """The admins' messages about the request of `user_id`."""
    rows = db.execute(
        "SELECT chat_id, message_id, lang FROM request_messages WHERE user_id = ? "
        "ORDER BY chat_id",
        (user_id,),
    )
    return [RequestMessage(*row) for row in rows.fetchall()]


def decide(db: sqlite3.Connection, user_id: int, decision: Decision, by: Person) -> bool:
    """Settle a pending request; False when there is none or it was decided already."""
    cursor = db.execute(
        "UPDATE access_requests SET decision = ?, decided_by_name = ? "
        "WHERE user_id = ? AND decision IS NULL",
        (decision, by.name or str(by.user_id), user_id),
    )
    return cursor.rowcount == 1


def _request(row: tuple[Any, ...]) -> AccessRequest:
    """A row as a request; the table's CHECK constraint keeps the decision to its values."""
    user_id, name, username, lang, requested_at, decision, decided_by_name = row
    return AccessRequest(
        Person(user_id, name, username), lang, float(requested_at), decision, decided_by_name
    )
