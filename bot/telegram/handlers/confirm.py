"""One "are you sure?" flow for every action a tap must confirm: `/rm`, `/mv`, `/forget`.

Asking keeps the action in the confirmations store (`bot.confirmations`) under a short random
id and sends the question with two buttons that carry only that id. A tap settles it: only the
person who asked, in the chat they asked in, once, while the id lives; the question then
becomes its outcome and loses its buttons. Each feature gives its buttons a prefix of its own
(`ConfirmButton` subclasses), so a tap reaches that feature's router, and says how the action is
carried out; the rest is here.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError
from aiogram.filters.callback_data import CallbackData, CallbackQueryFilter
from aiogram.types import (
    CallbackQuery,
    InaccessibleMessage,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
)

from bot.storage.confirmations import Confirmations, Pending
from bot.telegram.context import ChatContext
from bot.telegram.handlers.replies import pop_up
from bot.telegram.texts import Texts

log = logging.getLogger(__name__)

CarryOut = Callable[[Pending], Awaitable[str]]
"""Does a confirmed action and returns the HTML the question is replaced with (a failure too)."""


class ConfirmButton(CallbackData, prefix="confirm"):
    """`<prefix>:y:<id>` does the action kept under the id, `<prefix>:n:<id>` drops it."""

    answer: str
    confirm_id: str


@dataclass(frozen=True, slots=True)
class Confirm:
    """One feature's confirm buttons: their data, the actions they may settle, the "yes" label."""

    button: type[ConfirmButton]
    actions: Collection[str]
    yes: Callable[[Texts], str]

    def filter(self) -> CallbackQueryFilter:
        """The filter that routes this feature's taps to its handler."""
        return self.button.filter()

    async def ask(
        self,
        bot: Bot,
        chat_context: ChatContext,
        pending: Pending,
        question: str,
        *,
        confirmations: Confirmations,
    ) -> None:
        """Keep `pending` under a new id and send `question` (HTML) with its two buttons."""
        assert pending.action in self.actions
        texts = chat_context.texts
        confirm_id = await confirmations.ask(pending)
        yes = self.button(answer="y", confirm_id=confirm_id).pack()
        no = self.button(answer="n", confirm_id=confirm_id).pack()
        buttons = InlineKeyboardMarkup(
            inline_keyboard=[
                [
                    InlineKeyboardButton(text=self.yes(texts), callback_data=yes),
                    InlineKeyboardButton(text=texts.cancel_button, callback_data=no),
                ]
            ]
        )
        place = chat_context.place
        await bot.send_message(
            place.chat_id,
            question,
            parse_mode="HTML",
            reply_markup=buttons,
            message_thread_id=place.thread_id,
        )

    async def settle(
        self,
        query: CallbackQuery,
        tapped: ConfirmButton,
        *,
        bot: Bot,
        texts: Texts,
        confirmations: Confirmations,
        carry_out: CarryOut,
        refusal: str | None = None,
    ) -> None:
        """A tap on "yes" or "cancel": the action is taken from the store (so a second tap
        finds nothing) and done or dropped. `refusal`, when the tapper may no longer do it,
        pops up instead and drops the action."""
        pressed = query.message
        if pressed is None or isinstance(pressed, InaccessibleMessage):
            await pop_up(query, texts.confirm_expired)
            return
        pending = await confirmations.take(
            tapped.confirm_id, user_id=query.from_user.id, chat_id=pressed.chat.id
        )
        if pending is None or pending.action not in self.actions:
            await pop_up(query, texts.confirm_expired)
            return
        if refusal is not None:
            await pop_up(query, refusal)
            return
        await pop_up(query, None)
        if tapped.answer != "y":
            await _replace(bot, pressed, texts.cancelled)
            return
        await _replace(bot, pressed, await carry_out(pending))


async def _replace(bot: Bot, pressed: Message, html: str) -> None:
    """The question becomes its outcome, and its buttons go away."""
    try:
        await bot.edit_message_text(
            text=html, chat_id=pressed.chat.id, message_id=pressed.message_id, parse_mode="HTML"
        )
    except TelegramAPIError as exc:  # deleted meanwhile: say it anew instead
        log.info("confirm message %d not edited: %s", pressed.message_id, exc)
        await bot.send_message(pressed.chat.id, html, parse_mode="HTML")
