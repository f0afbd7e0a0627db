"""One row of the `feedback` table, the same on both backends, read back as a record.

The files read are kept as a JSON list in both, so the two sides read a row one way.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from bot.storage.errors import StorageError
from bot.storage.feedback import (
    ANSWER_CHARS,
    QUESTION_CHARS,
    REASONS,
    VOTES,
    Answered,
    FeedbackRecord,
    Reason,
    Vote,
)

WRITTEN = (
    "id, chat_id, user_id, conversation, question, answer, files, model, prompt_tokens, "
    "completion_tokens, seconds, created_at"
)
"""The columns written when an answer is delivered, in `written`'s order."""
COLUMNS = WRITTEN + ", vote, voted_at, reason, comment, prompt_message_id"
"""Every column, in the order `record_of` reads them."""


def written(answer_id: str, answered: Answered, now: float) -> tuple[Any, ...]:
    """The values of `WRITTEN` for a delivered answer, its texts cut to their bounds."""
    return (
        answer_id,
        answered.chat_id,
        answered.user_id,
        answered.conversation,
        answered.question[:QUESTION_CHARS],
        answered.answer[:ANSWER_CHARS],
        files_json(answered.files),
        answered.model,
        answered.prompt_tokens,
        answered.completion_tokens,
        answered.seconds,
        now,
    )


def files_json(files: Sequence[str]) -> str:
    """The files read, as the `files` column keeps them."""
    return json.dumps(list(files), ensure_ascii=False)


def record_of(row: Sequence[Any]) -> FeedbackRecord:
    """The record in a row of `COLUMNS`."""
    files: list[str] = json.loads(row[6])
    answered = Answered(
        int(row[1]),
        int(row[2]),
        str(row[3]),
        str(row[4]),
        str(row[5]),
        tuple(str(f) for f in files),
        str(row[7]),
        int(row[8]),
        int(row[9]),
        float(row[10]),
    )
    return FeedbackRecord(
        str(row[0]),
        answered,
        float(row[11]),
        None if row[12] is None else vote_of(row[12]),
        None if row[13] is None else float(row[13]),
        reason_of(row[14]),
        str(row[15]),
        None if row[16] is None else int(row[16]),
    )


def vote_of(value: object) -> Vote:
    """A stored vote; anything else is a damaged row."""
    for vote in VOTES:
        if value == vote:
            return vote
    msg = f"unknown vote {value!r} in the feedback table"
    raise StorageError(msg)


def reason_of(value: object) -> Reason | None:
    """A stored reason; None when there is none (or one this version does not know)."""
    for reason in REASONS:
        if value == reason:
            return reason
    return None
