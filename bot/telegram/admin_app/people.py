"""The people tab: who opened the page, who has access (and revoking it), who waits to be let
in, and letting someone in by their id.

A stranger's access request is answered through the same function as its buttons in Telegram
(`bot.telegram.access_requests`), so it is settled once, whichever comes first; letting someone
in by id and revoking go the way `/allow` and `/deny` do (`bot.telegram.access_changes`), under
the same rules (an admin cannot revoke themselves or the last admin) and in the same words.
A user id must be a Telegram user id (`bot.access.user_id_of`), else 400 saying so.
"""

from __future__ import annotations

from collections.abc import Mapping

from aiohttp import web

from bot.access import REFUSED, user_id_of
from bot.telegram.access_changes import allow, bad_user_id, deny, deny_reply
from bot.telegram.access_requests import DECISIONS, settled_already
from bot.telegram.admin_app.desk import AdminDesk, Caller, bad, json_body, plain, refusal
from bot.telegram.texts import texts_for


class PeopleApi:
    """The people's routes, and the page's first call (`me`); each public method is one
    route's handler."""

    def __init__(self, desk: AdminDesk) -> None:
        self._desk = desk

    async def me(self, request: web.Request) -> web.Response:
        """The page's first call: who opened it, in which language, the page's words in it and
        the folders they work within."""
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

    async def revoke(self, request: web.Request) -> web.Response:
        """Take a person's access away, as `/deny ID` does: `result` says what became of it,
        `text` says it in the admin's words; one the rules refuse gets 409 saying why."""
        caller = await self._desk.caller(request)
        body = await json_body(request, caller, "user_id", confirmed=True)
        user_id = _person_id(caller, body)
        desk = self._desk
        result = await deny(desk.bot, desk.access, user_id, by=caller.person)
        texts = texts_for(caller.lang)
        text = plain(deny_reply(texts, result, user_id, allow_all=desk.access.allow_all))
        if result in REFUSED:
            raise refusal(web.HTTPConflict, text, result=result)
        return web.json_response({"result": result, "text": text})

    async def allow(self, request: web.Request) -> web.Response:
        """Let a person in by their numeric id, as `/allow ID` does: a request they sent is
        settled, the admins' copies of it updated, and they are told."""
        caller = await self._desk.caller(request)
        body = await json_body(request, caller, "user_id")
        user_id = _person_id(caller, body)
        desk = self._desk
        let_in = await allow(
            desk.bot, desk.access, desk.access_requests, user_id, by=caller.person
        )
        return web.json_response({"result": "allowed" if let_in else "already"})

    async def answer(self, request: web.Request) -> web.Response:
        """Let in or ignore a waiting request (`action`: allow or ignore), as its buttons in
        Telegram do: the first answer settles it, edits every admin's copy and tells a person
        let in; one that comes after another admin's gets 409 saying who answered. With no
        request at all, "allow" lets the person in as a button would, "ignore" gets 404."""
        caller = await self._desk.caller(request)
        body = await json_body(request, caller, "user_id", "action")
        user_id = _person_id(caller, body)
        let_in = DECISIONS.get(body["action"])
        if let_in is None:
            raise bad(caller, "action")
        desk = self._desk
        answer = await desk.access_requests.answer(
            desk.bot, user_id, allow=let_in, by=caller.person
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
        return web.json_response({"result": "allowed" if let_in else "ignored"})


def _person_id(caller: Caller, body: Mapping[str, str]) -> int:
    """The Telegram user id a request's body names; a 400 saying so when it names none."""
    user_id = user_id_of(body["user_id"])
    if user_id is None:
        text = plain(bad_user_id(texts_for(caller.lang), body["user_id"]))
        raise refusal(web.HTTPBadRequest, text)
    return user_id
