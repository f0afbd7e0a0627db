"""What every endpoint of the admins' page shares: the objects it works with, who is calling,
and how a request is refused.

Every request carries the page's `initData` (`Authorization: tma <initData>`): a request
without a valid, fresh one gets 401, and one from someone who is not an admin 403, before
anything is read. An admin then works within the scope they are answered within in their
private chat with the bot, as the commands there would. A change the page asks for comes as a
JSON object; a delete or a revoke must say it was confirmed (the page asks first), as the
commands' "Yes" button does. A refusal comes back as `{"error": "..."}` in the admin's language.
"""

from __future__ import annotations

import html
import json
import logging
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from aiogram import Bot
from aiohttp import web

from bot.access import AccessPolicy
from bot.documents.manager import Documents
from bot.documents.sources.runner import Sources
from bot.settings.budgets import Budgets
from bot.settings.scopes import Scopes
from bot.storage.access import Person
from bot.storage.audit import AuditLog
from bot.storage.feedback import FeedbackStore
from bot.telegram.access_requests import AccessRequests
from bot.telegram.admin_app.init_data import (
    MAX_AGE_S,
    InitDataError,
    Opener,
    init_data_of,
    opener,
)
from bot.telegram.texts import language_of
from bot.telegram.texts.admin_app import app_texts
from tools import Toolbox
from tools.jail.scope import Scope

log = logging.getLogger(__name__)

_TAG = re.compile(r"<[^>]+>")


@dataclass(frozen=True, slots=True)
class Caller:
    """An admin the request proved to come from, their language and their scope."""

    opener: Opener
    lang: str
    scope: Scope | None

    @property
    def words(self) -> Mapping[str, str]:
        return app_texts(self.lang)

    @property
    def person(self) -> Person:
        return Person(self.opener.user_id, self.opener.name)


@dataclass(frozen=True, slots=True)
class AdminDesk:
    """What the page works with: the same objects the commands are given."""

    token: str = field(repr=False)
    access: AccessPolicy
    access_requests: AccessRequests
    """Carries out decisions as the commands and the request buttons do."""
    bot: Bot
    """Tells a person let in from the page, and edits the admins' request messages."""
    scopes: Scopes
    documents: Documents
    audit: AuditLog
    toolbox: Toolbox
    feedback: FeedbackStore | None
    max_upload_mb: float
    budgets: Budgets | None = None
    sources: Sources | None = None
    """The mirrored sources (SOURCES_FILE), as `/sources` reads them."""
    clock: Callable[[], float] = time.time
    max_age_s: float = MAX_AGE_S

    async def caller(self, request: web.Request) -> Caller:
        """The admin a request comes from, or the refusal it gets."""
        init_data = init_data_of(request.headers.get("Authorization", ""))
        lang = language_of(request.headers.get("Accept-Language"))
        try:
            who = opener(self.token, init_data, now=self.clock(), max_age_s=self.max_age_s)
        except InitDataError as exc:
            log.info("admin app: a request refused (%s)", exc.problem)
            raise refusal(web.HTTPUnauthorized, app_texts(lang)["error_auth"]) from None
        lang = language_of(who.language_code)
        if not self.access.is_admin(who.user_id):
            log.info("admin app: user %d is not an admin", who.user_id)
            raise refusal(web.HTTPForbidden, app_texts(lang)["error_admin"])
        scope = await self.scopes.for_question(who.user_id, who.user_id)
        return Caller(who, lang, scope)


async def json_body(
    request: web.Request, caller: Caller, *fields: str, confirmed: bool = False
) -> dict[str, str]:
    """The request's JSON object with `fields` as strings; a refusal when it is not.

    The body is read as UTF-8, as JSON is written, whatever charset the request names.
    """
    try:
        body = json.loads((await request.read()).decode("utf-8"))
    except (ValueError, RecursionError):  # not UTF-8, not JSON, or nested deeper than parsed
        raise bad(caller, "JSON") from None
    if not isinstance(body, dict):
        raise bad(caller, "JSON object")
    if confirmed and body.get("confirmed") is not True:
        raise refusal(web.HTTPBadRequest, caller.words["error_confirm"])
    values = {}
    for name in fields:
        value = body.get(name)
        if not isinstance(value, str | int) or isinstance(value, bool) or value == "":
            raise bad(caller, name)
        values[name] = str(value)
    return values


def bad(caller: Caller, detail: str) -> web.HTTPException:
    """A 400 saying which part of the request (`detail`) is missing or wrong."""
    return refusal(web.HTTPBadRequest, caller.words["error_bad_request"].format(detail=detail))


def refusal(status: type[web.HTTPException], text: str, **more: Any) -> web.HTTPException:
    """The error to raise: `{"error": text, **more}` with `status`, so the page can show it."""
    return status(text=_json_text({"error": text, **more}), content_type="application/json")


def plain(text: str) -> str:
    """The bot's HTML message as plain text: the page shows text, never markup."""
    return html.unescape(_TAG.sub("", text))


def _json_text(body: Mapping[str, Any]) -> str:
    return json.dumps(body, ensure_ascii=False)
