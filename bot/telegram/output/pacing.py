"""Where the bot writes in a chat, and how fast it may edit there.

Both the progress display and answer delivery need them; keeping them here means neither
depends on the other.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from aiogram.types import ReplyParameters

_SWEEP_AT = 10_000
_MAX_BACKOFF_S = 60.0

EDIT_BURST = 2
"""Calls a quiet chat may take in a row: the status message, then the first answer text."""


class EditPacer:
    """When each chat may next see an edit: one per `interval_s` on average, longer after
    flood control.

    A chat that has been quiet may take `burst` calls in a row before the pace applies
    (Telegram's bot FAQ allows short bursts over one message a second in a chat). With a
    burst of 2 the first answer text can replace the status message sent a moment before,
    instead of waiting a whole interval behind it; over any stretch of time the chat still
    sees at most one call per interval plus the burst. The rule is the generic cell rate
    algorithm: each chat has a due time that every call pushes one interval later, and a call
    may go once the due time is less than `burst - 1` intervals ahead.
    """

    def __init__(
        self,
        interval_s: float,
        clock: Callable[[], float] = time.monotonic,
        *,
        burst: int = 1,
    ) -> None:
        self._interval = interval_s
        self._clock = clock
        self._slack = interval_s * max(0, burst - 1)
        self._due: dict[int, float] = {}

    def delay(self, chat_id: int) -> float:
        """Seconds to wait before the next edit in `chat_id`."""
        return max(0.0, self._due.get(chat_id, 0.0) - self._slack - self._clock())

    def used(self, chat_id: int) -> None:
        """An edit was just made in `chat_id`."""
        now = self._clock()
        if len(self._due) >= _SWEEP_AT:
            self._due = {c: t for c, t in self._due.items() if t > now}
        self._due[chat_id] = max(self._due.get(chat_id, now), now) + self._interval

    def back_off(self, chat_id: int, seconds: float) -> None:
        """Telegram asked to wait `seconds` before writing to `chat_id` again (no burst then)."""
        until = self._clock() + min(seconds, _MAX_BACKOFF_S) + self._slack
        self._due[chat_id] = max(self._due.get(chat_id, 0.0), until)


@dataclass(frozen=True, slots=True)
class ChatPlace:
    """Where a question was asked: the chat, its forum topic, and the message to reply to."""

    chat_id: int
    thread_id: int | None = None
    reply_to: int | None = None

    def reply_parameters(self) -> ReplyParameters | None:
        """Reply to the question (groups), never failing if it was deleted meanwhile."""
        if self.reply_to is None:
            return None
        return ReplyParameters(message_id=self.reply_to, allow_sending_without_reply=True)
