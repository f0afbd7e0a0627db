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


class EditPacer:
    """When each chat may next see an edit: `interval_s` apart, longer after flood control."""

    def __init__(self, interval_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._interval = interval_s
        self._clock = clock
        self._next: dict[int, float] = {}

    def delay(self, chat_id: int) -> float:
        """Seconds to wait before the next edit in `chat_id`."""
        return max(0.0, self._next.get(chat_id, 0.0) - self._clock())

    def used(self, chat_id: int) -> None:
        """An edit was just made in `chat_id`."""
        now = self._clock()
        if len(self._next) >= _SWEEP_AT:
            self._next = {c: t for c, t in self._next.items() if t > now}
        self._next[chat_id] = now + self._interval

    def back_off(self, chat_id: int, seconds: float) -> None:
        """Telegram asked to wait `seconds` before writing to `chat_id` again."""
        until = self._clock() + min(seconds, _MAX_BACKOFF_S)
        self._next[chat_id] = max(self._next.get(chat_id, 0.0), until)


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
