"""The access store in PostgreSQL, shared by every worker: the same rules as the SQLite file.

Each call is one transaction on the database's pool. Pairing attempts and new codes take one
transaction-scoped advisory lock, so across all workers they happen one after another: a code
sent to two workers at once makes exactly one admin, and five wrong codes lock a person out
however the attempts were spread. Taking a grant away holds another lock, so "is another admin
left?" and the removal are one step across workers. Decisions on a request rely on the row: the
first `UPDATE` of a pending request wins, later ones find it settled.

Every worker mirrors the grants in memory (`AccessPolicy`), so a change of a grant or a language
sends a PostgreSQL notification with its commit; `watch` listens on a connection of its own and
has each worker read the mirror again.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import asyncpg

from bot.storage import PostgresDatabase, advisory_key
from bot.storage.access import (
    LOCKOUT_S,
    MAX_FAILURES,
    REQUEST_PERIOD_S,
    AccessRequest,
    Grant,
    LastAdmin,
    PairingOutcome,
    Person,
    RequestMessage,
    Settled,
    Via,
    codes,
)
from bot.storage.keys import locked_transaction
from bot.storage.listening import ChannelListener

if TYPE_CHECKING:
    from asyncpg.pool import PoolConnectionProxy

    _Db = PoolConnectionProxy[asyncpg.Record]

log = logging.getLogger(__name__)

_PAIRING_LOCK = advisory_key("access", "pairing")
_ADMINS_LOCK = advisory_key("access", "admins")
_CHANNEL = "access_changed"
_NOTIFY = f"SELECT pg_notify('{_CHANNEL}', '')"
_GRANT = "user_id, role, name, username, granted_by, granted_by_name, granted_at, via"
_REQUEST = "user_id, name, username, lang, requested_at, decision, decided_by_name"


class PostgresAccessStore:
    """Grants, pairing codes, access requests and languages in the shared database."""

    def __init__(self, database: PostgresDatabase) -> None:
        self._pool = database.pool
        self._listener = ChannelListener(
            database,
            _CHANNEL,
            heard="other workers' grants",
            read="the grants again after another worker changed them",
            until="grants changed elsewhere are seen here after a restart",
        )

    async def load(self) -> tuple[list[Grant], dict[int, str]]:
        rows = await self._pool.fetch(
            f"SELECT {_GRANT} FROM access_grants ORDER BY granted_at, user_id"
        )
        languages = await self._pool.fetch("SELECT user_id, lang FROM access_languages")
        return [_grant(row) for row in rows], {r["user_id"]: r["lang"] for r in languages}

    async def set_language(self, user_id: int, lang: str) -> None:
        async with self._pool.acquire() as db, db.transaction():
            await db.execute(
                "INSERT INTO access_languages (user_id, lang) VALUES ($1, $2) "
                "ON CONFLICT (user_id) DO UPDATE SET lang = excluded.lang",
                user_id,
                lang,
            )
            await db.execute(_NOTIFY)

    async def issue_code(self, now: float) -> str:
        code = codes.new_code()
        raw = codes.normalize(code)
        assert raw is not None
        async with locked_transaction(self._pool, _PAIRING_LOCK) as db:
            await db.execute("DELETE FROM access_pairing_codes")
            await db.execute(
                "INSERT INTO access_pairing_codes (code_hash, expires_at) VALUES ($1, $2)",
                codes.code_hash(raw),
                now + codes.LIFETIME_S,
            )
        return code

    async def redeem(self, person: Person, raw_code: str, now: float) -> PairingOutcome:
        candidate = codes.code_hash(raw_code)
        async with locked_transaction(self._pool, _PAIRING_LOCK) as db:
            locked_until = await db.fetchval(
                "SELECT locked_until FROM access_pairing_failures WHERE user_id = $1",
                person.user_id,
            )
            if locked_until is not None and locked_until > now:
                return PairingOutcome("locked", retry_after_s=locked_until - now)
            expires_at = None
            for stored in await db.fetch("SELECT code_hash, expires_at FROM access_pairing_codes"):
                if codes.same_hash(candidate, stored["code_hash"]):
                    expires_at = float(stored["expires_at"])
            if expires_at is None:
                return await _failed(db, person.user_id, now)
            await db.execute("DELETE FROM access_pairing_codes")
            if expires_at <= now:
                return PairingOutcome("expired")
            await db.execute(
                "DELETE FROM access_pairing_failures WHERE user_id = $1", person.user_id
            )
            row: Any = await db.fetchrow(
                f"""
                INSERT INTO access_grants ({_GRANT})
                VALUES ($1, 'admin', $2, $3, NULL, '', $4, 'pairing')
                ON CONFLICT (user_id) DO UPDATE SET role = 'admin', name = excluded.name,
                    username = excluded.username, granted_by = NULL, granted_by_name = '',
                    granted_at = excluded.granted_at, via = 'pairing'
                RETURNING {_GRANT}
                """,
                person.user_id,
                person.name,
                person.username,
                now,
            )
            await db.execute(_NOTIFY)
            return PairingOutcome("paired", grant=_grant(row))

    async def open_request(self, person: Person, lang: str, now: float) -> bool:
        async with self._pool.acquire() as db, db.transaction():
            opened = await db.fetchval(
                """
                INSERT INTO access_requests (user_id, name, username, lang, requested_at)
                VALUES ($1, $2, $3, $4, $5)
                ON CONFLICT (user_id) DO UPDATE SET name = excluded.name,
                    username = excluded.username, lang = excluded.lang,
                    requested_at = excluded.requested_at, decision = NULL,
                    decided_by_name = ''
                WHERE $5 - access_requests.requested_at >= $6
                RETURNING true
                """,
                person.user_id,
                person.name,
                person.username,
                lang,
                now,
                REQUEST_PERIOD_S,
            )
            if not opened:
                return False
            await db.execute(
                "DELETE FROM access_request_messages WHERE user_id = $1", person.user_id
            )
            return True

    async def withdraw_request(self, user_id: int) -> None:
        async with self._pool.acquire() as db, db.transaction():
            await _withdraw(db, user_id)

    async def note_request_message(self, user_id: int, message: RequestMessage) -> None:
        await self._pool.execute(
            "INSERT INTO access_request_messages (user_id, chat_id, message_id, lang) "
            "VALUES ($1, $2, $3, $4) ON CONFLICT (chat_id, message_id) DO UPDATE "
            "SET user_id = excluded.user_id, lang = excluded.lang",
            user_id,
            message.chat_id,
            message.message_id,
            message.lang,
        )

    async def pending_requests(self, now: float) -> list[AccessRequest]:
        rows = await self._pool.fetch(
            f"SELECT {_REQUEST} FROM access_requests "
            "WHERE decision IS NULL AND requested_at > $1 ORDER BY requested_at DESC, user_id",
            now - REQUEST_PERIOD_S,
        )
        return [_request(row) for row in rows]

    async def decide(
        self, user_id: int, *, allow: bool, by: Person, via: Via, now: float
    ) -> Settled:
        async with self._pool.acquire() as db, db.transaction():
            request = await _find_request(db, user_id)
            decided_now = request is not None and bool(
                await db.fetchval(
                    "UPDATE access_requests SET decision = $1, decided_by_name = $2 "
                    "WHERE user_id = $3 AND decision IS NULL RETURNING true",
                    "allowed" if allow else "ignored",
                    by.name or str(by.user_id),
                    user_id,
                )
            )
            grant = None
            if allow and (decided_now or request is None or via == "command"):
                person = request.person if request is not None else Person(user_id)
                grant = await _let_in(db, person, by, now, via)
                await db.execute(_NOTIFY)
            messages = await db.fetch(
                "SELECT chat_id, message_id, lang FROM access_request_messages "
                "WHERE user_id = $1 ORDER BY chat_id",
                user_id,
            )
            return Settled(
                await _find_request(db, user_id),
                decided_now,
                grant,
                [RequestMessage(m["chat_id"], m["message_id"], m["lang"]) for m in messages],
            )

    async def remove_grant(self, user_id: int, *, keep_an_admin: bool = False) -> Grant | None:
        async with locked_transaction(self._pool, _ADMINS_LOCK) as db:
            row = await db.fetchrow(
                f"DELETE FROM access_grants WHERE user_id = $1 RETURNING {_GRANT}", user_id
            )
            if row is None:
                return None
            if keep_an_admin and row["role"] == "admin" and not await _any_admin(db):
                raise LastAdmin(user_id)  # the transaction rolls back: the grant stays
            await db.execute(_NOTIFY)
            return _grant(row)

    async def forget(self, user_id: int) -> None:
        async with self._pool.acquire() as db, db.transaction():
            await _withdraw(db, user_id)
            await db.execute("DELETE FROM access_languages WHERE user_id = $1", user_id)

    async def watch(self, changed: Callable[[], Awaitable[None]]) -> None:
        """Call `changed` after every change of a grant or a language, by any worker."""

        async def reload(_payload: str) -> None:
            await changed()

        await self._listener.start(reload)

    async def close(self) -> None:
        """Stop listening; the database is closed by whoever opened it."""
        await self._listener.close()


async def issue_code_in(database: PostgresDatabase, now: float) -> str:
    """A new code made outside the bot (`python -m bot pair` with DATABASE_URL)."""
    return await PostgresAccessStore(database).issue_code(now)


async def _failed(db: _Db, user_id: int, now: float) -> PairingOutcome:
    """Count a wrong code; the `MAX_FAILURES`th within the window starts the lockout."""
    row = await db.fetchrow(
        "SELECT failures, first_at FROM access_pairing_failures WHERE user_id = $1", user_id
    )
    if row is None or now - row["first_at"] >= LOCKOUT_S:
        failures, first_at = 0, now
    else:
        failures, first_at = row["failures"], row["first_at"]
    failures += 1
    locked = failures >= MAX_FAILURES
    await db.execute(
        "INSERT INTO access_pairing_failures (user_id, failures, first_at, locked_until) "
        "VALUES ($1, $2, $3, $4) ON CONFLICT (user_id) DO UPDATE SET "
        "failures = excluded.failures, first_at = excluded.first_at, "
        "locked_until = excluded.locked_until",
        user_id,
        0 if locked else failures,
        now if locked else first_at,
        now + LOCKOUT_S if locked else 0.0,
    )
    if locked:
        return PairingOutcome("locked", retry_after_s=LOCKOUT_S)
    return PairingOutcome("wrong", attempts_left=MAX_FAILURES - failures)


async def _any_admin(db: _Db) -> bool:
    """Whether any admin grant is left, as this transaction sees it."""
    found = await db.fetchval("SELECT EXISTS (SELECT 1 FROM access_grants WHERE role = 'admin')")
    return bool(found)


async def _withdraw(db: _Db, user_id: int) -> None:
    await db.execute("DELETE FROM access_requests WHERE user_id = $1", user_id)
    await db.execute("DELETE FROM access_request_messages WHERE user_id = $1", user_id)


async def _find_request(db: _Db, user_id: int) -> AccessRequest | None:
    row = await db.fetchrow(f"SELECT {_REQUEST} FROM access_requests WHERE user_id = $1", user_id)
    return None if row is None else _request(row)


def _request(row: Any) -> AccessRequest:
    """A row as a request; the table's CHECK constraint keeps the decision to its values."""
    return AccessRequest(
        Person(row["user_id"], row["name"], row["username"]),
        row["lang"],
        float(row["requested_at"]),
        row["decision"],
        row["decided_by_name"],
    )


async def _let_in(db: _Db, person: Person, by: Person, now: float, via: Via) -> Grant:
    """Grant use of the bot unless the person has a grant already (which is kept)."""
    await db.execute(
        f"INSERT INTO access_grants ({_GRANT}) VALUES ($1, 'user', $2, $3, $4, $5, $6, $7) "
        "ON CONFLICT (user_id) DO NOTHING",
        person.user_id,
        person.name,
        person.username,
        by.user_id,
        by.name,
        now,
        via,
    )
    row = await db.fetchrow(
        f"SELECT {_GRANT} FROM access_grants WHERE user_id = $1", person.user_id
    )
    return _grant(row)


def _grant(row: Any) -> Grant:
    """A row as a Grant; the table's CHECK constraints keep role and via to their values."""
    by_id = row["granted_by"]
    by = None if by_id is None else Person(by_id, row["granted_by_name"])
    return Grant(
        Person(row["user_id"], row["name"], row["username"]),
        row["role"],
        by,
        float(row["granted_at"]),
        row["via"],
    )
