"""Buttons the bot put on a message without a test having made it send them.

A tap counts only with data the bot put on that very message (`bot.storage.buttons`). Tests of
what a handler does with data the bot no longer makes, or made under other settings (an older
keyboard, a scope narrowed since, experts turned off, an id since forgotten), first give the
message those buttons through the bot itself, so the tap gets past that check to the
handler's own."""

from __future__ import annotations

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from tests.fakes.harness import Harness


async def put_buttons(harness: Harness, chat_id: int, message_id: int, *data: str) -> None:
    """Make the bot's message carry buttons with `data`; the edit is left out of the calls a
    test inspects."""
    rows = [[InlineKeyboardButton(text=item or "?", callback_data=item)] for item in data]
    before = len(harness.session.calls)
    await harness.bot.edit_message_reply_markup(
        chat_id=chat_id,
        message_id=message_id,
        reply_markup=InlineKeyboardMarkup(inline_keyboard=rows),
    )
    del harness.session.calls[before:]
