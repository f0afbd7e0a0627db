"""What people thought of the bot's answers: 👍 or 👎, and for a 👎 why, in a tap or in words.

Each answer the bot delivers is one record, written when it is delivered (only then do its
buttons exist): who asked where, the question, the answer (cut to `ANSWER_CHARS`), the files
read, the model, its tokens and time. Taps update it: a vote (a second tap changes it), and
after a 👎 a reason and a comment. A button carries only the record's random id, never the
question. Records are kept and deleted like the conversation history: older than HISTORY_DAYS
by the sweep (`delete_older`), a person's own by `/forget` (`forget_user`).

`SqliteFeedback` (sqlite.py) keeps them in a small SQLite file in DATA_DIR; with DATABASE_URL,
`PostgresFeedback` (postgres.py) in the shared database, so a tap on any worker finds the
answer another delivered; `rows.py` reads a row back the same way for both. No aiogram here:
the Telegram wing builds the buttons.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import Literal, Protocol

Vote = Literal["up", "down"]
Reason = Literal["not_in_documents", "wrong_answer", "wrong_file"]
VOTES: tuple[Vote, ...] = ("up", "down")
REASONS: tuple[Reason, ...] = ("not_in_documents", "wrong_answer", "wrong_file")
"""What a 👎 may say was wrong, in the order its buttons show."""

QUESTION_CHARS = 2000
ANSWER_CHARS = 4000
COMMENT_CHARS = 1000
"""The longest question, answer and comment kept; longer questions and answers are cut."""
ID_BYTES = 9
"""Random bytes of an id: 12 url-safe characters, 72 bits, not guessable."""
ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{12}")


def new_answer_id() -> str:
    """A fresh random id for an answer's buttons."""
    return secrets.token_urlsafe(ID_BYTES)


def is_answer_id(text: str) -> bool:
    """Whether `text` has the shape of an id `new_answer_id` makes."""
    return ID_PATTERN.fullmatch(text) is not None


@dataclass(frozen=True, slots=True)
class Answered:
    """One delivered answer, as it is written."""

    chat_id: int
    user_id: int
    """Who asked: the only person whose taps count."""
    conversation: str
    question: str
    answer: str
    files: tuple[str, ...]
    """The documents read for it, relative to the documents folder, in the order first read."""
    model: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0


@dataclass(frozen=True, slots=True)
class FeedbackRecord:
    """An answer and what its asker said of it."""

    id: str
    answered: Answered
    created_at: float
    """Unix time the answer was delivered."""
    vote: Vote | None = None
    voted_at: float | None = None
    reason: Reason | None = None
    comment: str = ""
    prompt_message_id: int | None = None
    """The bot's "what was wrong?" message, once sent; a reply to it is the comment."""


class FeedbackStore(Protocol):
    """The answers and their votes."""

    async def record(self, answer_id: str, answered: Answered) -> None:
        """Write a delivered answer under `answer_id`, stamped now (text cut to the bounds)."""
        ...

    async def find(self, answer_id: str) -> FeedbackRecord | None:
        """The answer `answer_id` names; None when it is unknown, malformed or deleted."""
        ...

    async def vote(self, answer_id: str, vote: Vote) -> FeedbackRecord | None:
        """Set (or change) the vote, stamped now; a 👍 drops a 👎's reason and comment. The
        record as it now is; None when the id is unknown."""
        ...

    async def mark_asked(self, answer_id: str, prompt_message_id: int) -> bool:
        """Note the "what was wrong?" message; False when one was noted before (it is asked
        once) or the id is unknown."""
        ...

    async def set_reason(self, answer_id: str, reason: Reason) -> bool:
        """Set a 👎's reason; False unless the answer's vote is 👎."""
        ...

    async def by_prompt(self, chat_id: int, prompt_message_id: int) -> FeedbackRecord | None:
        """The answer whose "what was wrong?" message in `chat_id` is `prompt_message_id`."""
        ...

    async def set_comment(self, answer_id: str, comment: str) -> bool:
        """Set a 👎's comment (at most `COMMENT_CHARS`); False unless the vote is 👎."""
        ...

    async def votes_since(self, cutoff: float) -> list[tuple[float, Vote]]:
        """When each vote given since `cutoff` (Unix time) was given, and which."""
        ...

    async def disliked(self, limit: int) -> list[FeedbackRecord]:
        """The last `limit` answers voted 👎, newest vote first."""
        ...

    async def forget_user(self, user_id: int) -> int:
        """Delete every answer `user_id` asked for; how many."""
        ...

    async def delete_older(self, cutoff: float) -> int:
        """Delete answers delivered before `cutoff` (Unix time); how many."""
        ...

    async def close(self) -> None:
        """Let go of the store."""
        ...
