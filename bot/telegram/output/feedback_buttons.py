"""The 👍 and 👎 under an answer, and the reasons a 👎 may give.

A row of its own at the bottom of the answer's keyboard, below the source buttons: those take a
row per document (with its page buttons), so the two votes sit in the same place under every
answer, with sources or without. Inline buttons rather than Telegram's message reactions: a
button works in every chat type and tells the bot who tapped it and under which answer, while
a group's reactions reach a bot only where it is an administrator (and only when it asks for
`message_reaction` updates), groups may turn reactions off, and a reaction cannot ask the
follow-up "what was wrong?".

A button's data is `fb:<vote>:<id>` (`fbr:<reason>:<id>` for a reason), the id one from
`bot.storage.feedback.new_answer_id`, never the question. Once voted, the chosen button shows
`✓`, and so does a chosen reason.
"""

from __future__ import annotations

from collections.abc import Mapping

from aiogram.filters.callback_data import CallbackData
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from bot.storage.feedback import REASONS, VOTES, Reason, Vote

ICONS: Mapping[Vote, str] = {"up": "👍", "down": "👎"}
CHOSEN = " ✓"


class VoteButton(CallbackData, prefix="fb"):
    """A 👍 (`up`) or a 👎 (`down`) under the answer `answer_id`."""

    vote: str
    answer_id: str


class ReasonButton(CallbackData, prefix="fbr"):
    """What was wrong with the answer `answer_id`, one of `REASONS`."""

    reason: str
    answer_id: str


def vote_row(answer_id: str, chosen: Vote | None = None) -> list[InlineKeyboardButton]:
    """The two vote buttons, the `chosen` one marked."""
    return [
        InlineKeyboardButton(
            text=ICONS[vote] + (CHOSEN if vote == chosen else ""),
            callback_data=VoteButton(vote=vote, answer_id=answer_id).pack(),
        )
        for vote in VOTES
    ]


def with_votes(
    markup: InlineKeyboardMarkup | None, answer_id: str, chosen: Vote | None = None
) -> InlineKeyboardMarkup:
    """`markup` (the source buttons, if any) with the vote row at the bottom; a vote row it
    already has is replaced in place."""
    rows = list(markup.inline_keyboard) if markup is not None else []
    kept = [row for row in rows if not _is_vote_row(row)]
    return InlineKeyboardMarkup(inline_keyboard=[*kept, vote_row(answer_id, chosen)])


def reason_markup(
    answer_id: str, labels: Mapping[Reason, str], chosen: Reason | None = None
) -> InlineKeyboardMarkup:
    """One reason a row, so each label fits a phone's width; the `chosen` one marked."""
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [
                InlineKeyboardButton(
                    text=labels[reason] + (CHOSEN if reason == chosen else ""),
                    callback_data=ReasonButton(reason=reason, answer_id=answer_id).pack(),
                )
            ]
            for reason in REASONS
        ]
    )


def vote_of(text: str) -> Vote | None:
    """The vote a button's data names; None for anything else."""
    return next((vote for vote in VOTES if vote == text), None)


def reason_of(text: str) -> Reason | None:
    """The reason a button's data names; None for anything else."""
    return next((reason for reason in REASONS if reason == text), None)


def _is_vote_row(row: list[InlineKeyboardButton]) -> bool:
    return any((b.callback_data or "").startswith(f"{VoteButton.__prefix__}:") for b in row)
