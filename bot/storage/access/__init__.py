"""Access beyond the environment's lists, as stored: grants, pairing codes, strangers'
requests and the admins' languages.

`AccessStore` is the interface `bot.access.AccessPolicy` asks: every call is one transaction,
so a pairing code is used once and the first admin's decision settles a request, whoever else
tries at the same moment. `SqliteAccessStore` (sqlite.py, with its statements by table in
sqlite_grants.py, sqlite_requests.py and sqlite_pairing.py) keeps them in
`DATA_DIR/access.sqlite3`; `PostgresAccessStore` (postgres.py) in the shared database, for
several workers. `codes` is how pairing codes look and are hashed, for both.

Pairing: a new code replaces every earlier one; it works once and for `codes.LIFETIME_S`;
`MAX_FAILURES` wrong codes from one person within `LOCKOUT_S` lock that person out for
`LOCKOUT_S`. A stranger asks the admins at most once per `REQUEST_PERIOD_S`. Granting never
lowers a role; taking grants away can be asked to keep an admin (`LastAdmin`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal, Protocol

Role = Literal["admin", "user"]
Via = Literal["pairing", "command", "request"]


@dataclass(frozen=True, slots=True)
class Person:
    """A Telegram user as the bot saw them: id, display name and @username (if any)."""

    user_id: int
    name: str = ""
    username: str | None = None


@dataclass(frozen=True, slots=True)
class Grant:
    """One person's access granted in Telegram."""

    person: Person
    role: Role
    granted_by: Person | None
    """The admin who granted it; None for an admin who paired with a code."""
    granted_at: float
    """Unix time."""
    via: Via


REQUEST_PERIOD_S = 24 * 3600.0

Decision = Literal["allowed", "ignored"]


@dataclass(frozen=True, slots=True)
class AccessRequest:
    """One stranger's request and, once decided, its outcome."""

    person: Person
    lang: str
    """The language the stranger reads, for telling them they were let in."""
    requested_at: float
    decision: Decision | None = None
    decided_by_name: str = ""


@dataclass(frozen=True, slots=True)
class RequestMessage:
    """An admin's message that carries a request's buttons, and the language it is in."""

    chat_id: int
    message_id: int
    lang: str


MAX_FAILURES = 5
LOCKOUT_S = 3600.0
"""How long a person who sent `MAX_FAILURES` wrong codes is locked out, and the window in
which those wrong codes count."""

Result = Literal["paired", "wrong", "expired", "locked"]


@dataclass(frozen=True, slots=True)
class PairingOutcome:
    """What one attempt did: the new admin's grant, or why not."""

    result: Result
    grant: Grant | None = None
    attempts_left: int = 0
    """After a wrong code: how many more may be tried before the lockout."""
    retry_after_s: float = 0.0
    """When locked out: seconds until the next attempt is read."""


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


class LastAdmin(Exception):
    """`remove_grant` refused: the grant is the last admin grant, and the admins must keep one."""


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

    async def pending_requests(self, now: float) -> list[AccessRequest]:
        """The requests no admin has decided yet, made within the period; newest first."""
        ...

    async def decide(
        self, user_id: int, *, allow: bool, by: Person, via: Via, now: float
    ) -> Settled:
        """Settle a person's pending request, and let them in when `allow`."""
        ...

    async def remove_grant(self, user_id: int, *, keep_an_admin: bool = False) -> Grant | None:
        """Take a grant away; returns what it was. With `keep_an_admin`, raise `LastAdmin`
        instead of taking away the last admin grant: the count and the removal are one step
        for every process sharing the store, so two removals at once leave one admin."""
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
