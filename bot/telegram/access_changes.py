"""An admin's change of someone's access, the same from both doors: `/allow ID` and `/deny ID`
in Telegram, and the admins' page.

Who may be denied is the policy's rule (`AccessPolicy.deny`); what a change does in Telegram
besides is here: a person let in has their request settled and is told
(`AccessRequests.settle`), a denied admin loses the admin menu and the page's button, and the
admin who made the change is told what became of it, in the same words from either door.
"""

from __future__ import annotations

import html
import logging

from aiogram import Bot

from bot.access import MAX_USER_ID, AccessPolicy, DenyResult, Person
from bot.telegram.access_requests import AccessRequests
from bot.telegram.menu import take_admin_menu
from bot.telegram.texts import Texts

log = logging.getLogger(__name__)

_SHOWN_CHARS = 32
"""How much of a value that is not a user id is quoted back."""


def has_access(access: AccessPolicy, user_id: int) -> bool:
    """Whether `user_id` may use the bot already: an admin, listed, or granted."""
    return access.is_admin(user_id) or user_id in access.env_users or bool(access.granted(user_id))


async def allow(
    bot: Bot, access: AccessPolicy, requests: AccessRequests, user_id: int, *, by: Person
) -> bool:
    """Let `user_id` in, settling a request they sent and telling them; False when they may
    use the bot already, and nothing changed."""
    if has_access(access, user_id):
        return False
    await requests.settle(bot, user_id, allow=True, by=by, via="command")
    return True


async def deny(bot: Bot, access: AccessPolicy, user_id: int, *, by: Person) -> DenyResult:
    """Take `user_id`'s access granted in Telegram away, as far as the policy allows; an admin
    denied loses the admin menu (and the page's button) at once."""
    result, removed = await access.deny(user_id, by=by)
    log.info("admin %d denied user %d: %s", by.user_id, user_id, result)
    if removed is not None and removed.role == "admin":
        await take_admin_menu(bot, user_id)
    return result


def deny_reply(texts: Texts, result: DenyResult, user_id: int, *, allow_all: bool) -> str:
    """What the admin who denied `user_id` is told (HTML)."""
    reply = {
        "self": texts.deny_self,
        "last_admin": texts.deny_last_admin,
        "env_admin": texts.deny_env_admin,
        "env_user": texts.deny_env_user,
        "removed": texts.deny_done,
        "not_granted": texts.deny_not_granted,
    }[result].format(id=f"<code>{user_id}</code>")
    if result == "removed" and allow_all:
        reply += "\n" + texts.deny_allow_all_note
    return reply


def bad_user_id(texts: Texts, value: object) -> str:
    """What an admin who named something that is no Telegram user id is told (HTML)."""
    shown = str(value)
    if len(shown) > _SHOWN_CHARS:
        shown = shown[:_SHOWN_CHARS] + "…"
    return texts.access_bad_id.format(value=f"<code>{html.escape(shown)}</code>", max=MAX_USER_ID)
