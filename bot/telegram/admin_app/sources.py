"""The sources tab: the mirrored sources as `/sources` shows them, and the confirmation of a
held-back mass deletion, as the question's "Delete them" button gives it.

Only the sources whose folders lie within the admin's own are listed or may be confirmed (one
outside is "no such source", as if it were not there). A source is named by its name, kind and
folder, never by its address or credentials; the last pass's error line is the engine's own,
worded without a secret.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from bot.documents.sources.runner import SourceStatus
from bot.settings.scopes.viewer import sees
from bot.telegram.admin_app.desk import AdminDesk, json_body, plain, refusal
from bot.telegram.handlers.source_sync import confirm_deletion, seen_statuses
from bot.telegram.texts.sources import SourcesTexts, sources_texts


class SourcesApi:
    """The sources' routes; each public method is one route's handler."""

    def __init__(self, desk: AdminDesk) -> None:
        self._desk = desk

    async def sources(self, request: web.Request) -> web.Response:
        caller = await self._desk.caller(request)
        texts = sources_texts(caller.lang)
        sources = self._desk.sources
        if sources is None:
            return web.json_response({"sources": [], "none": plain(texts.none)})
        statuses = await seen_statuses(sources, caller.scope)
        now = self._desk.clock()
        return web.json_response(
            {
                "sources": [_shown(status, texts, now) for status in statuses],
                "none": plain(texts.none_seen if sources.names else texts.none),
            }
        )

    async def confirm(self, request: web.Request) -> web.Response:
        """`{"name", "token", "confirmed": true}`: the held-back set `token` names is deleted by
        the source's next pass, woken now; written to the audit log as the admin's."""
        caller = await self._desk.caller(request)
        body = await json_body(request, caller, "name", "token", confirmed=True)
        texts = sources_texts(caller.lang)
        sources = self._desk.sources
        name = body["name"]
        if sources is None or name not in sources.names:
            raise refusal(web.HTTPNotFound, texts.unknown)
        status = await sources.status(name)
        if not sees(caller.scope, status.folder):
            raise refusal(web.HTTPNotFound, texts.unknown)
        person = caller.person
        outcome = await confirm_deletion(
            sources,
            status,
            body["token"],
            audit=self._desk.audit,
            actor_id=person.user_id,
            actor_name=person.name,
        )
        said = {"confirmed": texts.confirmed, "stale": texts.stale, "unknown": texts.unknown}
        return web.json_response({"result": outcome, "text": plain(said[outcome])})


def _shown(status: SourceStatus, texts: SourcesTexts, now: float) -> dict[str, Any]:
    """One source for the page: its facts, and its block as `/sources` words it (plain)."""
    last = status.last
    pending = status.pending
    return {
        "name": status.name,
        "kind": status.kind,
        "folder": status.folder,
        "every_s": status.every_s,
        "last_success": status.last_success,
        "last": None
        if last is None
        else {
            "at": last.at,
            "added": last.added,
            "changed": last.changed,
            "moved": last.moved,
            "removed": last.removed,
            "ok": last.ok,
            "error": last.error,
        },
        "pending": None
        if pending is None
        else {"count": pending.count, "total": pending.total, "token": pending.token},
        "lines": plain(texts.block(status, now=now)).splitlines(),
    }
