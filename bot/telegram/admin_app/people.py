"""The people tab: who opened the page, who has access (and revoking it), who waits to be let
in, and letting someone in by their id.

A stranger's access request is answered through the same function as its buttons in Telegram
(`bot.telegram.access_requests`), so it is settled once, whichever comes first; letting someone
in by id goes the way `/allow` does.
"""

from __future__ import annotations

from collections.abc import Mapping

from aiohttp import web

from bot.telegram.access_requests import DECISIONS, settled_already
from bot.telegram.admin_app.desk import AdminDesk, Caller, bad, json_body, refusal
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
        caller = await self._desk.caller(request)
        body = await json_body(request, caller, "user_id", confirmed=True)
        user_id = _person_id(caller, body)
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
