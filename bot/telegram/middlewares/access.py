"""Access control: the check every update meets before any handler or inner middleware.

Only the update's `ChatContext` is worked out before it, so refusals come in the sender's
language, and pairing attempts (`pairing`) are taken out of the stream just ahead of it.

Whether a user may use the bot, and whether they are an admin, is asked of one
`AccessPolicy`: the environment's lists (ADMIN_IDS, ALLOWED_USER_IDS, ALLOW_ALL) and the access
granted in Telegram. Users who may pass, with `is_admin` added to the handler data. A stranger
who writes to the bot in a private chat asks the admins for access (`AccessRequests`) and is
told so; in a group, or when there is no admin to ask, they learn their numeric id and how to
ask for access. A stranger's tap on a button (under an answer in a group) gets a short pop-up,
so their client stops waiting, and their inline query (`@bot words`) no results and a button
that opens the private chat to ask for access. Nothing else reaches them, and updates without a
sender are dropped.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware, Bot
from aiogram.exceptions import TelegramAPIError
from aiogram.types import CallbackQuery, Message, TelegramObject, Update, User

from bot.access import AccessPolicy
from bot.telegram.access_requests import AccessRequests, Asked
from bot.telegram.addressing import addressed_to_bot
from bot.telegram.context import CHAT_CONTEXT, ChatContext
from bot.telegram.middlewares.notices import NoticeCooldown
from bot.telegram.output import inline_cards
from bot.telegram.texts import Texts, texts_for
from bot.telegram.texts.inline import inline_texts

log = logging.getLogger(__name__)

Handler = Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]]


class AccessMiddleware(BaseMiddleware):
    """Outer update middleware: lets known users through and answers strangers once a minute.

    In groups outside ALLOWED_CHAT_IDS (when set) and for messages posted as a chat (anonymous
    admins, "send as channel") a mention gets one short notice per chat per period.
    """

    def __init__(
        self, access: AccessPolicy, requests: AccessRequests, *, notice_period_s: float = 60.0
    ) -> None:
        self._access = access
        self._requests = requests
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
            if not self._access.may_answer_in_group(message.chat.id):
                await self._tell_chat(message, data["bot"], context.texts, "group")
                return None
        if user.is_bot:
            return None
        if self._access.may_use(user.id):
            admin = self._access.is_admin(user.id)
            data["is_admin"] = admin
            if admin and context is not None:
                await self._remember_language(user.id, context.language)
            return await handler(event, data)
        query = event.callback_query if isinstance(event, Update) else None
        inline = event.inline_query if isinstance(event, Update) else None
        if message is not None and context is not None:
            await self._refuse(message, user, data["bot"], context)
        elif query is not None:
            texts = context.texts if context is not None else texts_for(user.language_code)
            await self._refuse_tap(query, texts)
        elif inline is not None:
            await inline_cards.refuse(inline, inline_texts(user.language_code))
        else:
            log.debug("dropped a %s update from a stranger", type(event).__name__)
        return None

    async def _remember_language(self, user_id: int, lang: str) -> None:
        """Keep an admin's language for their access requests; a failure only costs that."""
        try:
            await self._access.remember_language(user_id, lang)
        except (sqlite3.Error, OSError) as exc:
            log.warning("could not remember the language of admin %d: %s", user_id, exc)

    async def _refuse_tap(self, query: CallbackQuery, texts: Texts) -> None:
        """A stranger pressed a button: a short pop-up says they have no access."""
        log.info("refused a button tap by user %d: not on the access list", query.from_user.id)
        try:
            await query.answer(texts.button_no_access, show_alert=True)
        except TelegramAPIError as exc:
            log.info("could not answer the tap of user %d: %s", query.from_user.id, exc)

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

    async def _refuse(self, message: Message, user: User, bot: Bot, context: ChatContext) -> None:
        """Ask the admins for a stranger who wrote privately; otherwise tell them their id."""
        if not addressed_to_bot(message, await bot.me()):
            return
        log.info("refused user %d in chat %d: not on the access list", user.id, message.chat.id)
        texts = context.texts
        asked: Asked = "nobody"
        if not context.is_group:
            try:
                asked = await self._requests.ask(bot, user, texts.lang)
            except (sqlite3.Error, OSError):
                log.exception("the access request of user %d could not be recorded", user.id)
        if asked == "sent":
            self._notices.allow(user.id)  # the next notice is due a period from now
            text = texts.request_sent_reply(user.id)
        elif not self._notices.allow(user.id):
            return
        else:
            pending = asked == "pending"
            text = (
                texts.request_pending_reply(user.id) if pending else texts.stranger_reply(user.id)
            )
        try:
            await message.reply(text, parse_mode="HTML")
        except TelegramAPIError as exc:
            log.info("could not tell user %d about access: %s", user.id, exc)
