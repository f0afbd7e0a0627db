"""Admins manage access from Telegram: `/allow ID`, `/deny ID`, `/users`, and request buttons.

The environment's lists always win: an admin from ADMIN_IDS cannot be denied here, and someone
in ALLOWED_USER_IDS keeps access until removed from `.env`. The commands work in private chats
only, so the list of people never lands in a group. A tap on a request's button is checked
here again (the access check lets every user through, admins or not): only admins decide.
"""

from __future__ import annotations

import logging

from aiogram import Bot, F, Router
from aiogram.filters import Command, CommandObject, MagicData
from aiogram.types import CallbackQuery, InaccessibleMessage, Message

from bot.access import AccessPolicy
from bot.telegram.access_requests import (
    DECISIONS,
    AccessDecision,
    AccessRequests,
    person_of,
    settled_already,
)
from bot.telegram.context import ChatContext
from bot.telegram.handlers.access_lists import users_listing
from bot.telegram.handlers.private import in_private, reply_with
from bot.telegram.handlers.replies import say
from bot.telegram.menu import take_admin_menu
from bot.telegram.tuning import Tuning

log = logging.getLogger(__name__)


def make_router() -> Router:
    """Admin-only commands (others fall through to the admin-only notice) and the buttons."""
    router = Router(name="access")
    router.callback_query.register(on_decision, AccessDecision.filter())
    router.message.filter(MagicData(F.is_admin))
    router.message.register(on_allow, Command("allow"), in_private)
    router.message.register(on_deny, Command("deny"), in_private)
    router.message.register(on_users, Command("users"), in_private)
    router.message.register(
        reply_with(lambda t: t.access_in_private), Command("allow", "deny", "users")
    )
    return router


def _target(command: CommandObject) -> int | None:
    """The user id a command names, or None when it names none."""
    argument = (command.args or "").strip()
    return int(argument) if argument.lstrip("-").isdigit() and len(argument) < 20 else None


async def _named_user(
    message: Message,
    command: CommandObject,
    name: str,
    *,
    bot: Bot,
    tuning: Tuning,
    chat_context: ChatContext,
) -> int | None:
    """The user id an admin's `/allow` or `/deny` names; None once the admin was told that
    it names none."""
    user_id = _target(command)
    if user_id is None or message.from_user is None:
        text = chat_context.texts.access_usage.format(command=name)
        await say(bot, chat_context, text, tuning)
        return None
    return user_id


async def on_allow(
    message: Message,
    command: CommandObject,
    *,
    bot: Bot,
    access: AccessPolicy,
    access_requests: AccessRequests,
    tuning: Tuning,
    chat_context: ChatContext,
) -> None:
    """Let someone in; a request they sent is settled and they are told."""
    texts = chat_context.texts
    user_id = await _named_user(
        message, command, "allow", bot=bot, tuning=tuning, chat_context=chat_context
    )
    if user_id is None or message.from_user is None:
        return
    shown = f"<code>{user_id}</code>"
    if access.is_admin(user_id) or user_id in access.env_users or access.granted(user_id):
        await say(bot, chat_context, texts.allow_already.format(id=shown), tuning)
        return
    admin = person_of(message.from_user)
    await access_requests.settle(bot, user_id, allow=True, by=admin, via="command")
    await say(bot, chat_context, texts.allow_done.format(id=shown), tuning)


async def on_deny(
    message: Message,
    command: CommandObject,
    *,
    bot: Bot,
    access: AccessPolicy,
    tuning: Tuning,
    chat_context: ChatContext,
) -> None:
    """Take away access granted in Telegram; say when `.env` still lets the person in."""
    texts = chat_context.texts
    user_id = await _named_user(
        message, command, "deny", bot=bot, tuning=tuning, chat_context=chat_context
    )
    if user_id is None or message.from_user is None:
        return
    if user_id == message.from_user.id:
        await say(bot, chat_context, texts.deny_self, tuning)
        return
    result, removed = await access.deny(user_id, by=person_of(message.from_user))
    log.info("admin %d denied user %d: %s", message.from_user.id, user_id, result)
    if removed is not None and removed.role == "admin":
        await take_admin_menu(bot, user_id)
    shown = f"<code>{user_id}</code>"
    reply = {
        "env_admin": texts.deny_env_admin,
        "env_user": texts.deny_env_user,
        "removed": texts.deny_done,
        "not_granted": texts.deny_not_granted,
    }[result].format(id=shown)
    if result == "removed" and access.allow_all:
        reply += "\n" + texts.deny_allow_all_note
    await say(bot, chat_context, reply, tuning)


async def on_users(
    message: Message, *, bot: Bot, access: AccessPolicy, tuning: Tuning, chat_context: ChatContext
) -> None:
    """Everyone who may use the bot: from `.env`, and granted in Telegram."""
    await say(bot, chat_context, users_listing(chat_context.texts, access), tuning)


async def on_decision(
    query: CallbackQuery,
    callback_data: AccessDecision,
    *,
    bot: Bot,
    is_admin: bool,
    access_requests: AccessRequests,
    chat_context: ChatContext,
) -> None:
    """A tap on "let in" or "ignore" under a request: the first admin's tap settles it."""
    texts = chat_context.texts
    allow = DECISIONS.get(callback_data.action)
    if not is_admin or allow is None:
        log.warning(
            "user %d pressed an access request button but may not decide", query.from_user.id
        )
        await query.answer(texts.admin_only, show_alert=True)
        return
    answer = await access_requests.answer(
        bot, callback_data.user_id, allow=allow, by=person_of(query.from_user)
    )
    earlier = answer.earlier
    if earlier is None:
        await query.answer()
        return
    await query.answer(settled_already(texts, earlier), show_alert=True)
    pressed = query.message
    if pressed is not None and not isinstance(pressed, InaccessibleMessage):
        for copy in answer.settled.messages:
            if (copy.chat_id, copy.message_id) == (pressed.chat.id, pressed.message_id):
                await access_requests.show_decision(bot, copy, earlier)
