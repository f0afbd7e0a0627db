"""Rows of the `expert_requests` and `expert_replies` tables, the same on both backends, read
back as records."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.storage.experts import Asked, ExpertReply, ExpertRequest, state_of

REQUEST_COLUMNS = (
    "id, chat_id, user_id, question, language, thread_id, reply_to, state, created_at, "
    "asker_name, experts_chat_id, experts_message_id"
)
"""Every column of a request, in the order `request_of` reads them."""
REPLY_COLUMNS = "request_id, message_id, expert_id, expert_name, text, replied_at, saved_as"
"""Every column of a reply, in the order `reply_of` reads them (and `reply_row` writes)."""


def request_of(row: Sequence[Any]) -> ExpertRequest:
    """The request in a row of `REQUEST_COLUMNS`."""
    asked = Asked(
        chat_id=int(row[1]),
        user_id=int(row[2]),
        question=str(row[3]),
        language=str(row[4]),
        thread_id=_int_or_none(row[5]),
        reply_to=_int_or_none(row[6]),
    )
    return ExpertRequest(
        id=str(row[0]),
        asked=asked,
        state=state_of(row[7]),
        created_at=float(row[8]),
        asker_name=None if row[9] is None else str(row[9]),
        experts_chat_id=_int_or_none(row[10]),
        experts_message_id=_int_or_none(row[11]),
    )


def reply_of(row: Sequence[Any]) -> ExpertReply:
    """The reply in a row of `REPLY_COLUMNS`."""
    return ExpertReply(
        request_id=str(row[0]),
        message_id=int(row[1]),
        expert_id=int(row[2]),
        expert_name=str(row[3]),
        text=str(row[4]),
        replied_at=float(row[5]),
        saved_as=None if row[6] is None else str(row[6]),
    )


def _int_or_none(value: object) -> int | None:
    return None if value is None else int(str(value))
