"""`/forget`: anyone deletes their own conversations with the bot, for good, after a tap.

"Their conversations" are the ones keyed by them: their private chat with the bot
(`chat:<id>`) and their own questions and the bot's answers in groups (`chat:<group>:user:<id>`,
as each member has a conversation of their own there). Other members' conversations in the same
group are theirs and stay. With them go the ids behind source buttons in their private chat
and the record of which button is on which message there, their access request and what it
noted (their access itself stays), and any other confirm button they left waiting, the answers
they were given with their 👍/👎 and comments, their questions kept as unanswered for `/gaps`,
and their private chat's change notice subscriptions (a group's stay: they are the group's).
The admins' audit log is not touched: it is the record of what admins did, not of anyone's
questions.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass
from typing import Protocol

from aiogram import Bot, Router
from aiogram.filters import Command
from aiogram.types import CallbackQuery, Message

from bot.access import AccessPolicy
from bot.agent import KeyedLocks
from bot.storage.buttons import Buttons
from bot.storage.confirmations import Confirmations, Pending
from bot.storage.experts import ExpertRequests
from bot.storage.feedback import FeedbackStore
from bot.storage.notices import NoticeStore
from bot.storage.source_links import SourceLinks
from bot.storage.unanswered import UnansweredLog
from bot.telegram.context import ChatContext
from bot.telegram.handlers.confirm import Confirm, ConfirmButton

log = logging.getLogger(__name__)


class ConversationLog(Protocol):
    """What `/forget` needs of the history, whichever database keeps it."""

    async def forget_user(self, user_id: int) -> int:
        """Delete every conversation of one person; how many."""
        ...


@dataclass(frozen=True, slots=True)
class Forgetting:
    """Everything `/forget` deletes of one person, store by store, in one place."""

    history: ConversationLog
    locks: KeyedLocks
    source_links: SourceLinks
    access: AccessPolicy
    confirmations: Confirmations
    buttons: Buttons | None = None
    feedback: FeedbackStore | None = None
    unanswered: UnansweredLog | None = None
    experts: ExpertRequests | None = None
    notices: NoticeStore | None = None

    async def forget(self, user_id: int) -> int:
        """Delete it all; how many conversations went. Their private conversation waits for a
        question in flight to end, so no turn is written after the deletion."""
        async with self.locks.hold(f"chat:{user_id}"):
            deleted = await self.history.forget_user(user_id)
            await self.source_links.forget_chat(user_id)
            await self.access.forget(user_id)
            await self.confirmations.forget_user(user_id)
            if self.buttons is not None:
                await self.buttons.forget_chat(user_id)
            if self.feedback is not None:
                await self.feedback.forget_user(user_id)
            if self.unanswered is not None:
                await self.unanswered.forget_user(user_id)
            if self.experts is not None:
                await self.experts.forget_user(user_id)
            if self.notices is not None:
                await self.notices.forget_user(user_id)
        return deleted


class ForgetAnswer(ConfirmButton, prefix="forget"):
    """The buttons under `/forget`: `forget:y:<id>` deletes, `forget:n:<id>` cancels."""


FORGET = Confirm(ForgetAnswer, actions={"forget"}, yes=lambda texts: texts.forget_button)


def make_router() -> Router:
    """`/forget` and its buttons, for everyone the bot serves."""
    router = Router(name="privacy")
    router.message.register(on_forget, Command("forget"))
    router.callback_query.register(on_forget_answer, FORGET.filter())
    return router


async def on_forget(
    message: Message, *, bot: Bot, confirmations: Confirmations, chat_context: ChatContext
) -> None:
    """Say what will be deleted, and that it is for good; nothing is deleted before the tap."""
    if message.from_user is None:
        return
    pending = Pending(message.from_user.id, message.chat.id, "forget", ())
    await FORGET.ask(
        bot,
        chat_context,
        pending,
        chat_context.texts.forget_confirm,
        confirmations=confirmations,
    )


async def on_forget_answer(
    query: CallbackQuery,
    callback_data: ForgetAnswer,
    *,
    bot: Bot,
    forgetting: Forgetting,
    confirmations: Confirmations,
    chat_context: ChatContext,
) -> None:
    """The tap of the person who asked: delete (or cancel), then say it is done."""
    texts = chat_context.texts

    async def forget(pending: Pending) -> str:
        user_id = pending.user_id
        try:
            deleted = await forgetting.forget(user_id)
        except (sqlite3.Error, OSError):
            log.exception("forgetting user %d failed", user_id)
            return texts.error_generic
        log.info("user %d had %d conversation(s) deleted at their request", user_id, deleted)
        return texts.forget_done_reply(deleted)

    await FORGET.settle(
        query,
        callback_data,
        bot=bot,
        texts=texts,
        confirmations=confirmations,
        carry_out=forget,
    )
