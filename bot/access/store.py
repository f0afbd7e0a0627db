"""What `AccessPolicy` asks of the access database, and the SQLite file in DATA_DIR that does it.

`AccessStore` is the interface: every call is one transaction, so a pairing code is used once
and the first admin's decision settles a request, whoever else tries at the same moment. The
SQLite store runs the functions of `pairing`, `grants` and `requests` on the access database's
worker thread; `bot.access.store_postgres` keeps the same tables in PostgreSQL for several
workers.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from bot.access import grants, pairing, requests
from bot.access.database import AccessDatabase, atomic
from bot.access.grants import Grant, Person, Via
from bot.access.pairing import PairingOutcome
from bot.access.requests import AccessRequest, RequestMessage
from bot.storage.sqlite_thread import transaction


@dataclass(frozen=True, slots=True)
class Settled:
    """What a decision about a person did."""

    request: AccessRequest | None
    """Their access request as it stands now, if they made one."""
    decided_now: bool
    """This decision settled a pending request (False: there was none, or it was settled)."""
    grant: Grant | None
    """The grant that lets them in, when the decision was to let them in."""
    messages: list[RequestMessage]
    """The admins' messages about the request, to be edited."""


class AccessStore(Protocol):
    """The grants, pairing codes, access requests and admins' languages; `now` is Unix time."""

    async def load(self) -> tuple[list[Grant], dict[int, str]]:
        """Every grant (oldest first) and every admin's language."""
        ...

    async def set_language(self, user_id: int, lang: str) -> None:
        """Keep the language an admin reads."""
        ...

    async def issue_code(self, now: float) -> str:
        """A new pairing code; every earlier one stops working."""
        ...

    async def redeem(self, person: Person, raw_code: str, now: float) -> PairingOutcome:
        """Try a normalized code for `person`; the right live code makes them an admin, once."""
        ...

    async def open_request(self, person: Person, lang: str, now: float) -> bool:
        """Record a stranger's request; False when they already asked within the period."""
        ...

    async def withdraw_request(self, user_id: int) -> None:
        """Forget a request that reached no admin."""
        ...

    async def note_request_message(self, user_id: int, message: RequestMessage) -> None:
        """Remember an admin's message with the request's buttons."""
        ...

    async def decide(
        self, user_id: int, *, allow: bool, by: Person, via: Via, now: float
    ) -> Settled:
        """Settle a person's pending request, and let them in when `allow`."""
        ...

    async def remove_grant(self, user_id: int) -> Grant | None:
        """Take a grant away; returns what it was."""
        ...

    async def forget(self, user_id: int) -> None:
        """Delete a person's request, the admins' messages about it and their language."""
        ...

    async def watch(self, changed: Callable[[], Awaitable[None]]) -> None:
        """Call `changed` whenever another process changes a grant or a language."""
        ...

    async def close(self) -> None:
        """Let go of what the store holds."""
        ...


class SqliteAccessStore:
    """The access store in the SQLite file of an `AccessDatabase`."""

    def __init__(self, database: AccessDatabase) -> None:
        self._db = database

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

    async def decide(
        self, user_id: int, *, allow: bool, by: Person, via: Via, now: float
    ) -> Settled:
        return await self._db.run(
            lambda db: _decide(db, user_id, allow=allow, by=by, via=via, now=now)
        )

    async def remove_grant(self, user_id: int) -> Grant | None:
        return await self._db.run(atomic(lambda db: grants.remove(db, user_id)))

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
        decision: requests.Decision = "allowed" if allow else "ignored"
        decided_now = request is not None and requests.decide(db, user_id, decision, by)
        grant = None
        if allow and (decided_now or request is None or via == "command"):
            person = request.person if request is not None else Person(user_id)
            grant = grants.let_in(db, person, by, now, via)
        now_request = requests.find(db, user_id)
        return Settled(now_request, decided_now, grant, requests.messages(db, user_id))
