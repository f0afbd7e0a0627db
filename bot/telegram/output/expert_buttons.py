"""The buttons of "Ask an expert": under an answer, under the question about the asker's name,
and under an expert's reply in the experts' chat.

"Ask an expert" is a row of its own just above the 👍/👎 row, so the votes stay at the bottom
of every answer. A button carries only the answer's random id (`xp:<id>`, `xpn:<y|n>:<id>`)
and, to save a reply, the reply's message id in the experts' chat (`xps:<id>:<message>`), never
the question or the answer.
"""

from __future__ import annotations

from aiogram.filters.callback_data import CallbackData
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from bot.telegram.output.feedback_buttons import VoteButton
from bot.telegram.texts.experts import ExpertTexts


class AskExpert(CallbackData, prefix="xp"):
    """ "Ask an expert" under the answer `answer_id`."""

    answer_id: str


class ShowName(CallbackData, prefix="xpn"):
    """The asker's choice: `y` shows their name to the experts, `n` keeps it back."""

    show: str
    answer_id: str


class SaveReply(CallbackData, prefix="xps"):
    """ "Save as a document" for the expert's reply `message_id` to the answer `answer_id`."""

    answer_id: str
    message_id: int


def with_ask_expert(
    markup: InlineKeyboardMarkup | None, answer_id: str, texts: ExpertTexts
) -> InlineKeyboardMarkup:
    """`markup` with "Ask an expert" above its 👍/👎 row (at the bottom when it has none);
    unchanged when the button is there already."""
    rows = list(markup.inline_keyboard) if markup is not None else []
    if any(_starts(b, AskExpert.__prefix__) for row in rows for b in row):
        return InlineKeyboardMarkup(inline_keyboard=rows)
    button = [
        InlineKeyboardButton(
            text=texts.ask_button, callback_data=AskExpert(answer_id=answer_id).pack()
        )
    ]
    votes = [
        i for i, row in enumerate(rows) if any(_starts(b, VoteButton.__prefix__) for b in row)
    ]
    at = votes[0] if votes else len(rows)
    return InlineKeyboardMarkup(inline_keyboard=[*rows[:at], button, *rows[at:]])


def name_markup(answer_id: str, texts: ExpertTexts) -> InlineKeyboardMarkup:
    """ "With my name" and "Anonymously", side by side."""
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [
                InlineKeyboardButton(
                    text=texts.with_name,
                    callback_data=ShowName(show="y", answer_id=answer_id).pack(),
                ),
                InlineKeyboardButton(
                    text=texts.anonymously,
                    callback_data=ShowName(show="n", answer_id=answer_id).pack(),
                ),
            ]
        ]
    )


def save_markup(answer_id: str, message_id: int, texts: ExpertTexts) -> InlineKeyboardMarkup:
    """The one-tap "Save as a document"."""
    data = SaveReply(answer_id=answer_id, message_id=message_id).pack()
    return InlineKeyboardMarkup(
        inline_keyboard=[[InlineKeyboardButton(text=texts.save_button, callback_data=data)]]
    )


def _starts(button: InlineKeyboardButton, prefix: str) -> bool:
    return (button.callback_data or "").startswith(f"{prefix}:")
