"""The tabs that report and change nothing: the chats' and topics' folders (from SCOPES_FILE and
set by `/scope`), the audit log, the votes per day, and this month's usage as `/usage` counts it.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

from aiohttp import web

from bot.budgets.periods import started, utc_offset_s
from bot.budgets.report import Spend, summarise
from bot.scopes import place_key
from bot.storage.audit import SHOWN
from bot.telegram.admin_app.desk import AdminDesk
from bot.telegram.handlers.usage import visible_pairs
from tools.jail.scope import Scope

FEEDBACK_DAYS = 14
"""How many days of votes the feedback tab shows, today the last."""


class ReportsApi:
    """The reports' routes; each public method is one route's handler."""

    def __init__(self, desk: AdminDesk) -> None:
        self._desk = desk

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


def _spent(spend: Spend) -> dict[str, Any]:
    """Tokens and money for the page; money is None when a model has no price, `estimated`
    says some of the tokens were the bot's estimate (the page marks them)."""
    tokens = spend.tokens
    return {
        "tokens": tokens.total,
        "prompt": tokens.prompt,
        "cached": tokens.cached,
        "completion": tokens.completion,
        "estimated": tokens.estimated > 0,
        "cost": spend.cost,
    }


def _folders(scope: Scope | None) -> list[str] | None:
    """A scope for the page: its folders, None for everything."""
    return None if scope is None else list(scope.folders)
