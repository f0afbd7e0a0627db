"""The JSON the admins' page asks for, and the changes it makes, each through the services the
commands use (who may call and how a refusal looks are `desk`'s, the documents `documents`').

A stranger's access request is answered through the same function as its buttons in Telegram, so
it is settled once, whichever comes first.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from aiohttp import web

from bot.budgets.periods import started, utc_offset_s
from bot.budgets.report import Spend, summarise
from bot.scopes import place_key
from bot.storage.audit import SHOWN
from bot.telegram.access_requests import DECISIONS, settled_already
from bot.telegram.admin_app.desk import AdminDesk, Caller, bad, json_body, refusal
from bot.telegram.handlers.usage import visible_pairs
from bot.telegram.texts import texts_for
from tools.jail.scope import Scope

FEEDBACK_DAYS = 14


class AdminApi:
    """The page's API; each public method is one route's handler."""

    def __init__(self, desk: AdminDesk) -> None:
        self._desk = desk

    # -- reading -------------------------------------------------------------------------------

    async def me(self, request: web.Request) -> web.Response:
        caller = await self._desk.caller(request)
        scope = caller.scope
        return web.json_response(
            {
                "name": caller.opener.name,
                "lang": caller.lang,
                "texts": dict(caller.words),
                "scope": None if scope is None else list(scope.folders),
            }
        )

    async def users(self, request: web.Request) -> web.Response:
        await self._desk.caller(request)
        access = self._desk.access
        grants = [
            {
                "id": g.person.user_id,
                "name": g.person.name,
                "username": g.person.username,
                "role": g.role,
                "granted_at": g.granted_at,
                "granted_by": g.granted_by.name if g.granted_by else None,
            }
            for g in access.grants()
        ]
        return web.json_response(
            {
                "env_admins": sorted(access.env_admins),
                "env_users": sorted(access.env_users),
                "grants": grants,
            }
        )

    async def waiting(self, request: web.Request) -> web.Response:
        """The access requests no admin has answered yet, newest first."""
        await self._desk.caller(request)
        waiting = await self._desk.access.pending_requests()
        return web.json_response(
            {
                "requests": [
                    {
                        "id": r.person.user_id,
                        "name": r.person.name,
                        "username": r.person.username,
                        "requested_at": r.requested_at,
                        "lang": r.lang,
                    }
                    for r in waiting
                ]
            }
        )

    async def scopes(self, request: web.Request) -> web.Response:
        await self._desk.caller(request)
        rules = self._desk.scopes.rules
        entries = [{"key": str(k), "folders": _folders(s)} for k, s in rules.by_id.items()]
        entries += [
            {"key": place_key(chat, topic), "folders": _folders(s)}
            for (chat, topic), s in rules.by_topic.items()
        ]
        overrides = await self._desk.scopes.store.chat_overrides()
        return web.json_response(
            {
                "file": {
                    "configured": rules.configured,
                    "default": _folders(rules.default),
                    "entries": entries,
                },
                "set": [
                    {
                        "place": place_key(o.chat_id, o.thread_id),
                        "folders": _folders(o.scope),
                        "by": o.set_by_name or str(o.set_by),
                        "at": o.set_at,
                    }
                    for o in overrides
                ],
            }
        )

    async def audit(self, request: web.Request) -> web.Response:
        await self._desk.caller(request)
        entries = await self._desk.audit.recent(SHOWN)
        return web.json_response(
            {
                "entries": [
                    {
                        "at": e.at,
                        "actor": e.actor_name or (str(e.actor_id) if e.actor_id else ""),
                        "action": e.action,
                        "subject": e.subject,
                        "detail": e.detail,
                    }
                    for e in entries
                ]
            }
        )

    async def feedback(self, request: web.Request) -> web.Response:
        await self._desk.caller(request)
        store = self._desk.feedback
        now = self._desk.clock()
        today = datetime.fromtimestamp(now, UTC).date()
        days = [today - timedelta(days=n) for n in reversed(range(FEEDBACK_DAYS))]
        first = datetime(days[0].year, days[0].month, days[0].day, tzinfo=UTC).timestamp()
        votes = await store.votes_since(first) if store is not None else []
        counted = Counter((datetime.fromtimestamp(at, UTC).date(), vote) for at, vote in votes)
        return web.json_response(
            {
                "days": [
                    {"day": d.isoformat(), "up": counted[(d, "up")], "down": counted[(d, "down")]}
                    for d in days
                ]
            }
        )

    async def usage(self, request: web.Request) -> web.Response:
        """This month's tokens (and money, where every model has a price) within the admin's
        scope, as `/usage` reports them: per day, per model, the top people and chats."""
        caller = await self._desk.caller(request)
        budgets = self._desk.budgets
        if budgets is None:
            return web.json_response({"month": None, "days": [], "models": [], "total": None})
        limits = budgets.limits
        now = self._desk.clock()
        since = started(now, "month", limits.zone)
        sums = await budgets.store.sums(since, utc_offset_s=utc_offset_s(now, limits.zone))
        visible = await visible_pairs(self._desk.scopes, caller.scope, sums)
        first = datetime.fromtimestamp(since, tz=limits.zone).date()
        summary = summarise(
            limits,
            sums,
            first_day=first,
            last_day=datetime.fromtimestamp(now, tz=limits.zone).date(),
            keep=lambda one: (one.user_id, one.chat_id) in visible,
        )
        return web.json_response(
            {
                "month": f"{first:%Y-%m}",
                "currency": limits.currency,
                "total": _spent(summary.total),
                "days": [{"day": d.isoformat(), **_spent(s)} for d, s in summary.days],
                "models": [{"model": m, **_spent(s)} for m, s in summary.models],
                "users": [{"id": u, **_spent(s)} for u, s in summary.users],
                "chats": [{"id": c, **_spent(s)} for c, s in summary.chats],
            }
        )

    # -- changing ------------------------------------------------------------------------------

    async def revoke(self, request: web.Request) -> web.Response:
        caller = await self._desk.caller(request)
        body = await json_body(request, caller, "user_id", confirmed=True)
        try:
            user_id = int(body["user_id"])
        except ValueError:
            raise bad(caller, "user_id") from None
        result, _ = await self._desk.access.deny(user_id, by=caller.person)
        return web.json_response({"result": result})

    async def allow(self, request: web.Request) -> web.Response:
        """Let a person in by their numeric id, as `/allow ID` does: a request they sent is
        settled, the admins' copies of it updated, and they are told."""
        caller = await self._desk.caller(request)
        body = await json_body(request, caller, "user_id")
        user_id = _person_id(caller, body)
        desk = self._desk
        access = desk.access
        if access.is_admin(user_id) or user_id in access.env_users or access.granted(user_id):
            return web.json_response({"result": "already"})
        await desk.access_requests.settle(
            desk.bot, user_id, allow=True, by=caller.person, via="command"
        )
        return web.json_response({"result": "allowed"})

    async def answer(self, request: web.Request) -> web.Response:
        """Let in or ignore a waiting request (`action`: allow or ignore), as its buttons in
        Telegram do: the first answer settles it, edits every admin's copy and tells a person
        let in; one that comes after another admin's gets 409 saying who answered. With no
        request at all, "allow" lets the person in as a button would, "ignore" gets 404."""
        caller = await self._desk.caller(request)
        body = await json_body(request, caller, "user_id", "action")
        user_id = _person_id(caller, body)
        allow = DECISIONS.get(body["action"])
        if allow is None:
            raise bad(caller, "action")
        desk = self._desk
        answer = await desk.access_requests.answer(
            desk.bot, user_id, allow=allow, by=caller.person
        )
        earlier = answer.earlier
        if earlier is not None:
            raise refusal(
                web.HTTPConflict,
                settled_already(texts_for(caller.lang), earlier),
                decision=earlier.decision,
                decided_by=earlier.decided_by_name,
            )
        settled = answer.settled
        if settled.request is None and settled.grant is None:
            raise refusal(web.HTTPNotFound, caller.words["error_no_request"].format(id=user_id))
        return web.json_response({"result": "allowed" if allow else "ignored"})


def _person_id(caller: Caller, body: Mapping[str, str]) -> int:
    """The Telegram user id a request's body names; a refusal when it names none."""
    try:
        user_id = int(body["user_id"])
    except ValueError:
        raise bad(caller, "user_id") from None
    if user_id <= 0:
        raise bad(caller, "user_id")
    return user_id


def _spent(spend: Spend) -> dict[str, Any]:
    """Tokens and money for the page; money is None when a model has no price."""
    tokens = spend.tokens
    return {
        "tokens": tokens.total,
        "prompt": tokens.prompt,
        "cached": tokens.cached,
        "completion": tokens.completion,
        "cost": spend.cost,
    }


def _folders(scope: Scope | None) -> list[str] | None:
    """A scope for the page: its folders, None for everything."""
    return None if scope is None else list(scope.folders)
