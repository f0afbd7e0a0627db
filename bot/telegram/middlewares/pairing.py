"""Pairing, before access control: `/start CODE` in a private chat makes its sender an admin.

The owner of a fresh bot is a stranger to it, so the attempt must be read before the access
check, which stops strangers. This middleware reads only pairing attempts and ends them here:
an update it takes never reaches the access check or any handler, and every other update passes
on untouched. An attempt is a private message `/start CODE` from anyone, or, from someone
without access, a message that is only a code (`bot.storage.access.codes` says what looks like one,
so ordinary text from a stranger is never counted as a wrong code). A code is never logged.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware, Bot
from aiogram.exceptions import TelegramAPIError
from aiogram.types import Message, TelegramObject, Update, User

from bot.access import AccessPolicy, PairingOutcome
from bot.storage.access.codes import normalize
from bot.telegram.access_requests import person_of
from bot.telegram.addressing import parse_command
from bot.telegram.context import CHAT_CONTEXT, ChatContext
from bot.telegram.menu import give_admin_menu
from bot.telegram.texts import Texts

log = logging.getLogger(__name__)

Handler = Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]]


class PairingMiddleware(BaseMiddleware):
    """Outer update middleware, after the chat context and before access control."""

    def __init__(self, access: AccessPolicy, *, app_url: str | None = None) -> None:
        self._access = access
        self._app_url = app_url

    async def __call__(self, handler: Handler, event: TelegramObject, data: dict[str, Any]) -> Any:
        message = event.message if isinstance(event, Update) else None
        user: User | None = data.get("event_from_user")
        context: ChatContext | None = data.get(CHAT_CONTEXT)
        if message is None or user is None or user.is_bot or context is None:
            return await handler(event, data)
        if message.chat.type != "private":
            return await handler(event, data)
        code = self._code_in(message.text, user.id)
        if code is None:
            return await handler(event, data)
        await self._pair(message, user, code, data["bot"], context.texts)
        return None

    def _code_in(self, text: str | None, user_id: int) -> str | None:
        """The normalized code a message offers, or None when it is not a pairing attempt."""
        call = parse_command(text)
        if call is not None:
            return normalize(call.rest) if call.name == "start" and call.rest else None
        if self._access.may_use(user_id):
            return None  # a user's message shaped like a code is still a question
        return normalize(text or "")

    async def _pair(self, message: Message, user: User, code: str, bot: Bot, texts: Texts) -> None:
        if self._access.is_admin(user.id):
            await _reply(message, texts.pairing_already_admin)
            return
        try:
            outcome = await self._access.pair(person_of(user), code)
        except (sqlite3.Error, OSError):
            log.exception("pairing attempt of user %d failed", user.id)
            await _reply(message, texts.error_generic)
            return
        if outcome.result == "paired":
            log.warning("user %d is now an admin: they sent the pairing code", user.id)
            await _reply(message, texts.pairing_done)
            await give_admin_menu(bot, user.id, self._app_url)
            return
        await _reply(message, _refusal(texts, outcome))
        if outcome.result == "locked":
            log.warning(
                "pairing attempt of user %d refused: locked out for %.0f s after wrong codes",
                user.id,
                outcome.retry_after_s,
            )
        else:
            log.info("pairing attempt of user %d refused: %s code", user.id, outcome.result)


def _refusal(texts: Texts, outcome: PairingOutcome) -> str:
    if outcome.result == "expired":
        return texts.pairing_expired
    if outcome.result == "locked":
        return texts.pairing_locked_reply(outcome.retry_after_s)
    return texts.pairing_wrong_reply(outcome.attempts_left)


async def _reply(message: Message, html: str) -> None:
    try:
        await message.answer(html, parse_mode="HTML")
    except TelegramAPIError as exc:
        log.info("could not answer a pairing attempt in chat %d: %s", message.chat.id, exc)
