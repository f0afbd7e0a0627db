"""Access control: the first check every update meets, before any handler or other middleware.

Only the update's `ChatContext` is worked out before it, so refusals come in the sender's
language.

Users listed in ALLOWED_USER_IDS or ADMIN_IDS (or everyone with ALLOW_ALL) pass, with
`is_admin` added to the handler data. A stranger who writes to the bot learns their numeric id
and how to ask for access, and nothing else; updates without a sender are dropped.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware, Bot
from aiogram.exceptions import TelegramAPIError
from aiogram.types import Message, TelegramObject, Update, User

from bot.config import Settings
from bot.telegram.addressing import addressed_to_bot
from bot.telegram.context import CHAT_CONTEXT, ChatContext
from bot.telegram.middlewares.notices import NoticeCooldown
from bot.telegram.texts import Texts

log = logging.getLogger(__name__)

Handler = Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]]


class AccessMiddleware(BaseMiddleware):
    """Outer update middleware: lets known users through and answers strangers once a minute.

    In groups outside ALLOWED_CHAT_IDS (when set) and for messages posted as a chat (anonymous
    admins, "send as channel") a mention gets one short notice per chat per period.
    """

    def __init__(self, settings: Settings, *, notice_period_s: float = 60.0) -> None:
        self._settings = settings
        self._notices = NoticeCooldown(notice_period_s)
        self._chat_notices = NoticeCooldown(notice_period_s)

    async def __call__(self, handler: Handler, event: TelegramObject, data: dict[str, Any]) -> Any:
        user: User | None = data.get("event_from_user")
        context: ChatContext | None = data.get(CHAT_CONTEXT)
        message = event.message if isinstance(event, Update) else None
        if user is None:
            return None
        if message is not None and context is not None and context.is_group:
            if message.sender_chat is not None:
                await self._tell_chat(message, data["bot"], context.texts, "anonymous")
                return None
            if not self._settings.may_answer_in_group(message.chat.id):
                await self._tell_chat(message, data["bot"], context.texts, "group")
                return None
        if user.is_bot:
            return None
        if self._settings.may_use(user.id):
            data["is_admin"] = self._settings.is_admin(user.id)
            return await handler(event, data)
        if message is not None and context is not None:
            await self._refuse(message, user, data["bot"], context.texts)
        else:
            log.debug("dropped a %s update from a stranger", type(event).__name__)
        return None

    async def _tell_chat(self, message: Message, bot: Bot, texts: Texts, why: str) -> None:
        """One short notice per chat and period, and only when the bot was addressed."""
        if not addressed_to_bot(message, await bot.me()):
            return
        log.info("not answering in chat %d: %s", message.chat.id, why)
        if not self._chat_notices.allow(message.chat.id):
            return
        text = texts.write_as_yourself if why == "anonymous" else texts.group_not_allowed
        try:
            await message.reply(text)
        except TelegramAPIError as exc:
            log.info("could not send the notice to chat %d: %s", message.chat.id, exc)

    async def _refuse(self, message: Message, user: User, bot: Bot, texts: Texts) -> None:
        if not addressed_to_bot(message, await bot.me()):
            return
        log.info("refused user %d in chat %d: not on the access list", user.id, message.chat.id)
        if not self._notices.allow(user.id):
            return
        text = texts.stranger_reply(user.id)
        try:
            await message.reply(text, parse_mode="HTML")
        except TelegramAPIError as exc:
            log.info("could not tell user %d about access: %s", user.id, exc)
