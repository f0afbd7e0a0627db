"""The JSON the admins' page asks for, and the changes it makes, each through the services the
commands use (who may call and how a refusal looks are `desk`'s).

As `/rm`, `/mv`, `/trash` and an upload in the admin's private chat would, the documents they
list, move, delete, restore and upload go through the same jail and services as the commands
(`bot.documents`, the upload's saving), and each change is written to the audit log. A
stranger's access request is answered through the same function as its buttons in Telegram, so
it is settled once, whichever comes first.
"""

from __future__ import annotations

import asyncio
import html
import logging
import re
import sqlite3
from collections import Counter
from collections.abc import AsyncGenerator, Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from aiohttp import BodyPartReader, web

from bot.budgets.periods import started, utc_offset_s
from bot.budgets.report import Spend, summarise
from bot.documents import DocumentError
from bot.scopes import place_key
from bot.storage.audit import SHOWN
from bot.telegram.access_requests import DECISIONS, settled_already
from bot.telegram.admin_app.desk import AdminDesk, Caller, bad, json_body, refusal
from bot.telegram.handlers.usage import visible_pairs
from bot.telegram.texts import texts_for
from bot.telegram.uploads import UploadError, safe_file_name, save_stream, upload_problem
from tools.jail.scope import Scope

log = logging.getLogger(__name__)

FEEDBACK_DAYS = 14
_CHUNK = 64 * 1024
_TAG = re.compile(r"<[^>]+>")


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

    async def documents(self, request: web.Request) -> web.Response:
        caller = await self._desk.caller(request)
        states = await _in_thread(self._desk.toolbox.document_states, caller.scope)
        return web.json_response(
            {
                "documents": [
                    {"path": s.path, "size": s.size, "state": s.state, "error": s.error}
                    for s in states
                ]
            }
        )

    async def trash(self, request: web.Request) -> web.Response:
        caller = await self._desk.caller(request)
        items = await self._desk.documents.trashed(caller.scope)
        return web.json_response(
            {
                "items": [
                    {"id": i.item_id, "path": i.path, "deleted_at": i.deleted_at, "dir": i.is_dir}
                    for i in items
                ]
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

    async def move(self, request: web.Request) -> web.Response:
        caller = await self._desk.caller(request)
        body = await json_body(request, caller, "source", "target")
        try:
            moved = await self._desk.documents.move(body["source"], body["target"], caller.scope)
        except DocumentError as exc:
            raise self._problem(caller, exc) from None
        person = caller.person
        await self._desk.audit.record(
            "move",
            moved.source,
            detail=moved.target,
            actor_id=person.user_id,
            actor_name=person.name,
        )
        return web.json_response({"source": moved.source, "target": moved.target})

    async def delete(self, request: web.Request) -> web.Response:
        caller = await self._desk.caller(request)
        body = await json_body(request, caller, "path", confirmed=True)
        person = caller.person
        try:
            item = await self._desk.documents.delete(
                body["path"], by=person.user_id, scope=caller.scope
            )
        except DocumentError as exc:
            raise self._problem(caller, exc) from None
        await self._desk.audit.record(
            "delete", item.path, actor_id=person.user_id, actor_name=person.name
        )
        return web.json_response({"path": item.path, "id": item.item_id})

    async def restore(self, request: web.Request) -> web.Response:
        caller = await self._desk.caller(request)
        body = await json_body(request, caller, "id")
        try:
            item = await self._desk.documents.restore(body["id"], caller.scope)
        except DocumentError as exc:
            raise self._problem(caller, exc) from None
        if item is None:
            raise refusal(web.HTTPNotFound, texts_for(caller.lang).restore_gone)
        person = caller.person
        await self._desk.audit.record(
            "restore", item.path, actor_id=person.user_id, actor_name=person.name
        )
        return web.json_response({"path": item.path})

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

    async def upload(self, request: web.Request) -> web.Response:
        """A multipart form: `folder` (optional, first) and `file`; saved as a sent document
        is, within the admin's scope."""
        caller = await self._desk.caller(request)
        try:
            reader = await request.multipart()
        except (AssertionError, ValueError):  # aiohttp asserts on a body that is not multipart
            raise bad(caller, "multipart/form-data") from None
        folder: str | None = None
        while (part := await reader.next()) is not None:
            if not isinstance(part, BodyPartReader):
                raise bad(caller, "multipart/form-data")
            if part.name == "folder":
                folder = (await part.text()).strip() or None
            elif part.name == "file":
                saved = await self._save(caller, part, folder)
                person = caller.person
                await self._desk.audit.record(
                    "upload", saved["path"], actor_id=person.user_id, actor_name=person.name
                )
                return web.json_response(saved)
        raise bad(caller, "file")

    async def _save(
        self, caller: Caller, part: BodyPartReader, folder: str | None
    ) -> dict[str, Any]:
        async def chunks() -> AsyncGenerator[bytes, None]:
            while chunk := await part.read_chunk(_CHUNK):
                yield chunk

        texts = texts_for(caller.lang)
        max_mb = self._desk.max_upload_mb
        try:
            saved = await save_stream(
                chunks(),
                part.filename,
                folder,
                self._desk.toolbox,
                max_mb,
                scope=caller.scope,
            )
        except UploadError as exc:
            log.warning("admin app: upload of %r refused: %s", part.filename, exc)
            name = safe_file_name(part.filename, None)
            text = upload_problem(texts, exc, max_mb, folder, scope=caller.scope, name=name)
            raise refusal(web.HTTPBadRequest, _plain(text)) from None
        return {"path": saved.path, "chars": saved.chars, "error": saved.error}

    def _problem(self, caller: Caller, exc: DocumentError) -> web.HTTPException:
        texts = texts_for(caller.lang)
        if exc.problem == "exists" and exc.path:
            text = texts.restore_conflict.format(path=exc.path)
        else:
            text = texts.path_problem(exc.problem, exc.path)
        return refusal(web.HTTPConflict, _plain(text))


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


def _plain(text: str) -> str:
    """The bot's HTML message as plain text: the page shows text, never markup."""
    return html.unescape(_TAG.sub("", text))


async def _in_thread(function: Callable[[Scope | None], Any], scope: Scope | None) -> Any:
    try:
        return await asyncio.to_thread(function, scope)
    except sqlite3.Error:
        log.exception("admin app: the index could not be read")
        raise refusal(web.HTTPServiceUnavailable, "index unavailable") from None
