"""Questions sent to the experts' group, and the experts' replies to them.

A request is made when the asker taps "Ask an expert" under an answer; it is keyed by that
answer's id (`bot.storage.feedback.new_answer_id`), so one answer is sent at most once. It
keeps where the answer went (so an expert's reply goes back there), the question, the asker's
language and, only when the asker agreed, their name. Its state moves `asking` (whether to show
the name) → `sending` (claimed by one tap, so a second one sends nothing) → `sent` (the message
in the experts' chat is known, so a reply to it finds the request); a send that failed goes
back to `asking`.

Each expert's reply is kept with the request, and whether (and where) it was saved as a
document; saving is claimed the same way, so a double tap writes one file. Both are kept and
deleted like the conversations: after HISTORY_DAYS (`delete_older`) and by `/forget`
(`forget_user`), the asker's requests with their replies and an expert's own replies.

`SqliteExpertRequests` (sqlite.py) keeps them in a small SQLite file in DATA_DIR; with
DATABASE_URL, `PostgresExpertRequests` (postgres.py) in the shared database, so a reply reaching
any worker finds the request another one sent; `rows.py` reads a row back the same way for both.
No aiogram here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

State = Literal["asking", "sending", "sent"]
STATES: tuple[State, ...] = ("asking", "sending", "sent")

QUESTION_CHARS = 2000
REPLY_CHARS = 4096
"""The longest question and reply kept: a Telegram message holds 4096 characters."""
SAVING = ""
"""`ExpertReply.saved_as` while one tap is saving it (a path once saved, None before)."""


@dataclass(frozen=True, slots=True)
class Asked:
    """Where an answer went, and to whom: where the expert's reply is delivered."""

    chat_id: int
    user_id: int
    question: str
    language: str
    thread_id: int | None = None
    reply_to: int | None = None
    """The answer's message the expert's reply is posted under."""


@dataclass(frozen=True, slots=True)
class ExpertRequest:
    """One question sent (or about to be sent) to the experts."""

    id: str
    asked: Asked
    state: State
    created_at: float
    """Unix time of the tap on "Ask an expert"."""
    asker_name: str | None = None
    """The asker's name as the experts see it; None when they chose to stay anonymous."""
    experts_chat_id: int | None = None
    experts_message_id: int | None = None


@dataclass(frozen=True, slots=True)
class ExpertReply:
    """An expert's reply to a request's message in the experts' chat."""

    request_id: str
    message_id: int
    """The reply's own message id in the experts' chat."""
    expert_id: int
    expert_name: str
    text: str
    replied_at: float
    saved_as: str | None = None
    """The document it was saved as (relative to the documents folder); `SAVING` meanwhile."""


class ExpertRequests(Protocol):
    """The requests to the experts and their replies."""

    async def start(self, request_id: str, asked: Asked) -> ExpertRequest:
        """The request `request_id`: made now in `asking` (question cut to `QUESTION_CHARS`),
        or the one made before, as it is."""
        ...

    async def find(self, request_id: str) -> ExpertRequest | None:
        """The request `request_id`; None when unknown or deleted."""
        ...

    async def claim(self, request_id: str, asker_name: str | None) -> bool:
        """Move an `asking` request to `sending` with the name to show; False for any other
        state (sent or being sent already) or an unknown id."""
        ...

    async def release(self, request_id: str) -> None:
        """A send that failed: back to `asking`, so the asker may try again."""
        ...

    async def sent(self, request_id: str, experts_chat_id: int, experts_message_id: int) -> None:
        """The request's message is in the experts' chat: `sent`, and found by its id."""
        ...

    async def by_message(self, experts_chat_id: int, message_id: int) -> ExpertRequest | None:
        """The request whose message in the experts' chat is `message_id`."""
        ...

    async def add_reply(self, reply: ExpertReply) -> None:
        """Keep an expert's reply (text cut to `REPLY_CHARS`); the same reply twice is kept
        once."""
        ...

    async def reply(self, request_id: str, message_id: int) -> ExpertReply | None:
        """The reply `message_id` to the request `request_id`; None when unknown or deleted."""
        ...

    async def claim_saving(self, request_id: str, message_id: int) -> bool:
        """Mark a reply as being saved; False when it is saved or being saved already."""
        ...

    async def saved(self, request_id: str, message_id: int, path: str | None) -> None:
        """The reply was saved as `path`; None: saving failed, so it may be tried again."""
        ...

    async def forget_user(self, user_id: int) -> int:
        """Delete every request `user_id` asked (with their replies) and every reply they
        wrote as an expert; how many requests and replies."""
        ...

    async def delete_older(self, cutoff: float) -> int:
        """Delete requests made before `cutoff` (Unix time), with their replies; how many
        requests."""
        ...

    async def close(self) -> None:
        """Let go of the store."""
        ...


def state_of(value: object) -> State:
    """A stored state; anything else reads as `sent`, so a damaged row is never sent again."""
    return next((state for state in STATES if state == value), "sent")
