"""Strangers' access requests in Telegram: a message with two buttons to every admin.

A stranger who writes to the bot in a private chat asks the admins, at most once per period
(`bot.storage.access`). Each admin gets the stranger's name, @username and id, with "let in"
and "ignore" buttons in the language that admin last used. A button carries only the action and
the id (`access:allow:123`), nothing secret, and a press is checked again by the handler: only
admins decide. The first decision settles the request: every admin's copy is edited to say who
decided, and a stranger who was let in is told so in their own language. An answer from the
admins' page (`bot.telegram.admin_app`) takes the same way as a button's (`AccessRequests.answer`),
so whichever comes second finds the request settled.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError
from aiogram.filters.callback_data import CallbackData
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup, User

from bot.access import AccessPolicy, AccessRequest, Person, RequestMessage, Settled
from bot.storage.access import Via
from bot.telegram.texts import Texts, texts_for
from bot.telegram.texts.people import who

log = logging.getLogger(__name__)

Asked = Literal["sent", "pending", "nobody"]
"""What became of a stranger's message: a request went to the admins, one is waiting already,
or there is no admin who could be asked."""


DECISIONS: Mapping[str, bool] = MappingProxyType({"allow": True, "ignore": False})
"""An answer's action, on a button or from the admins' page, and whether it lets the person in."""


@dataclass(frozen=True, slots=True)
class Answer:
    """What an admin's answer to a request did."""

    settled: Settled
    earlier: AccessRequest | None
    """The request as an earlier answer left it, when this one came too late and changed
    nothing; None when this answer counted (or there was no request to answer)."""


class AccessDecision(CallbackData, prefix="access"):
    """The data of a request's buttons: `access:allow:123` or `access:ignore:123`."""

    action: str
    user_id: int


def person_of(user: User) -> Person:
    """What the access store keeps of a Telegram user."""
    return Person(user.id, user.full_name, user.username)


def _buttons(texts: Texts, user_id: int) -> InlineKeyboardMarkup:
    allow = AccessDecision(action="allow", user_id=user_id).pack()
    ignore = AccessDecision(action="ignore", user_id=user_id).pack()
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [
                InlineKeyboardButton(text=texts.request_allow_button, callback_data=allow),
                InlineKeyboardButton(text=texts.request_ignore_button, callback_data=ignore),
            ]
        ]
    )


def settled_already(texts: Texts, request: AccessRequest) -> str:
    """What an admin whose answer came too late is told (plain text): who answered first."""
    return texts.request_settled_already.format(admin=request.decided_by_name)


def decision_text(texts: Texts, request: AccessRequest) -> str:
    """What an admin's copy of a settled request says: who was let in or ignored, and by whom."""
    person = request.person
    template = texts.request_allowed if request.decision == "allowed" else texts.request_ignored
    return template.format(
        who=who(person.name, person.username, person.user_id),
        id=f"<code>{person.user_id}</code>",
        admin=who(request.decided_by_name, None, 0),
    )


class AccessRequests:
    """Sends strangers' requests to the admins and carries out the admins' decisions."""

    def __init__(self, access: AccessPolicy) -> None:
        self._access = access

    async def ask(self, bot: Bot, user: User, lang: str) -> Asked:
        """Ask every admin to let `user` in, unless they asked within the period."""
        admins = self._access.admin_ids()
        if not admins:
            return "nobody"
        person = person_of(user)
        if not await self._access.open_request(person, lang):
            return "pending"
        sent = 0
        for admin in sorted(admins):
            sent += await self._send(bot, admin, person)
        if not sent:
            await self._access.withdraw_request(user.id)
            log.warning("the access request of user %d reached no admin", user.id)
            return "nobody"
        log.info("access request of user %d sent to %d admin(s)", user.id, sent)
        return "sent"

    async def answer(self, bot: Bot, user_id: int, *, allow: bool, by: Person) -> Answer:
        """An admin's answer to `user_id`'s request, from its buttons or the admins' page: the
        first answer settles it (as `settle` does); a later one changes nothing."""
        settled = await self.settle(bot, user_id, allow=allow, by=by, via="request")
        request = settled.request
        late = not settled.decided_now and request is not None and request.decision is not None
        return Answer(settled, request if late else None)

    async def settle(
        self, bot: Bot, user_id: int, *, allow: bool, by: Person, via: Via
    ) -> Settled:
        """Let `user_id` in or ignore their request; tell the admins and the person."""
        settled = await self._access.decide(user_id, allow=allow, by=by, via=via)
        request = settled.request
        log.info(
            "admin %d %s user %d%s",
            by.user_id,
            "let in" if allow else "ignored the request of",
            user_id,
            "" if settled.decided_now or request is None else " (the request was settled already)",
        )
        if request is not None and settled.decided_now:
            for message in settled.messages:
                await self.show_decision(bot, message, request)
        if request is not None and settled.grant is not None:
            await self._tell_let_in(bot, request)
        return settled

    async def show_decision(
        self, bot: Bot, message: RequestMessage, request: AccessRequest
    ) -> None:
        """Edit an admin's copy of a request into who decided; its buttons go away."""
        try:
            await bot.edit_message_text(
                text=decision_text(texts_for(message.lang), request),
                chat_id=message.chat_id,
                message_id=message.message_id,
                parse_mode="HTML",
            )
        except TelegramAPIError as exc:  # deleted by the admin, or showing this already
            log.info("access request message in chat %d not edited: %s", message.chat_id, exc)

    async def _send(self, bot: Bot, admin_id: int, person: Person) -> bool:
        texts = texts_for(self._access.language(admin_id))
        text = texts.request_to_admin.format(
            who=who(person.name, person.username, person.user_id),
            id=f"<code>{person.user_id}</code>",
        )
        try:
            sent = await bot.send_message(
                admin_id, text, parse_mode="HTML", reply_markup=_buttons(texts, person.user_id)
            )
        except TelegramAPIError as exc:  # an admin who has not opened a chat with the bot
            log.info("could not send admin %d an access request: %s", admin_id, exc)
            return False
        record = RequestMessage(admin_id, sent.message_id, texts.lang)
        await self._access.note_request_message(person.user_id, record)
        return True

    async def _tell_let_in(self, bot: Bot, request: AccessRequest) -> None:
        user_id = request.person.user_id
        try:
            await bot.send_message(user_id, texts_for(request.lang).let_in, parse_mode="HTML")
        except TelegramAPIError as exc:  # they blocked the bot meanwhile
            log.info("could not tell user %d they were let in: %s", user_id, exc)
