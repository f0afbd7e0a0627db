"""Admins manage access from Telegram: `/allow ID`, `/deny ID`, `/users`, and request buttons.

The environment's lists always win: an admin from ADMIN_IDS cannot be denied here, and someone
in ALLOWED_USER_IDS keeps access until removed from `.env`; nor can an admin deny themselves or
the last admin. The admins' page changes access the same way (`bot.telegram.access_changes`).
The commands work in private chats
only, so the list of people never lands in a group. A tap on a request's button is checked
here again (the access check lets every user through, admins or not): only admins decide.
"""

from __future__ import annotations

import logging

from aiogram import Bot, F, Router
from aiogram.filters import Command, CommandObject, MagicData
from aiogram.types import CallbackQuery, InaccessibleMessage, Message

from bot.access import AccessPolicy, user_id_of
from bot.telegram.access_changes import allow, bad_user_id, deny, deny_reply
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
    it names none: how to name one, or that the number is no Telegram user id."""
    argument = (command.args or "").strip()
    user_id = user_id_of(argument)
    if user_id is None or message.from_user is None:
        texts = chat_context.texts
        if argument.lstrip("-").isdecimal():
            text = bad_user_id(texts, argument)
        else:
            text = texts.access_usage.format(command=name)
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
    admin = person_of(message.from_user)
    let_in = await allow(bot, access, access_requests, user_id, by=admin)
    reply = texts.allow_done if let_in else texts.allow_already
    await say(bot, chat_context, reply.format(id=f"<code>{user_id}</code>"), tuning)


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
    user_id = await _named_user(
        message, command, "deny", bot=bot, tuning=tuning, chat_context=chat_context
    )
    if user_id is None or message.from_user is None:
        return
    result = await deny(bot, access, user_id, by=person_of(message.from_user))
    reply = deny_reply(chat_context.texts, result, user_id, allow_all=access.allow_all)
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
    let_in = DECISIONS.get(callback_data.action)
    if not is_admin or let_in is None:
        log.warning(
            "user %d pressed an access request button but may not decide", query.from_user.id
        )
        await query.answer(texts.admin_only, show_alert=True)
        return
    user_id = user_id_of(callback_data.user_id)
    if user_id is None:  # no button of ours carries it: the data was made up
        log.warning("admin %d sent a request button of no user", query.from_user.id)
        await query.answer()
        return
    answer = await access_requests.answer(
        bot, user_id, allow=let_in, by=person_of(query.from_user)
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
