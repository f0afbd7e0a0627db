"""Who may use the bot and who is an admin: the environment's lists, then Telegram's grants.

`AccessPolicy` is the one place access is decided. ADMIN_IDS, ALLOWED_USER_IDS and ALLOW_ALL
say who may ask; ALLOWED_CHAT_IDS says in which groups, whoever asks. The environment's lists
always win: a grant adds people, it never takes away what the environment gives, and an admin
from the environment cannot be denied from Telegram. An admin cannot deny themselves, nor the
last admin, so the bot always keeps someone who can manage it; `/deny` and the admins' page
both ask `deny`, so one rule serves both. Grants live in the access database and
are mirrored in memory, so the check every update meets costs no disk access; every change is
written first and mirrored once it is committed. The bot is the only writer of grants
(`python -m bot pair` only writes codes, which are read from the database at each attempt);
with several workers on PostgreSQL, a grant one worker changes is told to the others, which
read the mirror again (`AccessStore.watch`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Literal

from bot.settings.model import Settings
from bot.storage.access import (
    AccessRequest,
    AccessStore,
    Grant,
    LastAdmin,
    PairingOutcome,
    Person,
    RequestMessage,
    Settled,
    Via,
)
from bot.storage.audit import Action, AuditLog

DenyResult = Literal["self", "last_admin", "env_admin", "env_user", "removed", "not_granted"]
"""What a denial did: nothing (the admin named themselves, the last admin, or an admin from the
environment), removed the Telegram grant (but ALLOWED_USER_IDS still lets them in), removed it,
or found nothing to remove."""

REFUSED: frozenset[DenyResult] = frozenset({"self", "last_admin", "env_admin"})
"""The denials that change nothing because a rule forbids them."""


class AccessPolicy:
    """The environment's access lists and the grants made in Telegram, asked as one.

    Call `load` before the first update; `clock` gives Unix time (tests move it). Every grant
    and every grant taken away is written to `audit`, when there is one.
    """

    def __init__(
        self,
        settings: Settings,
        store: AccessStore,
        *,
        clock: Callable[[], float] = time.time,
        audit: AuditLog | None = None,
    ) -> None:
        self._settings = settings
        self._db = store
        self._clock = clock
        self._audit = audit
        self._grants: dict[int, Grant] = {}
        self._languages: dict[int, str] = {}
        self._denying = asyncio.Lock()

    async def load(self) -> None:
        """Read the grants and the admins' languages from the database."""
        await self._db.watch(self._reload)
        await self._reload()

    async def _reload(self) -> None:
        found, languages = await self._db.load()
        self._grants = {grant.person.user_id: grant for grant in found}
        self._languages = languages

    async def close(self) -> None:
        """Close the database."""
        await self._db.close()

    # --- decisions, from memory ------------------------------------------------------------
    def may_use(self, user_id: int) -> bool:
        """Whether this Telegram user may ask questions."""
        return self._settings.may_use(user_id) or user_id in self._grants

    def is_admin(self, user_id: int) -> bool:
        """Whether this Telegram user may add documents and run admin commands."""
        grant = self._grants.get(user_id)
        return self._settings.is_admin(user_id) or (grant is not None and grant.role == "admin")

    def may_answer_in_group(self, chat_id: int) -> bool:
        """Whether the bot may answer in this group chat: any group while ALLOWED_CHAT_IDS is
        empty, else only those listed. ALLOW_ALL speaks of people, never of groups."""
        listed = self._settings.allowed_chat_ids
        return not listed or chat_id in listed

    def admin_ids(self) -> frozenset[int]:
        """Every admin: ADMIN_IDS and those who paired."""
        paired = {uid for uid, grant in self._grants.items() if grant.role == "admin"}
        return self._settings.admin_ids | paired

    def has_admin(self) -> bool:
        """Whether anyone can run the admin commands yet."""
        return bool(self.admin_ids())

    @property
    def allow_all(self) -> bool:
        """ALLOW_ALL: everyone may use the bot."""
        return self._settings.allow_all

    @property
    def env_admins(self) -> frozenset[int]:
        """ADMIN_IDS."""
        return self._settings.admin_ids

    @property
    def env_users(self) -> frozenset[int]:
        """ALLOWED_USER_IDS."""
        return self._settings.allowed_user_ids

    def grants(self) -> list[Grant]:
        """Every grant made in Telegram, oldest first."""
        return sorted(self._grants.values(), key=lambda g: (g.granted_at, g.person.user_id))

    def granted(self, user_id: int) -> Grant | None:
        """The Telegram grant of one person, if any."""
        return self._grants.get(user_id)

    def language(self, user_id: int) -> str | None:
        """The language an admin last used, if known."""
        return self._languages.get(user_id)

    # --- changes, written first ------------------------------------------------------------
    async def remember_language(self, user_id: int, lang: str) -> None:
        """Keep the language an admin reads, for the access requests sent to them."""
        if self._languages.get(user_id) == lang:
            return
        await self._db.set_language(user_id, lang)
        self._languages[user_id] = lang

    async def issue_code(self) -> str:
        """A new pairing code; every earlier one stops working."""
        now = self._clock()
        return await self._db.issue_code(now)

    async def pair(self, person: Person, raw_code: str) -> PairingOutcome:
        """Try a pairing code (normalized); the right one makes `person` an admin."""
        now = self._clock()
        outcome = await self._db.redeem(person, raw_code, now)
        if outcome.grant is not None:
            self._grants[person.user_id] = outcome.grant
            await self._record("grant", outcome.grant, by=person, how="pairing")
        return outcome

    async def open_request(self, person: Person, lang: str) -> bool:
        """Record a stranger's request; False when they already asked within the period."""
        now = self._clock()
        return await self._db.open_request(person, lang, now)

    async def withdraw_request(self, user_id: int) -> None:
        """Forget a request that reached no admin."""
        await self._db.withdraw_request(user_id)

    async def note_request_message(self, user_id: int, message: RequestMessage) -> None:
        """Remember an admin's message with the request's buttons."""
        await self._db.note_request_message(user_id, message)

    async def pending_requests(self) -> list[AccessRequest]:
        """The requests waiting for an admin's decision, newest first: an admin who dismissed
        the request's message, or never got it, finds them here."""
        return await self._db.pending_requests(self._clock())

    async def decide(self, user_id: int, *, allow: bool, by: Person, via: Via) -> Settled:
        """Let a person in (or ignore their request), settling their pending request if any.

        A tap on a request that was settled already changes nothing; `/allow` (`via` command)
        lets the person in whatever became of their request.
        """
        now = self._clock()
        settled = await self._db.decide(user_id, allow=allow, by=by, via=via, now=now)
        if settled.grant is not None:
            self._grants[user_id] = settled.grant
            await self._record("grant", settled.grant, by=by, how=via)
        return settled

    async def deny(
        self, user_id: int, *, by: Person | None = None
    ) -> tuple[DenyResult, Grant | None]:
        """Take away access granted in Telegram, unless `by` names themselves or `user_id` is
        the last admin; the environment's lists are left as they are.

        One denial at a time: two admins denying each other at once leave one of them. The
        check here is against this worker's mirror; the store checks again as it removes, for
        the other workers' denials the mirror has not heard of yet.
        """
        async with self._denying:
            if by is not None and by.user_id == user_id:
                return "self", None
            if user_id in self._settings.admin_ids:
                return "env_admin", None
            if self.is_admin(user_id) and not self.admin_ids() - {user_id}:
                return "last_admin", None
            try:
                removed = await self._db.remove_grant(
                    user_id, keep_an_admin=not self._settings.admin_ids
                )
            except LastAdmin:
                return "last_admin", None
            self._grants.pop(user_id, None)
        if removed is not None:
            await self._record("revoke", removed, by=by, how="command")
        if user_id in self._settings.allowed_user_ids:
            return "env_user", removed
        return ("removed" if removed is not None else "not_granted"), removed

    async def forget(self, user_id: int) -> None:
        """Delete what the access database keeps about a person besides their grant: their
        access request, the admins' messages about it, their language."""
        await self._db.forget(user_id)
        self._languages.pop(user_id, None)

    async def _record(self, action: Action, grant: Grant, *, by: Person | None, how: str) -> None:
        """One grant made or taken away, in the audit log."""
        if self._audit is None:
            return
        person = grant.person
        detail = f"{grant.role}, {how}" + (f", {person.name}" if person.name else "")
        await self._audit.record(
            action,
            str(person.user_id),
            actor_id=by.user_id if by is not None else None,
            actor_name=by.name if by is not None else "",
            detail=detail,
        )
