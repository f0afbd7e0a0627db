"""The tabs that report and change nothing: the chats' and topics' folders (from SCOPES_FILE and
set by `/scope`), the audit log, the votes per day, and this month's usage as `/usage` counts it.

Each names only what lies within the admin's own folders, by the same rules as the commands:
a scope entry (the file's default included) is listed when all its folders are inside them, the
audit log as `/audit` filters it, the usage as `/usage` does.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

from aiohttp import web

from bot.settings.budgets.periods import started, utc_offset_s
from bot.settings.budgets.report import Spend, summarise
from bot.settings.scopes import place_key
from bot.settings.scopes.viewer import sees_scope
from bot.telegram.admin_app.desk import AdminDesk
from bot.telegram.handlers.audit import seen_entries
from bot.telegram.handlers.usage import place_of, visible_places
from tools.jail.scope import Scope

FEEDBACK_DAYS = 14
"""How many days of votes the feedback tab shows, today the last."""


class ReportsApi:
    """The reports' routes; each public method is one route's handler."""

    def __init__(self, desk: AdminDesk) -> None:
        self._desk = desk

    async def scopes(self, request: web.Request) -> web.Response:
        caller = await self._desk.caller(request)
        viewer = caller.scope
        rules = self._desk.scopes.rules
        entries = [
            {"key": str(k), "folders": _folders(s)}
            for k, s in rules.by_id.items()
            if sees_scope(viewer, s)
        ]
        entries += [
            {"key": place_key(chat, topic), "folders": _folders(s)}
            for (chat, topic), s in rules.by_topic.items()
            if sees_scope(viewer, s)
        ]
        overrides = await self._desk.scopes.store.chat_overrides()
        overrides = [o for o in overrides if sees_scope(viewer, o.scope)]
        file: dict[str, Any] = {"configured": rules.configured, "entries": entries}
        if sees_scope(viewer, rules.default):
            file["default"] = _folders(rules.default)
        return web.json_response(
            {
                "file": file,
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
        caller = await self._desk.caller(request)
        entries = await seen_entries(self._desk.audit, caller.scope)
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
        visible = await visible_places(self._desk.scopes, caller.scope, sums)
        first = datetime.fromtimestamp(since, tz=limits.zone).date()
        summary = summarise(
            limits,
            sums,
            first_day=first,
            last_day=datetime.fromtimestamp(now, tz=limits.zone).date(),
            keep=lambda one: place_of(one) in visible,
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
